"""Raw HTTP helpers for the HTTP transport tests, over the real HTTP server on 127.0.0.1.

* ``http_server`` / ``ws_server``: run ``serve_http`` / ``serve_websocket`` for the duration of a block
  (shut down through their ``shutdown_trigger``, bounded in time);
* ``SseReader`` / ``parse_sse``: a tiny Server-Sent Events parser (``id``, ``event``, ``retry``,
  ``data``; comment lines skipped), streamed with ``aiter_lines`` or over a whole body;
* legacy helpers (``initialize``, ``legacy_headers``) and modern ones (``modern``: the ``_meta``
  envelope plus the ``Mcp-Method`` / ``Mcp-Name`` / ``MCP-Protocol-Version`` headers).
"""

from __future__ import annotations

import base64
import contextlib
import functools
import json
from collections.abc import AsyncIterator
from typing import Any

import attrs
import httpx
import trio

from mcptrio import App, SessionLimits
from mcptrio.transports.http import HttpConfig, TlsSettings, serve_http
from mcptrio.transports.websocket import serve_websocket

LEGACY = "2025-11-25"
MODERN = "2026-07-28"
ACCEPT = "application/json, text/event-stream"
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
CLIENT_INFO = {"name": "http-tests", "version": "1.0.0"}

SERVER_STOP_TIMEOUT = 15.0  # every server started here must be gone within this long after its block


# -- servers ---------------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def http_server(
    app: App,
    *,
    config: HttpConfig | None = None,
    limits: SessionLimits | None = None,
    state: str | None = None,
    server: str = "builtin",
    tls: TlsSettings | None = None,
) -> AsyncIterator[str]:
    """``serve_http`` on 127.0.0.1 with a free port (on ``server``: builtin or hypercorn); yields the endpoint URL."""
    async with _served(serve_http, app, config=config, limits=limits, state=state, http_server=server, tls=tls) as url:
        yield url


@contextlib.asynccontextmanager
async def ws_server(
    app: App, *, config: HttpConfig | None = None, limits: SessionLimits | None = None
) -> AsyncIterator[str]:
    """``serve_websocket`` on 127.0.0.1 with a free port; yields the ``ws://`` URL."""
    async with _served(serve_websocket, app, config=config, limits=limits) as url:
        yield url


@contextlib.asynccontextmanager
async def _served(serve: Any, app: App, **kwargs: Any) -> AsyncIterator[str]:
    stop = trio.Event()
    with trio.CancelScope() as outer:
        async with trio.open_nursery() as nursery:
            with trio.fail_after(10):
                url = await nursery.start(
                    functools.partial(serve, app, host="127.0.0.1", port=0, shutdown_trigger=stop.wait, **kwargs)
                )
            try:
                yield url
            finally:
                stop.set()
                outer.deadline = trio.current_time() + SERVER_STOP_TIMEOUT
    if outer.cancelled_caught:
        raise AssertionError(f"{serve.__name__} did not return within {SERVER_STOP_TIMEOUT} s of its trigger")


async def start_lifespan(nursery: trio.Nursery, asgi: Any) -> trio.MemorySendChannel[dict[str, Any]]:
    """Run an ASGI app's lifespan in ``nursery`` as a server would; returns once startup completed.
    Send ``{"type": "lifespan.shutdown"}`` on the returned channel to end it."""
    to_app, from_server = trio.open_memory_channel[dict[str, Any]](1)
    started = trio.Event()

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "lifespan.startup.complete":
            started.set()

    nursery.start_soon(asgi, {"type": "lifespan"}, from_server.receive, send)
    await to_app.send({"type": "lifespan.startup"})
    await started.wait()
    return to_app


def new_client(**kwargs: Any) -> httpx.AsyncClient:
    """An httpx client that never looks at proxy settings (loopback only) and never waits long."""
    kwargs.setdefault("timeout", httpx.Timeout(10.0))
    return httpx.AsyncClient(trust_env=False, **kwargs)


# -- SSE ---------------------------------------------------------------------------------------------


