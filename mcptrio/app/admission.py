"""Admission: how much each client may ask (a rate limit) and how much the server runs at once
(a cap on concurrent tool calls), both as built-in middleware.

Rate limit: a token bucket per client: its principal once authorization is on, else its network
address, else its session (stdio: the one local client).  Every request that reaches the
pipeline takes a token; the bucket refills at ``rate`` per second up to ``burst``.  An empty
bucket answers ``RATE_LIMITED`` with ``data.retryAfter`` (seconds until a token is back); over
HTTP, before anything else was sent, that is status 429 with ``Retry-After``.

Tool calls: at most ``max_calls`` run at once, server-wide.  A call over the cap waits up to
``wait`` seconds for a slot, then is refused with ``UNAVAILABLE`` (HTTP 503, ``Retry-After``).

Both use the Trio clock, so tests drive them with ``MockClock``.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

import attrs
import trio

from ..auth.principal import client_key
from ..protocol import errors
from ..protocol.errors import RATE_LIMITED, McpError

if TYPE_CHECKING:
    from .middleware import CallNext, Request

UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0}
PRUNE_EVERY = 1024  # new keys between sweeps of the buckets that are full again


def parse_rate(text: str) -> float:
    """``"20/s"``, ``"600/m"``, ``"5000/h"`` (or a bare number: per second) -> requests per second."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(?:/\s*([smh]))?\s*", str(text))
    if match is None or float(match.group(1)) <= 0:
        raise ValueError(f"rate limit {text!r} is not a positive rate like 20/s, 600/m or 5000/h")
    return float(match.group(1)) / UNITS[match.group(2) or "s"]


@attrs.frozen
class RateLimit:
    """``rate`` requests per second per client, in bursts of up to ``burst`` (default: one second's worth)."""

    rate: float
    burst: int = None  # type: ignore[assignment]  # (None: one second's worth, at least 1)

    def __attrs_post_init__(self) -> None:
        if isinstance(self.rate, bool) or not isinstance(self.rate, (int, float)) or not 0 < self.rate < math.inf:
            raise ValueError(f"rate must be a positive number of requests per second, got {self.rate!r}")
        if self.burst is None:
            object.__setattr__(self, "burst", max(1, math.ceil(self.rate)))
        if isinstance(self.burst, bool) or not isinstance(self.burst, int) or self.burst < 1:
            raise ValueError(f"rate burst must be a whole number of at least 1, got {self.burst!r}")

    @classmethod
    def parse(cls, text: str, burst: int | None = None) -> RateLimit:
        rate = parse_rate(text)
        return cls(rate) if burst is None else cls(rate, burst)


class RateLimiter:
    """The rate-limit middleware: one token bucket per client key."""

    def __init__(self, limit: RateLimit) -> None:
        self.limit = limit
        self._buckets: dict[Any, tuple[float, float]] = {}  # key -> (tokens, when counted)
        self._new_keys = 0

    async def __call__(self, request: Request, call_next: CallNext) -> dict[str, Any]:
        wait = self.take(
            client_key(request.principal, request.client_address, request.context.session_key), trio.current_time()
        )
        if wait > 0:
            retry_after = math.ceil(wait * 1000) / 1000
            raise McpError(
                RATE_LIMITED,
                f"rate limit exceeded ({self.describe()}); retry in {retry_after:g} s",
                {"retryAfter": retry_after},
            )
        return await call_next(request)

    def take(self, key: Any, now: float) -> float:
        """Take a token for ``key``: 0 if there was one, else the seconds until there is."""
        rate, burst = self.limit.rate, self.limit.burst
        tokens, then = self._buckets.get(key, (None, now))
        if tokens is None:
            tokens = float(burst)
            self._new_keys += 1
            if self._new_keys >= PRUNE_EVERY:
                self._prune(now)
        tokens = min(float(burst), tokens + (now - then) * rate)
        if tokens >= 1:
            self._buckets[key] = (tokens - 1, now)
            return 0.0
        self._buckets[key] = (tokens, now)
        return (1 - tokens) / rate

    def _prune(self, now: float) -> None:
        """Forget the clients whose bucket has refilled: they are as good as new."""
        full = self.limit.burst / self.limit.rate
        self._buckets = {k: v for k, v in self._buckets.items() if now - v[1] < full}
        self._new_keys = 0

    def describe(self) -> str:
        return f"{self.limit.rate:g}/s, burst {self.limit.burst}"


class ToolCallLimiter:
    """The cap on concurrent tool calls, server-wide, with a bounded wait for a slot."""

    def __init__(self, max_calls: int, wait: float) -> None:
        if max_calls < 1:
            raise ValueError(f"max_tool_calls must be at least 1, got {max_calls!r}")
        if not wait >= 0:
            raise ValueError(f"tool_call_wait must be 0 or more seconds, got {wait!r}")
        self.max_calls = max_calls
        self.wait = wait
        self._slots: trio.CapacityLimiter | None = None  # made in the Trio run that first needs it

    @property
    def running(self) -> int:
        return 0 if self._slots is None else self._slots.borrowed_tokens

    async def __call__(self, request: Request, call_next: CallNext) -> dict[str, Any]:
        if request.method != "tools/call":
            return await call_next(request)
        if self._slots is None:
            self._slots = trio.CapacityLimiter(self.max_calls)
        slots, borrower = self._slots, object()  # one borrower per call (a task may run several)
        try:
            slots.acquire_on_behalf_of_nowait(borrower)
        except trio.WouldBlock:
            acquired = False
            with trio.move_on_after(self.wait):
                await slots.acquire_on_behalf_of(borrower)
                acquired = True  # (no checkpoint between the two: a cancel can't fall in between)
            if not acquired:
                raise errors.unavailable(
                    f"server busy: {self.max_calls} tool calls running and none "
                    f"finished within {self.wait:g} s; retry later"
                ) from None
        try:
            return await call_next(request)
        finally:
            slots.release_on_behalf_of(borrower)
