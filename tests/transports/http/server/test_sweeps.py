"""A sweep over many items goes a slice at a time: the other tasks run between two slices (a look
over 20,000 idle connections in one go held every request up); and the write-timeout sweep leaves
alone a connection that ended meanwhile (its socket may have been handed on)."""

from __future__ import annotations

import math

import trio

from mcptrio.sweeps import SLICE, slices
from mcptrio.transports.http.server.rfc9112 import time_writes

COUNT = 3 * SLICE


async def test_slices_are_a_snapshot_taken_once_with_a_checkpoint_after_every_slice():
    count = 2 * SLICE + 7
    items = list(range(count))
    got: list[int] = []
    others: list[int] = []  # how many items were looked at each time another task ran

    async def other() -> None:
        while len(got) < count:
            others.append(len(got))
            await trio.lowlevel.checkpoint()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(other)
        async for part in slices(items):
            if not got:
                items.append(-1)  # (what changes after the snapshot does not move it)
            for n in part:
                got.append(n)
    assert got == list(range(count))
    # (Trio runs the ready tasks of one turn in either order: the other task sees the sweep before
    # or after its next slice, never in the middle of one.)
    assert set(others) <= {0, SLICE, 2 * SLICE}
    assert set(others) & {SLICE, 2 * SLICE}


async def test_the_write_sweep_lets_other_tasks_run_between_slices_and_skips_the_ended(autojump_clock):
    events: list[object] = []
    first_abort, all_done = trio.Event(), trio.Event()

    class Stuck:
        """A connection whose write has waited since long ago: the sweep aborts it."""

        def __init__(self, number: int) -> None:
            self.number = number
            self.writing_since = -math.inf

        def abort(self) -> None:
            self.writing_since = math.inf
            events.append(self.number)
            first_abort.set()
            if len([e for e in events if isinstance(e, int)]) == COUNT - 1:
                all_done.set()

    connections = {Stuck(n) for n in range(COUNT)}
    ended: list[Stuck] = []

    async def another_task() -> None:
        await first_abort.wait()  # runs at one of the sweep's next checkpoints
        events.append("turn")
        looked = {e for e in events if isinstance(e, int)}
        gone = next(c for c in connections if c.number not in looked)  # (none left: it never let us run)
        connections.discard(gone)  # this connection ends before the sweep reaches it
        ended.append(gone)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(time_writes, connections, 1.0)
        nursery.start_soon(another_task)
        with trio.fail_after(60):
            await all_done.wait()
        nursery.cancel_scope.cancel()

    aborted = [e for e in events if isinstance(e, int)]
    assert len(aborted) == COUNT - 1 and len(set(aborted)) == COUNT - 1
    # The other task ran after the first slice, or the second (Trio runs the ready tasks of one
    # turn in either order), not after the whole look.
    assert events.index("turn") in (SLICE, 2 * SLICE)
    assert ended[0].number not in aborted  # ended between two slices: not touched
