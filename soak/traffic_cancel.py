"""Cancellation traffic: a 60 s sleep cancelled by closing its response, or by
``notifications/cancelled`` (never answered after)."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import httpx
import trio
from answer_checks import jsonrpc_problem
from client_base import ClientBase
from limits import MODERN_VERSION, STREAM_END_TIMEOUT

from tests.transports.http.client import is_sse, legacy_headers, modern, notification, parse_sse, rpc


class CancelTraffic(ClientBase):
    """Requests cancelled while their handler runs; the legacy and modern scenarios call these."""

    async def open_long_sleep(self, headers: dict[str, str], request_id: str, stack: Any) -> httpx.Response:
        """POST sleep(60 s) and wait for the response headers: in auto mode they come once the
        request has run for ``stream_after``, so the handler is certainly in flight."""
        self.count("POST sleep 60000 (to cancel)")
        self.tally.events["sleeps_sent"] += 1
        body = rpc("tools/call", {"name": "sleep", "arguments": {"ms": 60000}}, request_id)
        if headers.get("mcp-protocol-version") == MODERN_VERSION:
            body, headers = modern("tools/call", {"name": "sleep", "arguments": {"ms": 60000}}, request_id)
        response = await stack.enter_async_context(
            self.client.stream("POST", self.url, content=json.dumps(body).encode(), headers=headers)
        )
        if response.status_code != 200 or not is_sse(response):
            await response.aread()
            self.check_common(response)
            raise self.fail(
                "wrong_answer",
                f"long sleep: HTTP {response.status_code} {response.headers.get('content-type')} {response.text[:200]}",
            )
        return response

    async def cancel_by_closing(self, headers: dict[str, str]) -> None:
        async with contextlib.AsyncExitStack() as stack:
            response = await self.open_long_sleep(headers, self.next_id(), stack)
            if self.rng.random() < 0.5:
                async for _chunk in response.aiter_raw():
                    break  # a priming event or a probe: the stream is live; now go away
        self.tally.events["cancelled_by_close"] += 1
        self.tally.ok()

    async def cancel_by_notification(self, session_id: str, version: str) -> None:
        request_id = self.next_id()
        async with contextlib.AsyncExitStack() as stack:
            response = await self.open_long_sleep(legacy_headers(session_id, version), request_id, stack)
            cancel = notification("notifications/cancelled", {"requestId": request_id, "reason": "soak"})
            answer = await self.post(cancel, legacy_headers(session_id, version))
            if answer.status_code != 202:
                raise self.fail(
                    "wrong_answer", f"notifications/cancelled: HTTP {answer.status_code} {answer.text[:200]}"
                )
            try:
                with trio.fail_after(STREAM_END_TIMEOUT):
                    await response.aread()  # to the end of the chunked body: a cut stream raises
            except trio.TooSlowError:
                raise self.fail(
                    "cancel_not_honoured", f"stream of cancelled {request_id} still open after {STREAM_END_TIMEOUT} s"
                ) from None
            except httpx.HTTPError as exc:
                raise self.fail("truncated_stream", f"stream of cancelled {request_id} cut: {exc!r}") from None
            if response.text and not response.text.endswith("\n\n"):
                raise self.fail("truncated_stream", f"SSE body ends mid-event: {response.text[-200:]!r}")
            for event in parse_sse(response.text):
                message = event.message if event.data else None
                if message is not None and jsonrpc_problem(message):
                    raise self.fail("malformed_answer", jsonrpc_problem(message) or "")
                if isinstance(message, dict) and message.get("id") == request_id and "method" not in message:
                    raise self.fail(
                        "answered_after_cancel", f"{request_id} was answered after cancel: {message!r:.200}"
                    )
        self.tally.events["cancelled_by_notification"] += 1
        self.tally.ok()
