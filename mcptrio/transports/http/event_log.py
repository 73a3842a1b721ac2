"""A bounded log of SSE events per legacy session, for resumption with ``Last-Event-ID``.

Event ids are ``"<stream>-<seq>"``; a log belongs to one session, so events are never replayed
into another.  When the log is full the oldest events are forgotten.
"""

from __future__ import annotations

import collections


class EventLog:
    __slots__ = ("_size", "_events", "_last_stream")

    def __init__(self, size: int) -> None:
        self._size = size
        self._events: collections.deque[tuple[int, int, bytes]] | None = None  # made on first use
        self._last_stream = 0

    def new_stream(self) -> int:
        self._last_stream += 1
        return self._last_stream

    def append(self, stream: int, seq: int, data: bytes) -> None:
        if self._events is None:
            self._events = collections.deque(maxlen=self._size)
        self._events.append((stream, seq, data))

    def after(self, stream: int, seq: int) -> list[tuple[str, bytes]]:
        """Events of ``stream`` after ``seq``, as (event id, data)."""
        return [(f"{s}-{n}", data) for s, n, data in self._events or () if s == stream and n > seq]


def parse_event_id(value: str) -> tuple[int, int] | None:
    stream, sep, seq = value.partition("-")
    if not sep or not stream.isdigit() or not seq.isdigit():
        return None
    return int(stream), int(seq)
