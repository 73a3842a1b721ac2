"""How often a task that sweeps for overdue things looks: the HTTP server's request heads, writes
and keep-alives, the gateway's forwarded calls.  One task looking a few times per timeout costs
less than a deadline per item, which Trio registers and drops on every use.  A look over many
items goes a slice at a time, letting the other tasks run between two slices."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from typing import TypeVar

import trio

T = TypeVar("T")

SWEEP_FLOOR = 0.01  # seconds between two looks, at least
# Items looked at before the other tasks get a turn: a look over 20,000 idle connections in one go
# held every request up for milliseconds, four times a second.
SLICE = 500


def sweep_period(timeouts: Iterable[float], most: float) -> float:
    """Seconds between two looks: a quarter of the shortest of ``timeouts`` above 0, ``most`` at
    most and ``SWEEP_FLOOR`` at least (a timeout of 0 is met by the next look, not by a busy loop)."""
    return max(SWEEP_FLOOR, min([most, *(timeout / 4 for timeout in timeouts if timeout > 0)]))


async def slices(items: Iterable[T]) -> AsyncIterator[list[T]]:
    """``items`` as they are now (a snapshot: the collection may change during the look), SLICE at a
    time, the sweeping task checkpointing after each slice.  (Slices, not items: an async generator
    yielding every item doubled what a look costs.)"""
    snapshot = list(items)
    for start in range(0, len(snapshot), SLICE):
        yield snapshot[start : start + SLICE]
        await trio.lowlevel.checkpoint()
