"""The client's end of a Streamable HTTP endpoint, as a stream of messages (both eras).

Every message the client sends is POSTed.  The server's answer to a request — one JSON body, or
an event stream carrying progress, logs, server→client requests and then the response — comes
out of ``receive()`` in order; a request whose caller waits (``exchange``) is POSTed from the
caller's task, and its JSON answer goes from there to the reader's router (``route``).  A legacy
session's id (from the ``initialize`` answer) and its negotiated version go on every later
request, and ``open_stream()`` opens its GET stream (what the server sends outside any request: a
task's questions and progress, change notifications).
A 2026-07-28 request gets its ``Mcp-Method`` / ``Mcp-Name`` / ``Mcp-Param-*`` headers from its
body (``basic/transports/streamable-http.mdx``, and the tasks extension's routing headers), from
the params ``protocol/methods.py`` names for its method.
``abort(request_id)`` closes that request's response: in the 2026-07-28 era that is how a client
cancels.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import logging
import re
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

import orjson
import trio

from ..protocol.methods import METHODS
from ..protocol.session import META_VERSION
from .sse import EventStream
from .tls import failure_reason, is_tls_failure

ACCEPT = "application/json, text/event-stream"
_PLAIN = re.compile(r"[\x20-\x7e]*")  # visible ASCII and space: a header value as it is
_SENTINEL = re.compile(r"=\?base64\?.*\?=", re.DOTALL)

Mirrored = list[tuple[str, tuple[str, ...]]]  # (Mcp-Param-* name, the argument's path)
MAX_IDLE_RESUMES = 3
RETRY_AFTER = 0.5  # seconds before a request whose connection could not be made is tried again
log = logging.getLogger("mcptrio.client")


class StreamEnded(ConnectionError):
    """A request's event stream ended without its answer, and could not be resumed."""


def failure_answer(exc: Exception, stream: EventStream, not_sent: tuple[type[Exception], ...]) -> dict[str, Any]:
    """The JSON-RPC error a request gets when its HTTP exchange failed: ``data.mayHaveRun`` says
    whether the server may have run it (the request was sent and no answer came back; ``not_sent``:
    the transport's errors saying it was not)."""
    from .oauth.errors import AuthorizationError

    if isinstance(exc, AuthorizationError):
        return {"code": -32000, "message": str(exc), "data": {"authorization": True}}
    sent = not isinstance(exc, not_sent) or stream.last_id is not None
    message = str(exc) if isinstance(exc, StreamEnded) else f"HTTP request failed: {failure_reason(exc)}"
    return {"code": -32000, "message": message, "data": {"transport": True, "mayHaveRun": sent}}


def header_value(value: Any) -> str:
    """A value as the spec writes it in ``Mcp-Name`` / ``Mcp-Param-*``: plain when it is safe,
    else ``=?base64?…?=`` (non-ASCII, control characters, edge whitespace, or the sentinel)."""
    text = ("true" if value else "false") if isinstance(value, bool) else str(value)
    if _PLAIN.fullmatch(text) and text == text.strip(" ") and not _SENTINEL.fullmatch(text):
        return text
    return "=?base64?" + base64.b64encode(text.encode()).decode("ascii") + "?="


# A session names the same few tools, prompts and resources again and again.
name_header_value = functools.lru_cache(maxsize=512)(header_value)


def mirrored_params(schema: Any, path: tuple[str, ...] = ()) -> Mirrored:
    """The ``x-mcp-header`` annotations of a tool's input schema: each header name with the path
    of the argument a 2026-07-28 HTTP ``tools/call`` mirrors in ``Mcp-Param-{name}``."""
    found: Mirrored = []
    properties = schema.get("properties") if isinstance(schema, dict) else None
    for key, prop in (properties or {}).items():
        if isinstance(prop, dict):
            if isinstance(prop.get("x-mcp-header"), str):
                found.append((prop["x-mcp-header"], path + (key,)))
            found.extend(mirrored_params(prop, path + (key,)))
    return found


