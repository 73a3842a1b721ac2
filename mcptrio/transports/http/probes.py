"""Comment lines on open event streams, written by one task for all of them, spread evenly in time.

A comment (``:``) on a stream keeps proxies from closing it while it is quiet, and on a running
call's stream it shows up a client that went away without closing its connection (its host gone,
a NAT that forgot it): the write meets a reset and the server reports ``http.disconnect``.  A client
that closes its connection needs no write: the server's read sees it at once.

Why one task and not a timer per stream: a timer costs a timeout delivered through the ASGI
``receive`` and a write per probe, in pieces that run between the scheduler passes of every other
request (bench/README.md, "Fast calls among slow ones", has the figures).  Here the watchers wait
for a disconnect without a timeout, and one task, the prober, keeps the streams' turns:
running calls, each about every ``probe_interval``,
and ``subscriptions/listen`` streams, every ``keepalive_interval``.  A stream's first turn falls at
a random point of its first interval and keeps its place after, so the writes are spread evenly
however the streams arrived.  Calls' probes stay within ``max_probe_rate`` a second: with more
calls open each is probed less often, but at least every ``keepalive_interval``.  Each probe is a
task of its own, so a client that stopped reading holds up no other, and a stream whose last
write has not finished is skipped.
"""

from __future__ import annotations

import heapq
import itertools
import math
import random

import trio

from ..net.config import HttpConfig
from .exchange import Exchange

PACE_FLOOR = 0.001  # the prober wakes at most this often (faster paces probe a few streams a wake)


class Ring:
    """Streams probed in turn, each about every ``interval``: stretched to stay within ``max_rate``
    probes a second, but never beyond ``ceiling``.  A stream's first turn is at a random point of
    the first interval, so streams that open together are probed apart."""

    def __init__(self, interval: float, max_rate: float = math.inf, ceiling: float = math.inf) -> None:
        self.base, self.max_rate, self.ceiling = interval, max_rate, ceiling
        self.members: dict[Exchange, float] = {}  # stream -> its next turn
        self._turns: list[tuple[float, int, Exchange]] = []  # a heap; turns of ended streams are skipped
        self._order = itertools.count()

    @property
    def interval(self) -> float:
        return min(self.ceiling, max(self.base, len(self.members) / self.max_rate))

    def add(self, exchange: Exchange, now: float) -> None:
        self._schedule(exchange, now + random.random() * self.interval)

    def discard(self, exchange: Exchange) -> None:
        self.members.pop(exchange, None)
        if len(self._turns) > 2 * len(self.members) + 64:  # turns of ended streams hold them: drop them now
            self._turns = [(turn, next(self._order), member) for member, turn in self.members.items()]
            heapq.heapify(self._turns)

    def due(self, now: float) -> list[Exchange]:
        """The streams whose turn has come; their next turn is one interval after this one."""
        taken = []
        while self._turns and self._turns[0][0] <= now:
            turn, _, exchange = heapq.heappop(self._turns)
            if self.members.get(exchange) == turn:
                taken.append((turn, exchange))
        interval = self.interval
        for turn, exchange in taken:
            self._schedule(exchange, turn + interval if turn + interval > now else now + interval)
        return [exchange for _, exchange in taken]

    def next_turn(self) -> float:
        turns, members = self._turns, self.members
        while turns and members.get(turns[0][2]) != turns[0][0]:
            heapq.heappop(turns)  # a stream that ended
        return turns[0][0] if turns else math.inf

    def _schedule(self, exchange: Exchange, turn: float) -> None:
        self.members[exchange] = turn
        heapq.heappush(self._turns, (turn, next(self._order), exchange))


class Prober:
    """``run`` it in a long-lived nursery; ``add`` a stream once it is open, ``discard`` it at its end."""

    def __init__(self, config: HttpConfig) -> None:
        self.calls = Ring(config.probe_interval, config.max_probe_rate, config.keepalive_interval)
        self.listens = Ring(config.keepalive_interval)
        self.running = False
        self._sleep: trio.CancelScope | None = None

    def add(self, exchange: Exchange, *, listen: bool = False) -> None:
        """Probe this stream from now on (first within one interval, then every interval)."""
        ring = self.listens if listen else self.calls
        ring.add(exchange, trio.current_time())
        if self._sleep is not None:
            self._sleep.deadline = min(self._sleep.deadline, ring.next_turn())

    def discard(self, exchange: Exchange) -> None:
        self.calls.discard(exchange)
        self.listens.discard(exchange)

    async def _probe(self, exchange: Exchange) -> None:
        # Not if its POST ended meanwhile (discard): its response may be over, and the ASGI call too.
        if exchange in self.calls.members or exchange in self.listens.members:
            await exchange.probe()

    async def run(self, nursery: trio.Nursery) -> None:
        """Probe the streams whose turn came, each in a task of ``nursery``; sleep until the next turn."""
        self.running = True
        try:
            while True:
                now = trio.current_time()
                for ring in (self.calls, self.listens):
                    for exchange in ring.due(now):
                        if not exchange.writing:
                            nursery.start_soon(self._probe, exchange)
                wake = max(now + PACE_FLOOR, min(self.calls.next_turn(), self.listens.next_turn()))
                with trio.CancelScope(deadline=wake) as self._sleep:
                    await trio.sleep_forever()
                self._sleep = None
        finally:
            self.running = False
            self._sleep = None
