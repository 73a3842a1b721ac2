"""The MCP endpoint as an ASGI application: both eras on one path.

A POST whose body carries ``_meta["io.modelcontextprotocol/protocolVersion"]`` (or whose
``MCP-Protocol-Version`` header names a modern revision) is served statelessly; ``initialize``
opens a legacy session (``Mcp-Session-Id``); other requests belong to the session they name.
Security checks (Host, Origin, body size) come before anything else.

A 2026-07-28 POST is a ``StatelessCall``: what the runtime needs to run its request (protocol
state for this one message, a dispatcher), with its messages going to the POST's own response;
there is nothing to keep after it, so no session id, no event log, no standalone stream.

The body is read here, bounded in size and in time, with no timed wait for a body already in.

A 2026-07-28 request's metadata headers, ``Mcp-Method``, ``Mcp-Name`` and ``Mcp-Param-*``, are
checked against its body here too (``basic/transports/streamable-http.mdx``, "Server
Validation"), by pure functions.  Which param each method's ``Mcp-Name`` and ``Mcp-Param-*``
mirror: ``protocol/methods.py``.
"""

from __future__ import annotations

import base64
import binascii
import functools
import logging
import math
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import orjson
import trio

from ...app.http_request import HttpRequest
from ...auth.errors import AuthError
from ...auth.principal import client_key
from ...protocol import errors
from ...protocol.errors import McpError
from ...protocol.events import Dispatch, IncomingRequest, RequestId, Route
from ...protocol.methods import METHODS
from ...protocol.session import declares_modern, error_message
from ...protocol.versions import MODERN_VERSIONS, SUPPORTED_VERSIONS
from ...runtime.core import SHUTDOWN, SessionCore
from ...runtime.limits import SessionLimits
from ...state import StateUnavailable
from ..net import authorization, front_door
from ..net.config import HttpConfig
from ..net.front_door import Capacity
from ..net.refusal import HttpError, retry_later
from . import health
from .exchange import JSON_HEADERS, Exchange, Sink, Watch, Watchers, accepts
from .legacy import shared_sessions
from .legacy.routes import SessionRoutes
from .legacy.sessions import HttpSession, SessionTable
from .legacy.sse_transport import LegacySseEndpoints
from .parked import ParkedStreams
from .server.asgi_io import Receive, Send

if TYPE_CHECKING:
    from ...app import App
    from ...auth.gate import Gate
    from .event_log import EventLog

log = logging.getLogger("mcptrio.http")


class StatelessCall(SessionCore):
    """One 2026-07-28 POST (a request, or a client's answer) with no session behind it: messages go to
    the request's route, and a message for no request has nowhere to go."""

    transport = "http"
    log: EventLog | None = None  # (a stateless response is never resumed)
    parking: ParkedStreams | None = None  # where its listen stream may be parked (parked.py)

    def __init__(self, app: App, limits: SessionLimits, client_address: str | None) -> None:
        super().__init__(app, limits)
        self.client_address = client_address

    async def send(self, message: dict[str, Any] | list[Any], route: Route | None = None) -> None:
        if route is not None:
            await route.deliver(message)

    def post(self, message: dict[str, Any], route: Route | None = None) -> None:
        if route is not None:
            route.post(message)

    def park(self, request: IncomingRequest, on_end: Callable[[], None]) -> Route | None:
        route = request.route
        if self.parking is None or not isinstance(route, Exchange) or route.slot is None:
            return None
        closing = self.dispatcher.closing_message(request)
        expires = authorization.expiry_deadline(request.principal)
        return self.parking.park(route, route.slot, closing, expires, on_end)


