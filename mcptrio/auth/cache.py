"""Principals of tokens already checked, kept until the token expires and no longer than a bound.

A client sends the same token with every request; both verifiers remember the answer so that
only a token not seen before costs a signature check or a round trip to the authorization
server.  Bounded in size (expired entries are swept when full, then everything if still full)
and in time (``keep_for``), so a revoked opaque token stops working within that time.
"""

from __future__ import annotations

import time
from collections.abc import Hashable

from .principal import Principal


class PrincipalCache:
    def __init__(self, keep_for: float, size: int) -> None:
        self.keep_for = keep_for
        self.size = size
        self._entries: dict[Hashable, tuple[Principal, float]] = {}  # key -> (principal, good until)

    def get(self, key: Hashable) -> Principal | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        if entry[1] > time.time():
            return entry[0]
        del self._entries[key]
        return None

    def put(self, key: Hashable, principal: Principal) -> None:
        now = time.time()
        until = now + self.keep_for
        if principal.expires_at is not None:
            until = min(until, principal.expires_at)
        if len(self._entries) >= self.size:
            self._entries = {k: v for k, v in self._entries.items() if v[1] > now}
            if len(self._entries) >= self.size:
                self._entries.clear()
        self._entries[key] = (principal, until)
