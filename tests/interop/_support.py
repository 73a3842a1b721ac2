"""Shared pieces of the interop tests: the official MCP Python SDK (``mcp`` 2.3.0) as the client,
``mcptrio serve --plugins everything`` in a real subprocess as the server.

The SDK is built on anyio, so it runs as-is on the Trio loop pytest-trio gives each test; nothing
here needs asyncio.  Three things are recorded so the tests can assert on the wire, not only on
what the SDK chose to surface:

- ``WireTap`` wraps any SDK ``Transport`` and records every JSON-RPC message in both directions;
- ``HttpLog`` is an ``httpx2`` client with event hooks that records every HTTP exchange
  (method, headers, status) of the SDK's Streamable HTTP transport;
- ``Answers`` holds the SDK client callbacks (sampling, elicitation, roots) and what they were
  asked, with the ``request_id`` the SDK handed them: a JSON-RPC id for a legacy server→client
  request, the ``inputRequests`` key for a 2026-07-28 multi round-trip.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx2
import mcp_types as types
import trio
from mcp.client.session import ClientRequestContext
from mcp.shared.message import SessionMessage

SERVE = [sys.executable, "-m", "mcptrio.cli", "serve", "--plugins", "everything"]
LEGACY = "2025-11-25"
MODERN = "2026-07-28"

STATIC_TEXT = "This is the content of the static text resource."
SAMPLED_TEXT = "Paris is the capital of France."
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
PROGRESS_STEPS = [
    (0.0, 100.0, "Completed step 0 of 100"),
    (50.0, 100.0, "Completed step 50 of 100"),
    (100.0, 100.0, "Completed step 100 of 100"),
]

EXPECTED_TOOLS = {
    "test_simple_text",
    "test_image_content",
    "test_error_handling",
    "test_tool_with_progress",
    "test_sampling",
    "test_elicitation",
    "test_input_required_result_elicitation",
    "test_input_required_result_multiple_inputs",
    "test_custom_header",
}
EXPECTED_PROMPTS = {
    "test_simple_prompt",
    "test_prompt_with_arguments",
    "test_prompt_with_embedded_resource",
    "test_prompt_with_image",
    "test_input_required_result_prompt",
}


# -- client callbacks -----------------------------------------------------------------------------


@dataclass
class Asked:
    kind: str  # "sampling", "elicitation" or "roots"
    request_id: Any
    params: dict[str, Any] | None


@dataclass
class Answers:
    """SDK client callbacks with canned answers; ``asked`` records every call in order."""

    elicit_action: str = "accept"
    elicit_content: dict[str, Any] = field(
        default_factory=lambda: {
            "username": "alice",
            "email": "alice@example.org",
            "name": "Alice",
            "color": "teal",
            "ok": True,
            "value": "v1",
            "context": "quarterly report",
        }
    )
    asked: list[Asked] = field(default_factory=list)

    def of(self, kind: str) -> list[Asked]:
        return [a for a in self.asked if a.kind == kind]

    async def sampling(
        self, ctx: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        self.asked.append(Asked("sampling", ctx.request_id, _dump(params)))
        return types.CreateMessageResult(
            role="assistant",
            model="interop-test-model",
            stop_reason="endTurn",
            content=types.TextContent(type="text", text=SAMPLED_TEXT),
        )

    async def elicitation(self, ctx: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.asked.append(Asked("elicitation", ctx.request_id, _dump(params)))
        if self.elicit_action != "accept":
            return types.ElicitResult(action=self.elicit_action)  # type: ignore[arg-type]
        # Answer the fields the form asks for, as a user filling it in would.
        requested = getattr(params, "requested_schema", None) or {}
        fields = requested.get("properties", {})
        return types.ElicitResult(
            action="accept", content={k: v for k, v in self.elicit_content.items() if k in fields}
        )

    async def roots(self, ctx: ClientRequestContext) -> types.ListRootsResult:
        self.asked.append(Asked("roots", ctx.request_id, None))
        return types.ListRootsResult(roots=[types.Root(uri="file:///srv/project", name="project")])

    def callbacks(self) -> dict[str, Any]:
        """Keyword arguments for ``mcp.Client``."""
        return {
            "sampling_callback": self.sampling,
            "elicitation_callback": self.elicitation,
            "list_roots_callback": self.roots,
        }


def _dump(model: Any) -> dict[str, Any]:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


# -- JSON-RPC wire tap ------------------------------------------------------------------------------


class _TapRead:
    def __init__(self, inner: Any, log: list[tuple[str, Any]]) -> None:
        self._inner, self._log = inner, log

    @property
    def last_context(self) -> Any:  # the SDK dispatcher reads the sender's context from here
        return getattr(self._inner, "last_context", None)

    def _record(self, item: Any) -> Any:
        self._log.append(("in", _dump(item.message) if isinstance(item, SessionMessage) else item))
        return item

    async def receive(self) -> Any:
        return self._record(await self._inner.receive())

    def __aiter__(self) -> _TapRead:
        return self

    async def __anext__(self) -> Any:
        return self._record(await self._inner.__anext__())

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _TapRead:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._inner.__aexit__(*exc)


class _TapWrite:
    def __init__(self, inner: Any, log: list[tuple[str, Any]]) -> None:
        self._inner, self._log = inner, log

    async def send(self, item: SessionMessage) -> None:
        self._log.append(("out", _dump(item.message)))
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _TapWrite:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._inner.__aexit__(*exc)


class WireTap:
    """An SDK ``Transport`` that records the JSON-RPC messages of the one it wraps."""

    def __init__(self, transport: Any) -> None:
        self.transport = transport
        self.log: list[tuple[str, Any]] = []

    async def __aenter__(self) -> tuple[_TapRead, _TapWrite]:
        read, write = await self.transport.__aenter__()
        return _TapRead(read, self.log), _TapWrite(write, self.log)

    async def __aexit__(self, *exc: Any) -> Any:
        return await self.transport.__aexit__(*exc)

    # what was sent (by the SDK client) and received (from the server)
    def sent(self) -> list[dict[str, Any]]:
        return [m for d, m in self.log if d == "out"]

    def received(self) -> list[dict[str, Any]]:
        return [m for d, m in self.log if d == "in" and isinstance(m, dict)]

    def requests(self, method: str) -> list[dict[str, Any]]:
        """Client→server requests of ``method``."""
        return [m for m in self.sent() if m.get("method") == method and "id" in m]

    def server_requests(self) -> list[dict[str, Any]]:
        """Server→client requests (legacy era only)."""
        return [m for m in self.received() if "method" in m and "id" in m]

    def notifications(self, method: str) -> list[dict[str, Any]]:
        return [m for m in self.received() if m.get("method") == method and "id" not in m]

    def response_to(self, request: dict[str, Any]) -> dict[str, Any]:
        answers = [m for m in self.received() if "method" not in m and m.get("id") == request["id"]]
        assert len(answers) == 1, f"{len(answers)} responses to {request}"
        return answers[0]


# -- HTTP recorder ------------------------------------------------------------------------------------


@dataclass
class Exchange:
    method: str
    request_headers: dict[str, str]
    body: bytes
    status: int
    response_headers: dict[str, str]


class HttpLog:
    """Every HTTP exchange the SDK's Streamable HTTP transport makes through ``client``."""

    def __init__(self) -> None:
        self.exchanges: list[Exchange] = []
        self.client = httpx2.AsyncClient(
            timeout=httpx2.Timeout(20.0, read=60.0), event_hooks={"response": [self._on_response]}
        )

    async def _on_response(self, response: httpx2.Response) -> None:
        request = response.request
        body = request.content if request.method == "POST" else b""
        self.exchanges.append(
            Exchange(
                request.method,
                {k.lower(): v for k, v in request.headers.items()},
                body,
                response.status_code,
                {k.lower(): v for k, v in response.headers.items()},
            )
        )

    def of(self, method: str) -> list[Exchange]:
        return [e for e in self.exchanges if e.method == method]