class McpHttpApp(SessionRoutes):
    """ASGI app serving an App's MCP endpoint; serve_http runs it on either server of
    ``transports/http/server``, and any ASGI server can run it too."""

    def __init__(self, app: App, config: HttpConfig | None = None, limits: SessionLimits | None = None) -> None:
        self.app = app
        self.config = config or HttpConfig()
        self.limits = limits or app.limits
        self.sessions = SessionTable(self.config)
        self._proxies = self.config.proxy_networks
        self.watchers = Watchers(self.config)
        self.parked: ParkedStreams | None = None  # set once the lifespan runs (the built-in server parks)
        self.active: set[HttpSession | StatelessCall] = set()  # with requests in flight
        self.capacity = Capacity(self.config.max_requests, self.config.max_streams, self.config.max_streams_per_client)
        self.shutting_down = False
        self._shutdown = trio.Event()
        # The POST's watcher arms its requests' deadlines (exchange.py), unless they come before it can.
        self._arm_deadlines_at_once = self.limits.request_timeout <= 2 * self.config.watch_after
        self._alive_path = _route(self.config.health_path)
        self._ready_path = _route(self.config.ready_path)
        self.gate: Gate | None = None  # token checks, once the endpoint's canonical URL is known
        if app.auth is not None and app.auth.public_url is not None:
            self.use_resource_url(app.auth.public_url)
        self.shared = app.shared  # legacy sessions shared with other processes (shared_sessions.py)
        if self.shared is not None:
            self.shared.subscribe(self._on_fanout)
        self.legacy_sse = (
            LegacySseEndpoints(app, self.limits, self.config.path, self.config.keepalive_interval)
            if self.config.legacy_sse
            else None
        )

    @property
    def requests_in_flight(self) -> int:
        """Requests whose handlers run now (listen streams are counted apart: ``capacity``)."""
        return self.capacity.working

    def use_resource_url(self, url: str) -> None:
        """With authorization on: the endpoint's canonical URL (the configured public URL, else the
        address it was bound to), which tokens must name and the metadata announces."""
        if self.app.auth is not None and self.gate is None:
            from ...auth.gate import Gate  # (a server without authorization never loads it)

            self.gate = Gate(self.app.auth, self.app.auth.public_url or url)

    # -- ASGI entry ------------------------------------------------------------------------

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        headers = dict(scope["headers"])
        sink = Sink(send)
        extensions = scope.get("extensions")
        if extensions:
            sink.receive_nowait = extensions.get("mcptrio.receive_nowait")
            sink.send_nowait = extensions.get("mcptrio.send_nowait")
            sink.park = extensions.get("mcptrio.park")
        client = scope.get("client")
        sink.client_address = front_door.client_address(
            client[0] if client else None, headers.get(b"x-forwarded-for"), self._proxies
        )
        sink.unread_body = headers.get(b"content-length", b"0") not in (b"0", b"") or b"transfer-encoding" in headers
        try:
            method = scope["method"]
            path = scope["path"].rstrip("/")
            if path == self._alive_path or path == self._ready_path:  # before every check (health.py)
                await health.answer(
                    sink,
                    method,
                    alive=path == self._alive_path,
                    draining=self.shutting_down,
                    plugins=self.app.plugins,
                    capacity=self.capacity,
                    readiness=self.app.readiness,
                )
                return
            if self.gate is not None and path in self.gate.metadata_paths:
                await authorization.serve_metadata(self.gate, method, sink)  # open to all, whatever the Host
                return
            refused = front_door.check(headers, self.config)
            if refused is not None:
                raise HttpError(refused[0], errors.invalid_request(refused[1]))
            legacy_sse = self.legacy_sse is not None and path in (
                self.legacy_sse.sse_path,
                self.legacy_sse.messages_path,
            )
            if not legacy_sse and path != self.config.path.rstrip("/"):
                await sink.respond(404, b"Not Found", [(b"content-type", b"text/plain")])
                return
            if self.app.auth is not None:
                if self.gate is None:
                    raise RuntimeError("authorization is on but the endpoint's URL is unknown: set public_url")
                sink.principal = await authorization.admit(self.gate, headers, scope.get("query_string", b""), sink)
                if sink.principal is None:
                    return
            if legacy_sse:
                await self._legacy_sse(scope, path, headers, receive, sink)
                return
            if method == "POST":
                sink.request_headers = headers  # (ctx.http's, made if a request is dispatched)
                sink.owner_sends_final = True  # (a GET's sink may carry a resumed POST's answer: not there)
                await self._post(headers, receive, sink)
            elif method == "GET":
                await self._get(headers, receive, sink)
            elif method == "DELETE":
                await self._delete(headers, sink)
            else:
                await sink.respond(405, b"Method Not Allowed", [(b"allow", b"GET, POST, DELETE")])
        except HttpError as exc:
            if not sink.started:
                await self._refuse(exc, sink)
        except AuthError as exc:  # a scope the token lacks, found once the body was read
            assert self.gate is not None
            await authorization.refuse(self.gate, exc, sink)
        except StateUnavailable:
            if not sink.started:
                await self._refuse(shared_sessions.unavailable(), sink)
        except Exception:
            log.exception("the HTTP request failed inside mcptrio")
            if not sink.started:
                body = orjson.dumps(error_message(None, errors.internal_error()))
                await sink.respond(500, body, JSON_HEADERS)
        await sink.send_final()

    @staticmethod
    async def _refuse(exc: HttpError, sink: Sink) -> None:
        await sink.respond(exc.status, exc.body(), JSON_HEADERS + exc.headers)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        """The endpoint's long-lived task: it runs the watchers' supervisor (exchange.py), the parked
        streams' watch (parked.py) and the sweep of idle legacy sessions."""
        async with trio.open_nursery() as nursery:
            await nursery.start(self.watchers.run)
            self.parked = ParkedStreams(self.capacity, self.watchers)
            nursery.start_soon(self.parked.run)
            nursery.start_soon(self.expire_idle_sessions)
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await self.shutdown()
                    await send({"type": "lifespan.shutdown.complete"})
                    nursery.cancel_scope.cancel()
                    return

    async def _legacy_sse(
        self, scope: dict[str, Any], path: str, headers: dict[bytes, bytes], receive: Receive, sink: Sink
    ) -> None:
        """The 2024-11-05 HTTP+SSE transport: GET the stream, POST messages to its endpoint."""
        endpoints = self.legacy_sse
        assert endpoints is not None
        if path == endpoints.sse_path and scope["method"] == "GET":
            if self.shutting_down:
                raise draining()
            with self.capacity.stream(client_key(sink.principal, sink.client_address), "legacy SSE stream"):
                await endpoints.get(receive, sink, self._shutdown)
        elif path == endpoints.messages_path and scope["method"] == "POST":
            stream = endpoints.stream_for(scope.get("query_string", b""))
            if stream is None or not authorization.owns(stream.binding, sink.principal):
                raise HttpError(404, errors.invalid_request("Session not found: open the SSE stream first"))
            body = await self._read_body(headers, receive, sink)
            await stream.inbox_send.send(body)
            await sink.respond(202, b"Accepted", [(b"content-type", b"text/plain")])
        else:
            allowed = b"GET" if path == endpoints.sse_path else b"POST"
            await sink.respond(405, b"Method Not Allowed", [(b"allow", allowed)])

    # -- POST ------------------------------------------------------------------------------

    async def _read_body(self, headers: dict[bytes, bytes], receive: Receive, sink: Sink) -> bytes:
        """The whole request body, at most ``max_message_size`` bytes (413), arriving within
        ``body_timeout`` s (408); a body already in is read without a timed wait."""
        limit, timeout = self.limits.max_message_size, self.config.body_timeout
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise too_large(limit)  # refused before reading a byte of it
        chunks, size = [], 0
        deadline = None  # set at the first wait: a body already here needs none
        nowait = sink.receive_nowait  # (the servers' scope extension: what has arrived, without waiting)
        while True:
            message = None
            if nowait is not None:
                message = nowait()
                if message is None:
                    # A server may start the app before it has queued the body (hypercorn does, about
                    # every other POST): one trip through the scheduler lets it, and costs less than
                    # the timed wait below with its cancel scope and deadline.
                    await trio.lowlevel.checkpoint()
                    message = nowait()
            if message is None:
                if deadline is None:
                    deadline = trio.current_time() + timeout
                with trio.move_on_at(deadline) as waited:
                    message = await receive()
                if waited.cancelled_caught:
                    raise HttpError(
                        408, errors.invalid_request(f"Request Timeout: the body did not arrive within {timeout:g} s")
                    )
                assert message is not None  # (received: the scope was not cancelled)
            if message["type"] == "http.disconnect":
                raise HttpError(400, errors.invalid_request("client went away before sending the whole body"))
            body = message.get("body", b"")
            size += len(body)
            if size > limit:
                raise too_large(limit)
            chunks.append(body)
            if not message.get("more_body", False):
                sink.body_read = True
                return b"".join(chunks)

    async def _post(self, headers: dict[bytes, bytes], receive: Receive, sink: Sink) -> None:
        content_type = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
        if content_type != b"application/json":
            raise HttpError(
                415, errors.invalid_request("Unsupported Media Type: Content-Type must be application/json")
            )
        if not accepts(headers, b"application/json", b"text/event-stream"):
            raise HttpError(
                406, errors.invalid_request("Not Acceptable: Accept must list application/json and text/event-stream")
            )
        body = await self._read_body(headers, receive, sink)
        try:
            value = orjson.loads(body)
        except orjson.JSONDecodeError:
            raise HttpError(400, McpError(errors.PARSE_ERROR, "parse error: invalid JSON")) from None
        if self.shutting_down and _has_requests(value):
            # Draining: no new work (a client's answers and notifications still come in, so the
            # requests in flight can finish).  Retryable: another instance will take it.
            raise draining(value.get("id") if isinstance(value, dict) else None)
        header_version = headers.get(b"mcp-protocol-version", b"").decode("latin-1")
        if declares_modern(value) or (header_version in MODERN_VERSIONS and b"mcp-session-id" not in headers):
            await self._modern_post(headers, value, receive, sink)
        else:
            await self._legacy_post(headers, header_version, value, receive, sink)

    async def _modern_post(self, headers: dict[bytes, bytes], value: Any, receive: Receive, sink: Sink) -> None:
        request_id = value.get("id") if isinstance(value, dict) else None
        param_mismatch: McpError | None = None
        if isinstance(value, dict) and "method" in value and "id" in value:
            params = value.get("params")
            called = params.get("name") if value.get("method") == "tools/call" and isinstance(params, dict) else None
            header_params = self.app.header_params(called)
            try:
                check_headers(headers, value, header_params)
            except McpError as err:
                if not (header_params and self.app.visibility.active and _fits_unknown_tool(headers, value)):
                    raise HttpError(400, err, request_id) from None
                # The tool's own Mcp-Param-* headers do not match, and it may be hidden from this
                # caller: answered as that tool's mismatch (400) only once the app has found it
                # there for the caller, else as an unknown tool, so hiding leaks nothing.
                param_mismatch = err
        call = StatelessCall(self.app, self.limits, sink.client_address)
        call.parking = self.parked
        await self._exchange(call, value, receive, sink, era="modern", headers=[], param_mismatch=param_mismatch)

    async def _legacy_post(
        self, headers: dict[bytes, bytes], header_version: str, value: Any, receive: Receive, sink: Sink
    ) -> None:
        self._expire_unswept()
        session_id = headers.get(b"mcp-session-id")
        request_id = value.get("id") if isinstance(value, dict) else None
        if not self.config.legacy_sessions:
            raise HttpError(
                400,
                errors.invalid_request(
                    "Bad Request: this server speaks only the stateless 2026-07-28 protocol (no initialize, no "
                    "sessions): send the _meta protocol version and the MCP-Protocol-Version header"
                ),
                request_id,
            )
        if isinstance(value, dict) and value.get("method") == "initialize" and session_id is None:
            await self._initialize(value, receive, sink)
            return
        if session_id is None:
            raise HttpError(400, errors.invalid_request("Bad Request: Mcp-Session-Id header is required"), request_id)
        session = await self._find_session(session_id.decode("latin-1"), sink.principal, request_id)
        if header_version and header_version not in SUPPORTED_VERSIONS:
            raise HttpError(
                400, errors.invalid_request(f"Unsupported MCP-Protocol-Version: {header_version[:40]!r}"), request_id
            )
        version = session.protocol.legacy_version or ""
        if self.shared is not None:
            for message in shared_sessions.relay_targets(session, value):
                await self.shared.publish(message)
                log.debug("relayed a %s of session %s… to the worker holding its request", message.KIND, session_id[:6])
        try:
            await self._exchange(
                session,
                value,
                receive,
                sink,
                era="legacy",
                headers=self._session_headers(session),
                priming=version >= "2025-11-25",
            )
        finally:
            self.sessions.touch(session)  # idle time counts from the end of the last request
            if self.shared is not None:
                await self._save_changes(session)

    async def _initialize(self, value: Any, receive: Receive, sink: Sink) -> None:
        if len(self.sessions) >= self.config.max_sessions:
            raise retry_later("too many sessions; retry later", value.get("id"), 5)
        session = HttpSession(self.app, self.limits, self.config, self.sessions.new_id(), self.shared)
        session.client_address = sink.client_address
        session.binding = sink.principal.binding if sink.principal is not None else None
        self.sessions.add(session)  # findable before the client can read the answer and come back
        self.app.open_session(session)
        try:
            await self._exchange(
                session,
                value,
                receive,
                sink,
                era="legacy",
                headers=self._session_headers(session),
                before_answer=functools.partial(self._opened, session),
            )
        except BaseException:
            if session.protocol.state == "new" or not sink.started:
                self._end_session(session)
            raise
        if session.protocol.state == "new":  # initialize failed: no session after all
            self._end_session(session)

    async def _opened(self, session: HttpSession) -> None:
        """initialize succeeded: the event log, and (shared state) the record every worker finds."""
        if session.protocol.state == "new" or session.log is not None:
            return
        session.enable_streams(session.protocol.legacy_version or "")
        if self.shared is not None:
            assert session.session_id is not None
            session.record = shared_sessions.record_of(session)
            await self.shared.save_session(session.session_id, session.record, self.config.session_idle_timeout)
            session.verified_at = trio.current_time()

    @staticmethod
    def _session_headers(session: HttpSession) -> list[tuple[bytes, bytes]]:
        assert session.session_id is not None
        return [(b"mcp-session-id", session.session_id.encode())]

    async def _exchange(
        self,
        core: HttpSession | StatelessCall,
        value: Any,
        receive: Receive,
        sink: Sink,
        *,
        era: str,
        headers: list[tuple[bytes, bytes]],
        priming: bool = False,
        before_answer: Callable[[], Awaitable[None]] | None = None,
        param_mismatch: McpError | None = None,
    ) -> None:
        """Feed one POST body to a session and answer on this HTTP response."""
        exchange = Exchange(
            sink, self.config, era=era, headers=headers, log=core.log, priming=priming, error_status=True
        )
        if isinstance(core, HttpSession) and core.log is not None:
            exchange.on_stream = core.track  # findable for Last-Event-ID once it has event ids
        requests: list[IncomingRequest] = []
        events = core.protocol.receive_value(value)
        if before_answer is not None:
            await before_answer()
        http: HttpRequest | None = None
        for event in events:
            if isinstance(event, Dispatch):
                if http is None:
                    http = HttpRequest(sink.request_headers, sink.client_address, sink.principal, param_mismatch)
                event.request.route = exchange
                event.request.http = http
                requests.append(event.request)
            else:
                await core.handle_event(event, exchange)
        if requests and sink.principal is not None:
            assert self.gate is not None
            try:
                authorization.check_scopes(self.gate, self.app.scopes.needed, sink.principal, requests)
            except AuthError:
                for request in requests:
                    core.protocol.finished(request.id)
                raise
        if len(requests) == 1:
            exchange.request_id = requests[0].id  # (named in a shared event log: shared_sessions.py)
        exchange.error_status = False  # from here on, errors come from handlers: 200 with the error
        if not requests:
            if not exchange.done:
                exchange.done = True  # a notification or a client's answer: nothing will follow
                await sink.respond(202, b"", headers)
            return
        # A listen stream only waits: it takes a stream slot, not one of max_requests (front_door.py).
        listen_key = (
            client_key(sink.principal, sink.client_address) if len(requests) == 1 and requests[0].spec.stream else None
        )
        try:
            if listen_key is not None:
                self.capacity.open_stream(listen_key, requests[0].method, requests[0].id)
            else:
                self.capacity.start_work(len(requests), requests[0].id)
        except HttpError:
            for request in requests:
                core.protocol.finished(request.id)
            raise
        self.active.add(core)
        exchange.slot = listen_key
        watch = Watch(receive, core, requests, exchange, sink, trio.current_time())
        try:
            if self.config.response_mode == "sse":
                await exchange.open_stream()
            if self.watchers.nursery is not None:  # the supervisor runs (in the lifespan task)
                exchange.nursery = self.watchers.nursery
                self.watchers.add(watch)
                await self._work_all(core, requests, exchange)
            else:
                async with trio.open_nursery() as nursery:
                    exchange.nursery = nursery
                    nursery.start_soon(self.watchers.watch, watch)
                    await self._work_all(core, requests, exchange)
                    nursery.cancel_scope.cancel()
        finally:
            self.watchers.discard(watch)
            if listen_key is None:
                self.capacity.end_work(len(requests))
            elif not exchange.parked:  # (a parked stream holds its slot until it ends: parked.py)
                self.capacity.close_stream(listen_key)
            self.active.discard(core)
            exchange.release()

    async def _work_all(
        self, core: HttpSession | StatelessCall, requests: list[IncomingRequest], exchange: Exchange
    ) -> None:
        arm_now = self._arm_deadlines_at_once
        if len(requests) == 1:
            await self._work(core, requests[0], arm_now)  # the usual case: in the POST's own task
        else:
            async with trio.open_nursery() as workers:  # a JSON-RPC batch (2025-03-26)
                for request in requests:
                    workers.start_soon(self._work, core, request, arm_now)
        if not exchange.done:
            await exchange.finish()

    @staticmethod
    async def _work(core: HttpSession | StatelessCall, request: IncomingRequest, arm_now: bool) -> None:
        if request.spec.stream and (expires := authorization.expiry_deadline(request.principal)) < math.inf:
            # A listen stream lasts until its token expires, then closes as at shutdown (with its
            # closing result): the client opens a new one with a fresh token.
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_close_at, expires, core, request.id)
                if not await core.dispatcher.run(request, arm_deadline=arm_now):
                    await core.refuse_busy(request)
                nursery.cancel_scope.cancel()
        elif not await core.dispatcher.run(request, arm_deadline=arm_now):
            await core.refuse_busy(request)

    # -- shutdown -------------------------------------------------------------------------

    def shutdown_trigger(self, trigger: Callable[[], Awaitable[object]]) -> Callable[[], Awaitable[None]]:
        """Wrap your hypercorn ``shutdown_trigger`` so in-flight requests drain before hypercorn
        stops (hypercorn sends ``lifespan.shutdown`` only after every connection has closed)."""

        async def drained() -> None:
            await trigger()
            await self.shutdown()

        return drained

    async def shutdown(self) -> None:
        """Refuse new requests, end standalone streams, drain in-flight requests (grace, then cancel)."""
        if self.shutting_down:
            return
        self.shutting_down = True
        self._shutdown.set()
        if self.parked is not None:
            self.parked.close_all()
        async with trio.open_nursery() as nursery:
            for core in list(self.active):
                nursery.start_soon(core.dispatcher.drain, self.limits.shutdown_grace)


