"""A legacy session's own routes on the MCP endpoint: ``GET`` its stream (or resume one by
``Last-Event-ID``) and ``DELETE`` it; and how sessions end (DELETE, idle expiry, shutdown)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import trio

from ...protocol import errors
from ...runtime.worker import CLIENT
from . import authorization
from .event_log import parse_event_id
from .exchange import Exchange, Sink
from .asgi_io import HttpError, Receive, accepts
from .sessions import HttpSession

if TYPE_CHECKING:
    from ...app import App
    from .config import HttpConfig
    from .sessions import SessionTable


class SessionRoutes:
    """GET and DELETE of legacy sessions; mixed into ``McpHttpApp``, whose state they use."""

    app: App
    config: HttpConfig
    sessions: SessionTable
    _shutdown: trio.Event
    shutting_down: bool


    def _session_for(self, headers: dict[bytes, bytes], sink: Sink) -> HttpSession:
        self._expire()
        session_id = headers.get(b"mcp-session-id")
        if session_id is None:
            raise HttpError(405, errors.invalid_request(
                "Method Not Allowed: GET and DELETE need an Mcp-Session-Id (2026-07-28 is POST only)"),
                headers=[(b"allow", b"POST")])
        session = self.sessions.get(session_id.decode("latin-1"))
        if session is None or not authorization.owns(session.binding, sink.principal):
            raise HttpError(404, errors.invalid_request("Session not found: it ended or never existed"))
        self.sessions.touch(session)
        return session

    async def _get(self, headers: dict[bytes, bytes], receive: Receive, sink: Sink) -> None:
        session = self._session_for(headers, sink)
        if self.shutting_down:  # a new stream would be cut at once: reconnect elsewhere
            raise HttpError(503, errors.unavailable("the server is draining: retry elsewhere"), None,
                            [(b"retry-after", b"1")])
        if not accepts(headers, b"text/event-stream"):
            raise HttpError(406, errors.invalid_request("Not Acceptable: Accept must list text/event-stream"))
        standalone = session.open_standalone()
        last_event = headers.get(b"last-event-id")
        position = parse_event_id(last_event.decode("latin-1")) if last_event else None
        if last_event is not None and position is None:
            raise HttpError(400, errors.invalid_request("Bad Request: malformed Last-Event-ID"))
        exchange = session.streams.get(position[0]) if position is not None else standalone
        if exchange is None:
            raise HttpError(404, errors.invalid_request("Last-Event-ID names no stream of this session"))
        if exchange is standalone and standalone.sink is not None:
            raise HttpError(409, errors.invalid_request("Conflict: the session's stream is already open"))
        try:
            async with trio.open_nursery() as nursery:
                if exchange is standalone:
                    exchange.nursery = nursery  # set before any await: nothing posted meanwhile is lost
                if position is not None:
                    await exchange.resume(sink, position[1])
                else:
                    exchange.attach(sink, nursery)
                    await exchange.open_stream()
                    await sink.flush()  # the priming event at once: this stream may stay quiet for long
                if not sink.ended:
                    nursery.start_soon(self._keepalive, exchange)
                    nursery.start_soon(self._end_stream_when, self._shutdown, sink, nursery.cancel_scope)
                    nursery.start_soon(self._end_stream_when, session.ended, sink, nursery.cancel_scope)
                    nursery.start_soon(self._end_stream_at, authorization.expiry_deadline(sink.principal), sink,
                                       nursery.cancel_scope)
                    while (await receive())["type"] != "http.disconnect":
                        pass
                nursery.cancel_scope.cancel()
        finally:
            exchange.detach(sink)
            self.sessions.touch(session)

    async def _keepalive(self, exchange: Exchange) -> None:
        while True:
            await trio.sleep(self.config.keepalive_interval)
            await exchange.probe()

    @staticmethod
    async def _end_stream_when(event: trio.Event, sink: Sink, scope: trio.CancelScope) -> None:
        """Shutdown or the session's end (DELETE, expiry) closes its open GET stream."""
        await event.wait()
        await sink.write(b"", end=True)
        scope.cancel()

    @staticmethod
    async def _end_stream_at(deadline: float, sink: Sink, scope: trio.CancelScope) -> None:
        """The token the stream was opened with expires: the client reconnects with a fresh one."""
        await trio.sleep_until(deadline)
        await sink.write(b"", end=True)
        scope.cancel()

    async def _delete(self, headers: dict[bytes, bytes], sink: Sink) -> None:
        session = self._session_for(headers, sink)
        self._end_session(session)
        await sink.respond(200, b"", [])

    def _end_session(self, session: HttpSession) -> None:
        assert session.session_id is not None
        self.sessions.remove(session.session_id)
        self._forget(session)
        session.dispatcher.cancel_all(CLIENT)

    def _expire(self) -> None:
        for session in self.sessions.expired():
            self._forget(session)

    def _forget(self, session: HttpSession) -> None:
        session.end()
        self.app.detach(session)