# -- the server under test, over HTTP -------------------------------------------------------------------


@dataclass
class HttpServer:
    url: str
    process: trio.Process
    stderr: bytearray


@contextlib.asynccontextmanager
async def serve_http(
    http_server: str = "builtin",
    startup_timeout: float = 20.0,
    shutdown_timeout: float = 10.0,
    *,
    plugins: str = "everything",
    env: dict[str, str] | None = None,
    args: Sequence[str] = (),
) -> AsyncIterator[HttpServer]:
    """``mcptrio serve --plugins everything --transport http --http-server …`` (or other ``plugins``,
    with ``env`` and more ``args``) on a free loopback port.

    ``--port 0`` lets the kernel pick the free port, so no other process can take it between the
    pick and the bind; the server announces the URL it listens on once it is bound, and a TCP
    connect confirms it.  At the end the server gets SIGTERM (its graceful shutdown) and then a
    kill if it has not exited within ``shutdown_timeout``; the last of its stderr is printed so a
    failing test shows it.
    """
    process = await trio.lowlevel.open_process(
        [
            *SERVE[:-1],
            plugins,
            "--transport",
            "http",
            "--http-server",
            http_server,
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            *args,
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    stderr = bytearray()
    announced = trio.Event()

    async def drain() -> None:
        assert process.stderr is not None
        while chunk := await process.stderr.receive_some(65536):
            stderr.extend(chunk)
            if b"serving" in stderr:
                announced.set()
        announced.set()  # exited before announcing: the wait below sees no URL

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(drain)
            with trio.fail_after(startup_timeout):
                await announced.wait()
                match = re.search(rb"serving \S+ at (http://127\.0\.0\.1:(\d+)/mcp)", stderr)
                assert match, f"the server did not announce its URL: {stderr.decode(errors='replace')}"
                stream = await trio.open_tcp_stream("127.0.0.1", int(match[2]))
                await stream.aclose()
            yield HttpServer(match[1].decode(), process, stderr)
            process.terminate()
            with trio.move_on_after(shutdown_timeout):
                await process.wait()
            nursery.cancel_scope.cancel()
    finally:
        if process.returncode is None:
            process.kill()
            with trio.move_on_after(5):
                await process.wait()
        if stderr:
            print("--- server stderr (last 4000 bytes) ---\n" + stderr[-4000:].decode(errors="replace"))


def text_of(result: Any) -> str:
    """The text of the first content block of a CallToolResult / the first message of a prompt."""
    if isinstance(result, types.GetPromptResult):
        content = result.messages[0].content
    else:
        content = result.content[0]
    assert isinstance(content, types.TextContent), content
    return content.text
