"""A legacy session's own routes on the MCP endpoint: ``GET`` its stream (or resume one by
``Last-Event-ID``) and ``DELETE`` it; and how sessions end (DELETE, idle expiry, shutdown)."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import trio

from ....auth.principal import ClientKey, Principal, client_key
from ....protocol import errors
from ....protocol.events import RequestId
from ....runtime.core import CLIENT
from ....state import StateUnavailable
from ....sweeps import sweep_period
from ...net import authorization
from ...net.front_door import Capacity
from ...net.refusal import HttpError, retry_later
from ..event_log import parse_event_id
from ..exchange import Exchange, Sink, accepts
from ..parked import ParkedStreams
from ..server.asgi_io import Receive
from . import shared_sessions
from .sessions import HttpSession

if TYPE_CHECKING:
    from ....app import App
    from ....runtime.limits import SessionLimits
    from ....state.fanout import FanoutMessage
    from ....state.redis import RedisState
    from ...net.config import HttpConfig
    from .sessions import SessionTable


log = logging.getLogger("mcptrio.http")

SESSION_SWEEP = 1.0  # seconds between two looks for idle legacy sessions, at most (sweep_period)


class SessionRoutes:
    """GET and DELETE of legacy sessions; mixed into ``McpHttpApp``, whose state they use."""

    app: App
    config: HttpConfig
    limits: SessionLimits
    shared: RedisState | None
    sessions: SessionTable
    capacity: Capacity
    _shutdown: trio.Event
    shutting_down: bool
    parked: ParkedStreams | None
    _session_headers: Callable[[HttpSession], list[tuple[bytes, bytes]]]
    _sweeping = False  # idle sessions are ended by ``expire_idle_sessions`` (else by each request, first)

    async def expire_idle_sessions(self) -> None:
        """End the legacy sessions unused for ``session_idle_timeout`` as it passes, whether other
        requests come or not (their hooks run, their per-caller upstreams close).  The endpoint's
        lifespan runs it; served without one, each request ends the idle sessions first."""
        period = sweep_period([self.config.session_idle_timeout], SESSION_SWEEP)
        self._sweeping = True
        try:
            while True:
                await trio.sleep(period)
                self._expire()
        finally:
            self._sweeping = False

    def _expire_unswept(self) -> None:
        if not self._sweeping:
            self._expire()

    async def _session_for(self, headers: dict[bytes, bytes], sink: Sink) -> HttpSession:
        self._expire_unswept()
        session_id = headers.get(b"mcp-session-id")
        if session_id is None:
            raise HttpError(
                405,
                errors.invalid_request(
                    "Method Not Allowed: GET and DELETE need an Mcp-Session-Id (2026-07-28 is POST only)"
                ),
                headers=[(b"allow", b"POST")],
            )
        session = await self._find_session(session_id.decode("latin-1"), sink.principal)
        self.sessions.touch(session)
        return session

    async def _find_session(
        self, session_id: str, principal: Principal | None, request_id: RequestId | None = None
    ) -> HttpSession:
        """The session, if it exists and belongs to ``principal``; else 404 (the same either way).

        With shared state the record is read (and its expiry renewed) when it was last read more
        than ``_recheck_after`` ago: a session opened on another worker is adopted here, and one
        ended elsewhere is dropped (the fan-out tells of a DELETE at once)."""
        session = self.sessions.get(session_id)
        if (
            session is not None
            and self.shared is not None
            and trio.current_time() - session.verified_at < self._recheck_after
        ):
            pass  # checked a moment ago; changes since come through the fan-out (_on_fanout)
        elif self.shared is not None:
            try:
                record = await self.shared.load_session(session_id, self.config.session_idle_timeout)
            except StateUnavailable:
                raise shared_sessions.unavailable(request_id) from None
            if record is None or self.sessions.ended_elsewhere(session_id):
                if session is not None and self.sessions.get(session_id) is session:
                    self._drop(session)  # ended (DELETE, expiry) on another worker
                session = None  # (or ended there while its record was being read here)
            else:
                if session is None:
                    session = self._adopt(session_id, record)
                shared_sessions.restore(session, record)
                session.record = record
                session.verified_at = trio.current_time()
        if session is None or not authorization.owns(session.binding, principal):
            raise HttpError(404, errors.invalid_request("Session not found: it ended or never existed"), request_id)
        return session

    @property
    def _recheck_after(self) -> float:
        """How long a shared session's record is trusted without reading it again (and renewing it)."""
        return min(self.config.shared_session_check, self.config.session_idle_timeout / 4)

    def _adopt(self, session_id: str, record: dict[str, Any]) -> HttpSession:
        """A session another worker opened, now served here too."""
        session = HttpSession(self.app, self.limits, self.config, session_id, self.shared)
        shared_sessions.restore(session, record)
        session.enable_streams(session.protocol.legacy_version or "")
        self.sessions.add(session)
        self.app.open_session(session)
        return session

    async def _save_changes(self, session: HttpSession) -> None:
        """What a request changed in a shared session's record (log level, subscriptions, ready)."""
        assert self.shared is not None and session.session_id is not None
        fields = shared_sessions.changed_fields(session, session.record)
        if not fields:
            return
        from ....state.fanout import SessionChanged

        session.record = {**session.record, **fields}
        try:
            await self.shared.update_session(session.session_id, fields)
            await self.shared.publish(SessionChanged(session.session_id, fields))
        except StateUnavailable as exc:
            log.warning("a session change was not stored: %s", exc)

    def _on_fanout(self, message: FanoutMessage) -> None:
        """Messages from other workers about sessions held here too."""
        from ....state.fanout import ClientReplied, RequestCancelled, SessionChanged, SessionEnded, SessionMessage

        if not isinstance(message, SessionMessage):
            return
        if isinstance(message, SessionEnded):
            self.sessions.end_elsewhere(message.session, self._recheck_after)
        session = self.sessions.get(message.session)
        if session is None:
            return
        if isinstance(message, (RequestCancelled, ClientReplied)):
            shared_sessions.apply_relayed(session, message)
        elif isinstance(message, SessionEnded):
            self._drop(session)
        elif isinstance(message, SessionChanged):
            session.record = {**session.record, **message.fields}
            shared_sessions.restore(session, session.record)
            if "vis" in message.fields:  # (its stream may be carried here)
                self.app.session_switched_elsewhere(session)
        else:
            exchange = session.streams.get(message.stream)
            if exchange is not None:
                exchange.carried(message.carried)

    def _drop(self, session: HttpSession) -> None:
        """This worker lets go of a session that ended elsewhere: its requests here are cancelled."""
        assert session.session_id is not None
        self.sessions.remove(session.session_id)
        self._forget(session)
        session.dispatcher.cancel_all(CLIENT)

    async def _get(self, headers: dict[bytes, bytes], receive: Receive, sink: Sink) -> None:
        session = await self._session_for(headers, sink)
        if self.shutting_down:  # a new stream would be cut at once: reconnect elsewhere
            raise retry_later("the server is draining: retry elsewhere")
        if not accepts(headers, b"text/event-stream"):
            raise HttpError(406, errors.invalid_request("Not Acceptable: Accept must list text/event-stream"))
        # Every GET holds a stream slot (front_door.py): the session's own stream, or a request's resumed.
        key = client_key(sink.principal, sink.client_address)
        self.capacity.open_stream(key, "GET stream")
        parked = False
        try:
            parked = await self._stream(session, headers, receive, sink, key)
        finally:
            if not parked:  # (a parked stream holds its slot until it ends: parked.py)
                self.capacity.close_stream(key)

    async def _stream(
        self, session: HttpSession, headers: dict[bytes, bytes], receive: Receive, sink: Sink, key: ClientKey
    ) -> bool:
        """Write the session's GET stream, or resume one by Last-Event-ID, until the client or the
        session goes; or park the session's own stream once its priming is out (True)."""
        standalone = session.open_standalone()
        last_event = headers.get(b"last-event-id")
        position = parse_event_id(last_event.decode("latin-1")) if last_event else None
        if last_event is not None and position is None:
            raise HttpError(400, errors.invalid_request("Bad Request: malformed Last-Event-ID"))
        exchange = session.streams.get(position[0]) if position is not None else standalone
        if exchange is None and position is not None and self.shared is not None:
            if position[0] & 1:  # a request's stream that another worker writes
                await shared_sessions.resume_elsewhere(
                    self.shared, session, position[0], position[1], sink, receive, self._session_headers(session)
                )
                return False
            # The GET stream another worker carried: replay what was missed, then carry it here.
            if standalone.sink is not None:
                raise HttpError(409, errors.invalid_request("Conflict: the session's stream is already open"))
            await shared_sessions.replay(
                self.shared, session, position[0], position[1], sink, self._session_headers(session)
            )
            exchange, position = standalone, None
        if exchange is None:
            raise HttpError(404, errors.invalid_request("Last-Event-ID names no stream of this session"))
        if exchange is standalone and standalone.sink is not None:
            raise HttpError(409, errors.invalid_request("Conflict: the session's stream is already open"))
        expires = authorization.expiry_deadline(sink.principal)
        parked = False
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
                    if self.parked is not None and not sink.ended and not session.is_ended:
                        touch = functools.partial(self.sessions.touch, session)
                        parked = self.parked.park_get(session, exchange, sink, key, expires, touch)
                if not sink.ended and not parked:
                    nursery.start_soon(self._keepalive, exchange)
                    nursery.start_soon(self._end_stream_when, self._shutdown, sink, nursery.cancel_scope)
                    nursery.start_soon(self._end_stream_when, session.ended, sink, nursery.cancel_scope)
                    nursery.start_soon(self._end_stream_at, expires, sink, nursery.cancel_scope)
                    while (await receive())["type"] != "http.disconnect":
                        pass
                nursery.cancel_scope.cancel()
        finally:
            if not parked:
                exchange.detach(sink)
            self.sessions.touch(session)
        return parked

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
        """End the session, on every worker before it is answered: a request that follows the
        answer is 404 wherever it goes (a worker that has not acted on the end within the time it
        trusts a record it read gets none the less, as it reads the record again)."""
        session = await self._session_for(headers, sink)
        told = None
        if self.shared is not None:
            assert session.session_id is not None
            await self.shared.delete_session(session.session_id)
            from ....state.fanout import SessionEnded

            told = await self.shared.publish(SessionEnded(session.session_id))
        self._end_session(session)
        if self.shared is not None and told is not None:
            try:
                await self.shared.heard_everywhere(told, self._recheck_after)
            except StateUnavailable:  # (ended in the shared state: the others read it there)
                pass
        await sink.respond(200, b"", [])

    def _end_session(self, session: HttpSession) -> None:
        assert session.session_id is not None
        self.sessions.remove(session.session_id)
        self._forget(session)
        session.dispatcher.cancel_all(CLIENT)

    def _expire(self) -> None:
        for session in self.sessions.expired():
            try:
                self._forget(session)
            except Exception:  # (a session hook that failed: the other sessions still end, the sweep goes on)
                log.exception("ending the idle legacy session %s… failed", (session.session_id or "")[:6])

    def _forget(self, session: HttpSession) -> None:
        session.end()
        if self.parked is not None:
            self.parked.end_get(session)
        self.app.detach(session)