@attrs.define
class SseEvent:
    id: str | None = None
    event: str | None = None
    retry: int | None = None
    data: str | None = None  # None: no data field at all; "" : an empty data field (priming)

    @property
    def message(self) -> Any:
        """The JSON-RPC message this event carries, or None for a data-less (priming) event."""
        return json.loads(self.data) if self.data else None


class _SseParser:
    def __init__(self) -> None:
        self.current = SseEvent()
        self.seen = False

    def feed(self, line: str) -> SseEvent | None:
        if line == "":
            if not self.seen:
                return None
            done, self.current, self.seen = self.current, SseEvent(), False
            return done
        if line.startswith(":"):
            return None  # comment (keep-alive probe)
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        self.seen = True
        if name == "data":
            self.current.data = value if self.current.data is None else self.current.data + "\n" + value
        elif name == "id":
            self.current.id = value
        elif name == "event":
            self.current.event = value
        elif name == "retry" and value.isdigit():
            self.current.retry = int(value)
        return None


def parse_sse(text: str) -> list[SseEvent]:
    """Every complete event of a whole SSE body."""
    parser = _SseParser()
    out = []
    for line in text.splitlines():
        event = parser.feed(line)
        if event is not None:
            out.append(event)
    return out


class SseReader:
    """Events of a streamed response (``client.stream(...)``), one at a time."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self._lines = response.aiter_lines()
        self._parser = _SseParser()
        self.events: list[SseEvent] = []  # every event read so far
        self.ended = False

    async def next(self) -> SseEvent | None:
        """The next event, or None when the server ended the response."""
        if self.ended:
            return None
        while True:
            try:
                line = await self._lines.__anext__()
            except (StopAsyncIteration, httpx.RemoteProtocolError, httpx.ReadError):
                self.ended = True
                return None
            event = self._parser.feed(line)
            if event is not None:
                self.events.append(event)
                return event

    async def next_message(self) -> Any:
        """The next JSON-RPC message (data-less events skipped), or None at the end."""
        while True:
            event = await self.next()
            if event is None:
                return None
            if event.data:
                return event.message

    async def until_response(self, request_id: Any) -> list[Any]:
        """Messages up to and including the response to ``request_id`` (asserts it comes)."""
        out = []
        while True:
            message = await self.next_message()
            assert message is not None, f"stream ended before the response to {request_id!r}; got {out}"
            out.append(message)
            if message.get("id") == request_id and "method" not in message:
                return out

    async def rest(self) -> list[SseEvent]:
        """Every remaining event until the server ends the response."""
        out = []
        while (event := await self.next()) is not None:
            out.append(event)
        return out


def is_sse(response: httpx.Response) -> bool:
    return response.headers.get("content-type", "").split(";")[0].strip() == "text/event-stream"


def messages_of(response: httpx.Response) -> list[Any]:
    """The JSON-RPC messages of a fully read response: a JSON body or an SSE body."""
    if is_sse(response):
        return [event.message for event in parse_sse(response.text) if event.data]
    if not response.content:
        return []
    return [response.json()]


def final_of(response: httpx.Response, request_id: Any = None) -> dict[str, Any]:
    """The one response message of a fully read POST (the last message, checked to be a response)."""
    messages = messages_of(response)
    assert messages, f"no message in HTTP {response.status_code} response: {response.text!r}"
    final = messages[-1]
    assert "method" not in final, f"last message is not a response: {final}"
    if request_id is not None:
        assert final.get("id") == request_id, final
    return final


# -- requests ------------------------------------------------------------------------------------------


def rpc(method: str, params: dict[str, Any] | None = None, id: Any = 1) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def notification(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message


def call_tool(
    name: str, arguments: dict[str, Any] | None = None, id: Any = 1, progress_token: Any = None
) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
    if progress_token is not None:
        params["_meta"] = {"progressToken": progress_token}
    return rpc("tools/call", params, id)


def legacy_headers(session_id: str | None = None, version: str | None = LEGACY, **extra: str) -> dict[str, str]:
    headers = {"accept": ACCEPT, "content-type": "application/json"}
    if session_id is not None:
        headers["mcp-session-id"] = session_id
    if version is not None:
        headers["mcp-protocol-version"] = version
    headers.update(extra)
    return headers


def resume_headers(session_id: str, last_event_id: str) -> dict[str, str]:
    """A legacy session's GET resuming a stream after ``last_event_id``."""
    return {
        "accept": "text/event-stream",
        "mcp-session-id": session_id,
        "mcp-protocol-version": LEGACY,
        "last-event-id": last_event_id,
    }


