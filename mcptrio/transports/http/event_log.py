"""A bounded log of SSE events per legacy session, for resumption with ``Last-Event-ID``.

Event ids are ``"<stream>-<seq>"``; a log belongs to one session, so events are never replayed
into another.  When the log is full the oldest events are forgotten.
"""

from __future__ import annotations

import collections
import itertools


class EventLog:
    def __init__(self, size: int) -> None:
        self._events: collections.deque[tuple[int, int, bytes]] = collections.deque(maxlen=size)
        self._streams = itertools.count(1)

    def new_stream(self) -> int:
        return next(self._streams)

    def append(self, stream: int, seq: int, data: bytes) -> None:
        self._events.append((stream, seq, data))

    def after(self, stream: int, seq: int) -> list[tuple[str, bytes]]:
        """Events of ``stream`` after ``seq``, as (event id, data)."""
        return [(f"{s}-{n}", data) for s, n, data in self._events if s == stream and n > seq]


def parse_event_id(value: str) -> tuple[int, int] | None:
    stream, sep, seq = value.partition("-")
    if not sep or not stream.isdigit() or not seq.isdigit():
        return None
    return int(stream), int(seq)