def _fits_unknown_tool(headers: dict[bytes, bytes], value: Any) -> bool:
    """Whether the request's headers pass as they would for a tool that does not exist."""
    try:
        check_headers(headers, value, None)
    except McpError:
        return False
    return True


def _route(path: str | None) -> str | None:
    """A configured path as ``__call__`` compares it (no trailing slash)."""
    return None if path is None else path.rstrip("/")


def _has_requests(value: Any) -> bool:
    """Does a POST body hold a request (not only answers to the server and notifications)?"""
    items = value if isinstance(value, list) else [value]
    return any(isinstance(item, dict) and "method" in item and "id" in item for item in items)


def draining(request_id: RequestId | None = None) -> HttpError:
    return retry_later("the server is draining: retry (another instance will answer)", request_id)


async def _close_at(deadline: float, core: HttpSession | StatelessCall, request_id: RequestId) -> None:
    await trio.sleep_until(deadline)
    core.dispatcher.cancel(request_id, SHUTDOWN)


def too_large(limit: int) -> HttpError:
    return HttpError(413, errors.invalid_request(f"request body exceeds the limit of {limit} bytes"))


# -- the 2026-07-28 request-metadata headers -------------------------------------------------------

_SENTINEL_HEAD, _SENTINEL_TAIL = "=?base64?", "?="
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f]")  # control characters other than tab