class Transport(Protocol):
    """What ``HttpEnd`` sends its requests with: the lean ``http11.Pool``, or httpx (``HttpxTransport``)."""

    refused: type[Exception]  # no connection could be made: the request may be tried again
    not_sent: tuple[type[Exception], ...]  # the request was not sent (refused, or no connection in time)
    failed: type[Exception]  # any failure of the exchange

    async def open(self, method: str, url: str, *, content: bytes = b"", headers: dict[str, str]) -> Any:
        """The response, once its head came; its body streams (``aread``, ``aiter_lines``, ``aclose``)."""

    async def request(self, method: str, url: str, *, content: bytes = b"", headers: dict[str, str]) -> Any:
        """The response with its body read (``status_code``, ``text``)."""


class HttpxTransport:
    """An ``httpx.AsyncClient`` as a ``Transport``: for requests an ``httpx.Auth`` (OAuth) takes part in."""

    def __init__(self, client: Any) -> None:
        import httpx

        self.client = client
        self.refused: type[Exception] = httpx.ConnectError
        self.not_sent: tuple[type[Exception], ...] = (httpx.ConnectError, httpx.ConnectTimeout)
        self.failed: type[Exception] = httpx.TransportError

    async def open(self, method: str, url: str, *, content: bytes = b"", headers: dict[str, str]) -> Any:
        request = self.client.build_request(method, url, content=content or None, headers=headers)
        return await self.client.send(request, stream=True)

    async def request(self, method: str, url: str, *, content: bytes = b"", headers: dict[str, str]) -> Any:
        return await self.client.request(method, url, content=content or None, headers=headers)


