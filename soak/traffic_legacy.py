"""Legacy-session traffic: initialize (each legacy revision), echo, sleep, tools/list, batches,
cancels, standalone stream, DELETE."""

from __future__ import annotations

import httpx
import trio
from client_base import random_text
from limits import LEGACY_VERSIONS, STREAM_END_TIMEOUT
from traffic_cancel import CancelTraffic

from tests.transports.http.client import CLIENT_INFO, is_sse, legacy_headers, notification, rpc


class LegacyTraffic(CancelTraffic):
    """The legacy session scenario, and the session steps the other scenarios reuse."""

    async def initialize(self, version: str) -> str:
        params = {"protocolVersion": version, "capabilities": {}, "clientInfo": CLIENT_INFO}
        request_id = self.next_id()
        response = await self.post(rpc("initialize", params, request_id), legacy_headers(version=None))
        result = self.result(response, request_id)
        session_id = response.headers.get("mcp-session-id")
        if result.get("protocolVersion") != version or not session_id:
            raise self.fail("wrong_answer", f"initialize {version}: {result!r:.300}, session id {session_id!r}")
        self.sessions.add(session_id)
        self.tally.ok()
        done = await self.post(notification("notifications/initialized"), legacy_headers(session_id, version))
        if done.status_code != 202:
            raise self.fail("wrong_answer", f"notifications/initialized: HTTP {done.status_code} {done.text[:200]}")
        self.tally.ok()
        return session_id

    async def delete(self, session_id: str, version: str | None = None) -> None:
        self.count("DELETE")
        response = await self.client.delete(self.url, headers=legacy_headers(session_id, version))
        self.check_common(response)
        if response.status_code != 200:
            raise self.fail("wrong_answer", f"DELETE: HTTP {response.status_code} {response.text[:200]}")
        self.sessions.discard(session_id)
        self.tally.ok()
        # The session is gone: a request naming it gets 404.
        request_id = self.next_id()
        gone = await self.post(rpc("ping", None, request_id), legacy_headers(session_id, version))
        if gone.status_code != 404:
            raise self.fail("wrong_answer", f"request after DELETE: HTTP {gone.status_code} {gone.text[:200]}")
        self.tally.expect("deleted_session_404")

    async def legacy_echo(self, session_id: str, version: str) -> None:
        text = random_text(self.rng)
        request_id = self.next_id()
        body = rpc("tools/call", {"name": "echo", "arguments": {"text": text}}, request_id)
        response = await self.post(body, legacy_headers(session_id, version))
        self.check_text(self.result(response, request_id), text, "legacy echo")

    async def legacy_sleep(self, session_id: str, version: str) -> None:
        ms = self.rng.choice((1, 20, 100, 300))
        request_id = self.next_id()
        self.tally.events["sleeps_sent"] += 1
        body = rpc("tools/call", {"name": "sleep", "arguments": {"ms": ms}}, request_id)
        response = await self.post(body, legacy_headers(session_id, version))
        self.check_text(self.result(response, request_id), f"slept {ms} ms", "legacy sleep")
        self.tally.events["sleeps_answered"] += 1

    async def legacy_batch(self, session_id: str, version: str) -> None:
        texts = [random_text(self.rng)[:100] for _ in range(3)]
        ids = [self.next_id() for _ in texts]
        batch = [rpc("tools/call", {"name": "echo", "arguments": {"text": t}}, i) for t, i in zip(texts, ids)]
        batch.append(notification("notifications/progress", {"progressToken": "x", "progress": 1}))
        response = await self.post(batch, legacy_headers(session_id, version))
        found = self.messages(response)
        if response.status_code != 200 or not found or not isinstance(found[-1], list):
            raise self.fail("wrong_answer", f"batch: HTTP {response.status_code} {response.text[:300]}")
        answers = {m.get("id"): m for m in found[-1]}
        if set(answers) != set(ids):
            raise self.fail("wrong_answer", f"batch answered ids {sorted(map(str, answers))}, sent {ids}")
        for text, request_id in zip(texts, ids):
            self.check_text(answers[request_id].get("result") or {}, text, "batch echo")

    async def standalone_stream_then_delete(self, session_id: str, version: str) -> None:
        """GET the session's stream, DELETE the session: the stream must end."""
        self.count("GET stream")
        headers = {"accept": "text/event-stream", "mcp-session-id": session_id, "mcp-protocol-version": version}
        async with self.client.stream("GET", self.url, headers=headers) as response:
            if response.status_code != 200 or not is_sse(response):
                await response.aread()
                self.check_common(response)
                raise self.fail("wrong_answer", f"GET stream: HTTP {response.status_code} {response.text[:200]}")
            await self.delete(session_id, version)
            try:
                with trio.fail_after(STREAM_END_TIMEOUT):
                    async for _chunk in response.aiter_raw():
                        pass
            except trio.TooSlowError:
                raise self.fail(
                    "stream_not_ended", f"GET stream still open {STREAM_END_TIMEOUT} s after DELETE"
                ) from None
            except httpx.HTTPError:
                pass  # the server closed the connection: ended too
        self.tally.ok()

    async def legacy_session(self) -> None:
        version = self.rng.choice(LEGACY_VERSIONS)
        session_id = await self.initialize(version)
        steps = [self.legacy_echo] * 4 + [self.legacy_sleep] * 2 + [self.tools_list_legacy]
        for _ in range(self.rng.randint(2, 8)):
            await self.rng.choice(steps)(session_id, version)
        if version == "2025-03-26":
            await self.legacy_batch(session_id, version)
        roll = self.rng.random()
        if roll < 0.35:
            await self.cancel_by_closing(legacy_headers(session_id, version))
        elif roll < 0.7:
            await self.cancel_by_notification(session_id, version)
        await self.legacy_echo(session_id, version)  # the session lives on after a cancel
        roll = self.rng.random()
        if roll < 0.15:
            await self.standalone_stream_then_delete(session_id, version)
        elif roll < 0.25:
            self.tally.events["sessions_left_open"] += 1  # deleted by the clean-up after the phase
        else:
            await self.delete(session_id, version)

    async def tools_list_legacy(self, session_id: str, version: str) -> None:
        request_id = self.next_id()
        response = await self.post(rpc("tools/list", {}, request_id), legacy_headers(session_id, version))
        names = {tool.get("name") for tool in self.result(response, request_id).get("tools", [])}
        if not {"echo", "sleep", "sleep_stats"} <= names:
            raise self.fail("wrong_answer", f"tools/list: {sorted(map(str, names))}")
        self.tally.ok()
