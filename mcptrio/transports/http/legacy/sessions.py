"""Legacy Streamable HTTP sessions, one per ``Mcp-Session-Id``.  Their workers run in the POST's
own task, so an idle session is only its protocol state: no tasks, no buffers in use.
"""

from __future__ import annotations

import collections
import math
import secrets
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import trio

from ....protocol.events import IncomingRequest, Route
from ....runtime.core import SessionCore
from ...net.config import HttpConfig
from ..event_log import EventLog, SharedEventLog
from ..exchange import Exchange

if TYPE_CHECKING:
    from ....app import App
    from ....runtime.limits import SessionLimits
    from ....state.redis import RedisState


class HttpSession(SessionCore):
    """Messages go to the route's exchange; messages for no request to the standalone stream."""

    transport = "http"

    def __init__(
        self,
        app: App,
        limits: SessionLimits,
        config: HttpConfig,
        session_id: str,
        shared: RedisState | None = None,
    ) -> None:
        super().__init__(app, limits)
        self.app = app
        self.config = config
        self.session_id = session_id
        self.shared = shared  # the state shared with other processes (legacy sessions), if any
        if shared is not None:
            self.call_prefix = f"mcptrio-{shared.worker}-"
        self.record: dict[str, Any] = {}  # as last read from (or written to) the shared state
        self.verified_at = -math.inf  # when the record was last read (and renewed) there
        self.binding: str | None = None  # the principal that opened it (with authorization), else None
        self.last_used = trio.current_time()
        self.log: EventLog | None = None
        self.standalone: Exchange | None = None  # made by the first GET
        self.streams: dict[int, Exchange] = {}
        self._priming = False
        self._ended: trio.Event | None = None
        self.is_ended = False

    @property
    def ended(self) -> trio.Event:
        """Set by DELETE or expiry (made on first use: most sessions never need it)."""
        if self._ended is None:
            self._ended = trio.Event()
            if self.is_ended:
                self._ended.set()
        return self._ended

    def end(self) -> None:
        self.is_ended = True
        if self._ended is not None:
            self._ended.set()

    def enable_streams(self, era_version: str) -> None:
        """Legacy sessions: an event log for resumption (the GET stream comes with the first GET)."""
        if self.shared is not None and self.session_id is not None:
            self.log = SharedEventLog(self.config.event_log_size, self.shared, self.session_id)
        else:
            self.log = EventLog(self.config.event_log_size)
        self._priming = era_version >= "2025-11-25"

    def open_standalone(self) -> Exchange:
        if self.standalone is None:
            self.standalone = Exchange(
                None,
                self.config,
                era="legacy",
                headers=[],
                log=self.log,
                priming=self._priming,
                error_status=False,
                standalone=True,
            )
            self.streams[self.standalone.stream] = self.standalone
        return self.standalone

    async def send(self, message: dict[str, Any] | list[Any], route: Route | None = None) -> None:
        target = route if isinstance(route, Exchange) else self.standalone
        if target is not None:
            await target.deliver(message)

    def post(self, message: dict[str, Any], route: Route | None = None) -> None:
        target = route if isinstance(route, Exchange) else self.standalone
        if target is None:
            return
        if target is self.standalone and self.shared is not None and target.sink is None:
            return  # shared: the worker carrying the session's GET stream logs and sends it
        target.post(message)

    async def close_stream(self, request: IncomingRequest) -> None:
        route = request.route
        if isinstance(route, Exchange) and route.log is not None:
            await route.open_stream()
            await route.close_stream()

    def track(self, exchange: Exchange) -> None:
        """Keep a stream findable for Last-Event-ID while its events are in the log."""
        self.streams[exchange.stream] = exchange
        if len(self.streams) > self.config.event_log_size:
            for stream in self.streams:
                if self.standalone is None or stream != self.standalone.stream:
                    del self.streams[stream]  # the oldest POST stream; the standalone one stays
                    break

    def idle(self) -> bool:
        attached = self.standalone is not None and self.standalone.sink is not None
        return not attached and self.dispatcher.in_flight() == 0


class SessionTable:
    """Legacy sessions by id, oldest use first, so expiry is a sweep from the front."""

    def __init__(self, config: HttpConfig) -> None:
        self.config = config
        self._sessions: collections.OrderedDict[str, HttpSession] = collections.OrderedDict()
        # Sessions another worker said it ended, by when it said so: one read from the shared
        # state just before, and adopted just after, is not adopted (``ended_elsewhere``).
        self._ended_elsewhere: collections.OrderedDict[str, float] = collections.OrderedDict()

    def __len__(self) -> int:
        return len(self._sessions)

    def __iter__(self) -> Iterator[HttpSession]:
        return iter(list(self._sessions.values()))

    def new_id(self) -> str:
        return secrets.token_urlsafe(24)  # 192 bits from the OS CSPRNG

    def add(self, session: HttpSession) -> None:
        assert session.session_id is not None
        self._sessions[session.session_id] = session

    def get(self, session_id: str) -> HttpSession | None:
        return self._sessions.get(session_id)

    def touch(self, session: HttpSession) -> None:
        """The session was just used: its idle time starts again."""
        session.last_used = trio.current_time()
        if session.session_id is not None and session.session_id in self._sessions:
            self._sessions.move_to_end(session.session_id)

    def remove(self, session_id: str) -> HttpSession | None:
        return self._sessions.pop(session_id, None)

    def end_elsewhere(self, session_id: str, remembered: float) -> None:
        """Another worker ended this session: remembered for ``remembered`` seconds, the longest a
        record read before the end can be trusted here."""
        now = trio.current_time()
        while self._ended_elsewhere and next(iter(self._ended_elsewhere.values())) <= now:
            self._ended_elsewhere.popitem(last=False)
        self._ended_elsewhere[session_id] = now + remembered

    def ended_elsewhere(self, session_id: str) -> bool:
        return self._ended_elsewhere.get(session_id, -math.inf) > trio.current_time()

    def expired(self) -> list[HttpSession]:
        """Sessions idle past the timeout, removed from the table."""
        deadline = trio.current_time() - self.config.session_idle_timeout
        stale = []
        for session_id, session in self._sessions.items():  # oldest use first: stop at the first fresh one
            if session.last_used > deadline:
                break
            if session.idle():
                stale.append(session_id)
        return [self._sessions.pop(session_id) for session_id in stale]