class HttpEnd:
    def __init__(self, url: str, http: Transport, nursery: trio.Nursery, headers: dict[str, str] | None = None) -> None:
        self.url = url
        self.http = http
        self.nursery = nursery
        self.headers = dict(headers or {})
        self.session_id: str | None = None
        self.version: str | None = None  # the legacy session's negotiated version
        self._initialize_id: Any = None
        self.mirrored: dict[str, Mirrored] = {}  # tool name -> its Mcp-Param-* arguments (Client fills it)
        self._in, self._out = trio.open_memory_channel[bytes](1000)
        self._open: dict[Any, trio.CancelScope] = {}
        self._stream = trio.CancelScope()  # the legacy session's GET stream
        self.listening = False
        # Where an answer taken in its caller's task (``exchange``) goes at once: the reader's router
        # (``RawClient.run`` sets it while it runs); None: through ``receive()`` like the others.
        self.route: Callable[[Any], None] | None = None

    async def send(self, frame: bytes) -> None:
        message = orjson.loads(frame)
        headers = self._headers(message)
        if isinstance(message, dict) and "method" in message and "id" in message:
            self.nursery.start_soon(self._exchange, frame, headers, message["id"], self._opening(message))
            return
        response = await self._post_once_more(frame, headers)
        if response.status_code not in (200, 202):
            raise ConnectionError(
                f"HTTP {response.status_code} for a {message.get('method', 'response')}: {response.text[:200]}"
            )

    async def exchange(self, message: dict[str, Any], frame: bytes) -> None:
        """Send a request (``message``, as ``frame``) from the task that waits for its answer, and take
        the answer there: a JSON body goes to ``route`` at once, with no task for the exchange and no
        hop through the reader; an event stream (progress, the server's requests) is read on in a task
        of its own, as ``send``'s requests are.  Cancelling the caller closes the response."""
        await self._exchange(frame, self._headers(message), message["id"], self._opening(message), direct=True)

    def _opening(self, message: dict[str, Any]) -> trio.CancelScope:
        """The cancel scope of a request's exchange, where ``abort()`` finds it before the POST starts."""
        if message["method"] == "initialize":
            self._initialize_id = message["id"]
        scope = self._open[message["id"]] = trio.CancelScope()
        return scope

    def _headers(self, message: Any) -> dict[str, str]:
        headers = {"content-type": "application/json", "accept": ACCEPT, **self.headers}
        if self.session_id is not None:
            headers["mcp-session-id"] = self.session_id
        params: Any = message.get("params") if isinstance(message, dict) else None
        meta = params.get("_meta") if isinstance(params, dict) else None
        if isinstance(meta, dict) and META_VERSION in meta:
            method = message.get("method")
            headers["mcp-protocol-version"] = meta[META_VERSION]
            headers["mcp-method"] = method
            spec = METHODS.get(method) if isinstance(method, str) else None
            name = params.get(spec.mcp_name) if spec is not None and spec.mcp_name is not None else None
            if isinstance(name, str):
                headers["mcp-name"] = name_header_value(name)
                mirrored = self.mirrored.get(name)
                if mirrored and spec is not None and spec.mcp_params is not None:
                    headers.update(self._param_headers(mirrored, params.get(spec.mcp_params)))
        elif self.version is not None:
            headers["mcp-protocol-version"] = self.version
        return headers

    @staticmethod
    def _param_headers(mirrored: Mirrored, arguments: Any) -> dict[str, str]:
        headers = {}
        for header, path in mirrored:
            value = arguments
            for key in path:
                value = value.get(key) if isinstance(value, dict) else None
            if value is not None and not isinstance(value, (dict, list)):  # (absent or null: omitted)
                headers[f"mcp-param-{header.lower()}"] = header_value(value)
        return headers

    async def _exchange(
        self,
        frame: bytes,
        headers: dict[str, str],
        request_id: Any,
        scope: trio.CancelScope,
        *,
        direct: bool = False,
        opened: Any = None,
    ) -> None:
        """POST a request (``opened``: its response, already come) and hand on its answer.  ``direct``
        (the caller's task): a JSON answer or error goes straight to ``route``, and an event stream is
        read on by a task of its own, given the open response."""
        stream = EventStream()
        handed = False
        try:
            with scope:
                try:
                    response = opened if opened is not None else await self._post(frame, headers)
                    try:
                        if request_id == self._initialize_id and "mcp-session-id" in response.headers:
                            self.session_id = response.headers["mcp-session-id"]
                        kind = response.headers.get("content-type", "")
                        if kind.startswith("text/event-stream"):
                            if direct:  # (a scope is entered once: the task has one of its own)
                                reading = self._open[request_id] = trio.CancelScope()
                                self.nursery.start_soon(
                                    functools.partial(
                                        self._exchange, frame, headers, request_id, reading, opened=response
                                    )
                                )
                                handed = True
                                return
                            if await self._events(response, stream, request_id):
                                return
                        elif response.status_code == 202:
                            return
                        elif response.status_code == 200:
                            await self._deliver(await response.aread(), response.status_code, direct=direct)
                            return
                        else:  # refused before any handler ran: the error answers this request, id or not
                            await self._refused(
                                request_id,
                                response.status_code,
                                await response.aread(),
                                session=headers.get("mcp-session-id"),
                                direct=direct,
                            )
                            return
                    finally:
                        if not handed:
                            await response.aclose()
                except self.http.failed:
                    if stream.last_id is None:
                        raise
                # the event stream ended (or broke) before the answer: a legacy one is resumed
                await self._resume(stream, request_id, resumable="mcp-method" not in headers)
        except Exception as exc:  # the connection (or getting a token for it) failed: an error answer
            await self._out_send(
                {"jsonrpc": "2.0", "id": request_id, "error": failure_answer(exc, stream, self.http.not_sent)},
                direct=direct,
            )
        finally:
            if not handed:
                self._open.pop(request_id, None)

    async def _post(self, frame: bytes, headers: dict[str, str]) -> Any:
        """POST a request; its response, once its head came (the caller closes it).  A connection that
        could not be made (refused, reset before the request went out) cannot have run it: it is tried
        once more after RETRY_AFTER seconds, whatever the method.  A failed TLS handshake is not (it
        would fail the same way)."""
        for attempt in range(2):
            try:
                return await self.http.open("POST", self.url, content=frame, headers=headers)
            except self.http.refused as exc:
                if attempt or is_tls_failure(exc):
                    raise
                log.info("%s: %s; trying once more in %g s", self.url, failure_reason(exc), RETRY_AFTER)
                await trio.sleep(RETRY_AFTER)
        raise AssertionError("unreachable")

    async def _post_once_more(self, frame: bytes, headers: dict[str, str]) -> Any:
        """POST a notification or a response, again once if the connection failed under it (a kept-
        alive connection the server had just closed); a second failure is a ConnectionError."""
        for attempt in range(2):
            try:
                return await self.http.request("POST", self.url, content=frame, headers=headers)
            except self.http.failed as exc:
                if attempt:
                    raise ConnectionError(f"HTTP request failed: {failure_reason(exc)}") from exc
        raise AssertionError("unreachable")

    def _get_headers(self, last_event_id: str | None) -> dict[str, str]:
        headers = {"accept": "text/event-stream", **self.headers}
        if self.session_id is not None:
            headers["mcp-session-id"] = self.session_id
        if self.version is not None:
            headers["mcp-protocol-version"] = self.version
        if last_event_id is not None:
            headers["last-event-id"] = last_event_id
        return headers

    @contextlib.asynccontextmanager
    async def _get(self, last_event_id: str | None) -> AsyncIterator[Any]:
        """The session's stream (from ``last_event_id``), its response closed after."""
        response = await self.http.open("GET", self.url, headers=self._get_headers(last_event_id))
        try:
            yield response
        finally:
            await response.aclose()

    async def _resume(self, stream: EventStream, request_id: Any, *, resumable: bool) -> None:
        """GET the stream again from its last event id, after the server's ``retry``, until the
        answer comes (a legacy stream; the 2026-07-28 era's are not resumable).  Bounded: three
        reconnections in a row that bring nothing new end it with an error."""
        if stream.last_id is None or not resumable:
            raise StreamEnded("the server's event stream ended before the answer")
        idle = 0
        while idle < MAX_IDLE_RESUMES:
            await trio.sleep(stream.retry)
            seen = stream.last_id
            try:
                async with self._get(stream.last_id) as response:
                    if response.status_code != 200 or not response.headers.get("content-type", "").startswith(
                        "text/event-stream"
                    ):
                        await self._refused(
                            request_id,
                            response.status_code,
                            await response.aread(),
                            reached=True,
                            session=self.session_id,
                        )
                        return
                    if await self._events(response, stream, request_id):
                        return
            except self.http.failed:
                pass
            idle = 0 if stream.last_id != seen else idle + 1
        raise StreamEnded(f"the server's event stream could not be resumed ({MAX_IDLE_RESUMES} tries)")

    async def open_stream(self) -> None:
        """A legacy session: open its GET stream and return once the server has answered (a
        server without one, 405, is fine: then nothing comes outside the requests)."""
        if self.session_id is None or self.listening:
            return
        self.listening = True
        opened = trio.Event()
        self.nursery.start_soon(self._listen, opened)
        with trio.move_on_after(10):  # (a server that never answers a GET: go on without it)
            await opened.wait()

    async def _listen(self, opened: trio.Event) -> None:
        """The GET stream, resumed from its last event id when it ends (bounded like a POST's)."""
        stream = EventStream()
        idle = 0
        with self._stream:
            while idle < MAX_IDLE_RESUMES:
                seen = stream.last_id
                try:
                    async with self._get(stream.last_id) as response:
                        opened.set()
                        if response.status_code != 200 or not response.headers.get("content-type", "").startswith(
                            "text/event-stream"
                        ):
                            return
                        await self._events(response, stream, None)
                except Exception:  # the stream is a bonus: the requests work without it
                    pass
                finally:
                    opened.set()
                if stream.last_id is None:
                    return  # (no event ids: nothing to resume from)
                idle = 0 if stream.last_id != seen else idle + 1
                await trio.sleep(stream.retry)
        self.listening = False

    async def _events(self, response: Any, stream: EventStream, request_id: Any) -> bool:
        """Deliver the messages of one connection; True once the answer to ``request_id`` came."""
        async for data in stream.messages(response.aiter_lines()):
            message = await self._deliver(data.encode(), 200)
            if (
                request_id is not None
                and isinstance(message, dict)
                and message.get("id") == request_id
                and ("result" in message or "error" in message)
            ):
                return True
        return False

    async def _deliver(self, body: bytes, status: int, *, direct: bool = False) -> Any:
        try:
            message = orjson.loads(body)
        except orjson.JSONDecodeError:
            raise ConnectionError(f"HTTP {status}: not JSON: {body[:200]!r}") from None
        if isinstance(message, dict) and message.get("id") == self._initialize_id and "result" in message:
            self.version = message["result"].get("protocolVersion")
        if direct and self.route is not None:
            self.route(message)
        else:
            await self._put(body)  # (as it came: the reader decodes it)
        return message

    async def _refused(
        self,
        request_id: Any,
        status: int,
        body: bytes,
        *,
        reached: bool = False,
        session: str | None = None,
        direct: bool = False,
    ) -> None:
        try:
            message = orjson.loads(body)
            error = message["error"] if isinstance(message, dict) and isinstance(message.get("error"), dict) else None
        except orjson.JSONDecodeError:
            error = None
        if error is None:
            error = {"code": -32000, "message": f"HTTP {status}: {body[:200].decode(errors='replace')}"}
        error = {
            **error,
            "data": {
                **(data if isinstance(data := error.get("data"), dict) else {}),
                "httpStatus": status,
                "mayHaveRun": reached,
                **({"sessionId": session} if session and status == 404 else {}),
            },
        }
        await self._out_send({"jsonrpc": "2.0", "id": request_id, "error": error}, direct=direct)

    async def _out_send(self, message: Any, *, direct: bool = False) -> None:
        if direct and self.route is not None:
            self.route(message)
        else:
            await self._put(orjson.dumps(message))

    async def _put(self, frame: bytes) -> None:
        """A message for the reader (``receive``): at once when there is room (the usual case)."""
        with contextlib.suppress(trio.ClosedResourceError):  # (the end is closing: nobody reads)
            try:
                self._in.send_nowait(frame)
            except trio.WouldBlock:
                await self._in.send(frame)

    def forget_session(self) -> None:
        """The server lost the legacy session: drop its id and version (and its GET stream), so the
        next ``initialize`` starts a new one."""
        self.session_id = self.version = self._initialize_id = None
        self._stream.cancel()
        self._stream = trio.CancelScope()
        self.listening = False

    async def receive(self) -> bytes:
        return await self._out.receive()

    def abort(self, request_id: Any) -> None:
        """Close the response of this request (the 2026-07-28 way to cancel it)."""
        scope = self._open.get(request_id)
        if scope is not None:
            scope.cancel()

    async def close(self) -> None:
        """End a legacy session (DELETE) and the stream of messages."""
        if self.session_id is not None:
            headers = {"mcp-session-id": self.session_id, **self.headers}
            if self.version is not None:
                headers["mcp-protocol-version"] = self.version
            try:
                await self.http.request("DELETE", self.url, headers=headers)
            except Exception:  # the server may be gone already: nothing to end
                pass
        self._stream.cancel()
        for scope in list(self._open.values()):
            scope.cancel()
        await self._in.aclose()