def decode_value(raw: bytes) -> str:
    """A header value, with the ``=?base64?…?=`` sentinel decoded."""
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        raise mismatch("header value is not ASCII") from None
    if text.startswith(_SENTINEL_HEAD) and text.endswith(_SENTINEL_TAIL) and len(text) >= 11:
        try:
            return base64.b64decode(text[len(_SENTINEL_HEAD) : -len(_SENTINEL_TAIL)], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            raise mismatch("header value has an invalid base64 encoding") from None
    if _CONTROL.search(text):
        raise mismatch("header value contains control characters")
    return text


def mismatch(detail: str) -> McpError:
    return McpError(errors.HEADER_MISMATCH, f"Header mismatch: {detail}")


def check_headers(
    headers: dict[bytes, bytes], message: dict[str, Any], header_params: list[tuple[str, tuple[str, ...]]] | None
) -> None:
    """Raise a -32020 McpError unless the mirrored headers match the request body;
    ``header_params``: the called tool's mirrored arguments (``ToolSignature.header_params``)."""
    method = message.get("method")
    params = given if isinstance(given := message.get("params"), dict) else {}
    meta = given if isinstance(given := params.get("_meta"), dict) else {}
    body_version = meta.get("io.modelcontextprotocol/protocolVersion")
    header_version = headers.get(b"mcp-protocol-version")
    if header_version is None:
        raise mismatch("MCP-Protocol-Version header is required")
    if body_version is not None and header_version.decode("latin-1") != body_version:
        raise mismatch(
            f"MCP-Protocol-Version header value {header_version.decode('latin-1')!r} does not "
            f"match body value {body_version!r}"
        )
    header_method = headers.get(b"mcp-method")
    if header_method is None:
        raise mismatch("Mcp-Method header is required")
    if decode_value(header_method) != method:
        raise mismatch(
            f"Mcp-Method header value {header_method.decode('latin-1')!r} does not match body value {method!r}"
        )
    spec = METHODS.get(method)  # (a str: it matched Mcp-Method)
    if spec is None:
        return
    if spec.mcp_name is not None:
        header_name = headers.get(b"mcp-name")
        if header_name is None:
            raise mismatch("Mcp-Name header is required for " + str(method))
        if decode_value(header_name) != params.get(spec.mcp_name):
            raise mismatch(f"Mcp-Name header value does not match body value {params.get(spec.mcp_name)!r}")
    if spec.mcp_params is not None and header_params:
        _check_params(headers, params.get(spec.mcp_params), header_params)


def _check_params(
    headers: dict[bytes, bytes], arguments: Any, header_params: list[tuple[str, tuple[str, ...]]]
) -> None:
    for name, path in header_params:
        value: Any = arguments
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        raw = headers.get(b"mcp-param-" + name.lower().encode("latin-1"))
        if value is None:
            continue  # the client must omit it; a stray header is tolerated
        if raw is None:
            raise mismatch(f"Mcp-Param-{name} header is required: argument {'.'.join(path)!r} is present")
        if decode_value(raw) != _as_header_text(value):
            if not _numerically_equal(decode_value(raw), value):
                raise mismatch(f"Mcp-Param-{name} header value does not match argument {'.'.join(path)!r}")


def _as_header_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _numerically_equal(text: str, value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return float(text) == float(value)
    except ValueError:
        return False