async def initialize(
    client: httpx.AsyncClient, url: str, *, version: str = LEGACY, capabilities: dict[str, Any] | None = None
) -> str:
    """The legacy handshake (initialize, then notifications/initialized); returns the session id."""
    params = {"protocolVersion": version, "capabilities": capabilities or {}, "clientInfo": CLIENT_INFO}
    response = await client.post(url, json=rpc("initialize", params, "init"), headers=legacy_headers(version=None))
    assert response.status_code == 200, (response.status_code, response.text)
    final = final_of(response, "init")
    assert final["result"]["protocolVersion"] == version, final
    session_id = response.headers.get("mcp-session-id")
    assert session_id, f"initialize answered without Mcp-Session-Id: {response.headers}"
    done = await client.post(
        url, json=notification("notifications/initialized"), headers=legacy_headers(session_id, version)
    )
    assert done.status_code == 202, (done.status_code, done.text)
    return session_id


def sentinel(value: str) -> str:
    """The ``=?base64?…?=`` header encoding of a value."""
    return "=?base64?" + base64.b64encode(value.encode("utf-8")).decode("ascii") + "?="


def modern(
    method: str,
    params: dict[str, Any] | None = None,
    id: Any = 1,
    *,
    capabilities: dict[str, Any] | None = None,
    version: str = MODERN,
    meta: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    omit: tuple[str, ...] = (),
) -> tuple[dict[str, Any], dict[str, str]]:
    """(body, headers) of a 2026-07-28 request: the ``_meta`` envelope and the mirrored headers.

    ``headers`` overrides or adds headers; ``omit`` drops mirrored ones (lower-case names).
    """
    params = dict(params or {})
    envelope = {META_VERSION: version, META_CAPABILITIES: capabilities or {}, META_CLIENT_INFO: CLIENT_INFO}
    envelope.update(meta or {})
    params["_meta"] = {**envelope, **params.get("_meta", {})}
    body = rpc(method, params, id)
    out = {"accept": ACCEPT, "content-type": "application/json", "mcp-protocol-version": version, "mcp-method": method}
    name_field = {
        "tools/call": "name",
        "prompts/get": "name",
        "resources/read": "uri",
        "tasks/get": "taskId",
        "tasks/update": "taskId",
        "tasks/cancel": "taskId",
    }.get(method)
    if name_field is not None and isinstance(params.get(name_field), str):
        out["mcp-name"] = params[name_field]
    for key in omit:
        out.pop(key, None)
    out.update(headers or {})
    return body, out


def modern_tool(
    name: str, arguments: dict[str, Any] | None = None, id: Any = 1, *, progress_token: Any = None, **kwargs: Any
) -> tuple[dict[str, Any], dict[str, str]]:
    params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
    if progress_token is not None:
        params["_meta"] = {"progressToken": progress_token}
    return modern("tools/call", params, id, **kwargs)


def text_of(final: dict[str, Any]) -> str:
    """The text of a tools/call result's first content block."""
    assert "result" in final, final
    return final["result"]["content"][0]["text"]


async def wait_until(predicate: Any, timeout: float, what: str) -> None:
    """Poll ``predicate()`` every 20 ms until true; fail after ``timeout`` seconds."""
    with trio.move_on_after(timeout):
        while not predicate():
            await trio.sleep(0.02)
        return
    raise AssertionError(f"not within {timeout} s: {what}")
