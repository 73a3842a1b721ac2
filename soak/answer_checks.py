"""The checking of answers: what every answer must be (no 5xx, no traceback, complete, well-formed
JSON-RPC), and the expected ones."""

from __future__ import annotations

import collections
from typing import Any

import httpx
from limits import TRACEBACK_MARKERS
from tally import Failed, Tally

from tests.transports.http.client import is_sse, parse_sse


def has_traceback(text: str) -> bool:
    return any(marker in text for marker in TRACEBACK_MARKERS)


def jsonrpc_problem(message: Any) -> str | None:
    """Why ``message`` is not a well-formed JSON-RPC message from a server, or None."""
    if not isinstance(message, dict):
        return f"not a JSON object: {message!r:.200}"
    if message.get("jsonrpc") != "2.0":
        return f'"jsonrpc" is not "2.0": {message!r:.200}'
    if "method" in message:
        return None if isinstance(message["method"], str) else f"bad method: {message!r:.200}"
    if "id" not in message:
        return f"response without id: {message!r:.200}"
    if ("result" in message) == ("error" in message):
        return f"response needs exactly one of result/error: {message!r:.200}"
    if "error" in message:
        error = message["error"]
        if not (
            isinstance(error, dict) and isinstance(error.get("code"), int) and isinstance(error.get("message"), str)
        ):
            return f"malformed error object: {message!r:.200}"
    return None


class AnswerChecks:
    """A simulated client's checks: a failed one is tallied with the client's last requests and raises Failed."""

    tally: Tally
    scenario: str
    trail: collections.deque[str]  # the last requests, for reports

    def fail(self, kind: str, detail: str) -> Failed:
        self.report(kind, detail)
        return Failed()

    def report(self, kind: str, detail: str) -> None:
        self.tally.bad(kind, self.scenario, f"{detail} [requests so far: {' > '.join(self.trail)}]")

    def check_common(self, response: httpx.Response) -> None:
        text = response.text
        if response.status_code >= 500:
            raise self.fail("http_5xx", f"HTTP {response.status_code}: {text[:300]}")
        if has_traceback(text):
            raise self.fail("traceback_in_body", text[:600])

    def messages(self, response: httpx.Response) -> list[Any]:
        """The JSON-RPC messages of a whole response, each checked to be complete and well-formed."""
        try:
            if is_sse(response):
                if response.text and not response.text.endswith("\n\n"):
                    raise self.fail(
                        "truncated_stream", f"SSE body does not end with a blank line: {response.text[-200:]!r}"
                    )
                found = [event.message for event in parse_sse(response.text) if event.data]
            elif response.content:
                found = [response.json()]
            else:
                found = []
        except ValueError as exc:
            raise self.fail(
                "malformed_answer", f"HTTP {response.status_code}: {exc}: {response.text[:300]!r}"
            ) from None
        for message in found:
            if isinstance(message, list):
                problems = [p for p in map(jsonrpc_problem, message) if p]
            else:
                problems = [p for p in [jsonrpc_problem(message)] if p]
            if problems:
                raise self.fail("malformed_answer", problems[0])
        return found

    def final(self, response: httpx.Response, request_id: Any, *, status: int = 200) -> dict[str, Any]:
        """The answer to ``request_id``: the last message, a response with that id."""
        if response.status_code != status:
            raise self.fail(
                "wrong_answer", f"expected HTTP {status}, got {response.status_code}: {response.text[:300]}"
            )
        found = self.messages(response)
        if not found or not isinstance(found[-1], dict) or "method" in found[-1] or found[-1].get("id") != request_id:
            raise self.fail("wrong_answer", f"no response to {request_id!r} in {response.text[:300]!r}")
        return found[-1]

    def result(self, response: httpx.Response, request_id: Any) -> dict[str, Any]:
        message = self.final(response, request_id)
        if "result" not in message:
            raise self.fail("wrong_answer", f"error answer to {request_id!r}: {message}")
        return message["result"]

    def check_text(self, result: dict[str, Any], expected: str, what: str, *, modern_era: bool = False) -> None:
        try:
            text = result["content"][0]["text"]
        except (KeyError, IndexError, TypeError):
            raise self.fail("wrong_answer", f"{what}: no text content in {result!r:.300}") from None
        if text != expected or result.get("isError"):
            raise self.fail("wrong_answer", f"{what}: expected {expected[:80]!r}, got {text[:80]!r} ({result!r:.200})")
        if modern_era and result.get("resultType") != "complete":
            raise self.fail("wrong_answer", f"{what}: modern result without resultType complete: {result!r:.300}")
        self.tally.ok()

    async def expect_error(
        self,
        case: str,
        response: httpx.Response,
        statuses: tuple[int, ...],
        code: int | None,
        *,
        text: str | None = None,
        json_body: bool = True,
        request_id: Any = None,
    ) -> None:
        """Bad input must get one of ``statuses`` and (when JSON) a well-formed JSON-RPC error."""
        if response.status_code not in statuses:
            raise self.fail(
                "wrong_answer", f"{case}: expected HTTP {statuses}, got {response.status_code}: {response.text[:300]}"
            )
        if json_body:
            found = self.messages(response)
            if len(found) != 1 or not isinstance(found[0], dict) or "error" not in found[0]:
                raise self.fail("wrong_answer", f"{case}: expected one JSON-RPC error, got {response.text[:300]}")
            error = found[0]["error"]
            if code is not None and error["code"] != code:
                raise self.fail("wrong_answer", f"{case}: expected code {code}, got {error}")
            if found[0].get("id") != request_id:
                raise self.fail("wrong_answer", f"{case}: expected id {request_id!r}, got {found[0].get('id')!r}")
            if text is not None and text not in error["message"]:
                raise self.fail("wrong_answer", f"{case}: expected {text!r} in {error['message']!r}")
        self.tally.expect(case)
