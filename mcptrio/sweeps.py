"""How often a task that sweeps for overdue things looks: the HTTP server's request heads, writes
and keep-alives, the gateway's forwarded calls.  One task looking a few times per timeout costs
less than a deadline per item, which Trio registers and drops on every use."""

from __future__ import annotations

from collections.abc import Iterable

SWEEP_FLOOR = 0.01  # seconds between two looks, at least


def sweep_period(timeouts: Iterable[float], most: float) -> float:
    """Seconds between two looks: a quarter of the shortest of ``timeouts`` above 0, ``most`` at
    most and ``SWEEP_FLOOR`` at least (a timeout of 0 is met by the next look, not by a busy loop)."""
    return max(SWEEP_FLOOR, min([most, *(timeout / 4 for timeout in timeouts if timeout > 0)]))
