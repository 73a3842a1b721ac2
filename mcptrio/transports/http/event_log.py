"""A bounded log of SSE events per legacy session, for resumption with ``Last-Event-ID``.

Event ids are ``"<stream>-<seq>"``; a log belongs to one session, so events are never replayed
into another.  When the log is full the oldest events are forgotten.
"""

from __future__ import annotations

import collections
import os
import random
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...state.redis import RedisState

_numbers = random.Random(os.urandom(16))


class EventLog:
    __slots__ = ("_size", "_events", "_last_stream")

    def __init__(self, size: int) -> None:
        self._size = size
        self._events: collections.deque[tuple[int, int, bytes]] | None = None  # made on first use
        self._last_stream = 0

    def new_stream(self, standalone: bool = False) -> int:
        self._last_stream += 1
        return self._last_stream

    def append(self, stream: int, seq: int, data: bytes, final: bool = False, request: object = None) -> None:
        if self._events is None:
            self._events = collections.deque(maxlen=self._size)
        self._events.append((stream, seq, data))

    def after(self, stream: int, seq: int) -> list[tuple[str, bytes]]:
        """Events of ``stream`` after ``seq``, as (event id, data)."""
        return [(f"{s}-{n}", data) for s, n, data in self._events or () if s == stream and n > seq]


class SharedEventLog(EventLog):
    """The session's local log (resumption on this worker, as always), mirrored to the shared
    state in order; stream numbers are random so streams of different workers never meet."""

    __slots__ = ("_shared", "_session_id")

    def __init__(self, size: int, shared: RedisState, session_id: str) -> None:
        super().__init__(size)
        self._shared = shared
        self._session_id = session_id

    def new_stream(self, standalone: bool = False) -> int:
        """Odd for a request's stream, even for the session's GET stream (a resume on another
        worker tells them apart by that alone)."""
        number = _numbers.getrandbits(40)  # (unique enough; a session's streams are its own)
        return (number & ~1 or 2) if standalone else number | 1

    def append(self, stream: int, seq: int, data: bytes, final: bool = False, request: Any = None) -> None:
        super().append(stream, seq, data, final, request)
        self._shared.append_event(self._session_id, stream, seq, data, final, request)


def parse_event_id(value: str) -> tuple[int, int] | None:
    stream, sep, seq = value.partition("-")
    if not sep or not stream.isdigit() or not seq.isdigit():
        return None
    return int(stream), int(seq)
