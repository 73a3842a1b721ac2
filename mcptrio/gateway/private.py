"""A caller's own upstream sessions (``sessions = "per-caller"``).

On a shared session, a legacy upstream's pushed question can be attributed to a caller only while
one call is in flight.  Where an upstream asks its callers questions while several calls are in
flight, each legacy caller's session gets an upstream session of its own: opened at its first
request to that upstream, closed when the caller's session ends (or the app stops); every question
and log message on it is that caller's.  The lists, subscriptions and change notifications stay
the shared session's.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Protocol

import attrs
import trio

if TYPE_CHECKING:
    from contextlib import AbstractAsyncContextManager

    from ..client.session import Client

log = logging.getLogger("mcptrio.gateway")


class Opener(Protocol):
    """What opens a caller's upstream session (``link.Link``)."""

    @property
    def name(self) -> str: ...

    def connect(self, via: object) -> AbstractAsyncContextManager[Client]: ...


@attrs.define(eq=False)
class _Private:
    scope: trio.CancelScope = attrs.field(factory=trio.CancelScope)
    ready: trio.Event = attrs.field(factory=trio.Event)
    client: Client | None = None


class PrivateSessions:
    def __init__(self, link: Opener) -> None:
        self.link = link
        self.nursery: trio.Nursery | None = None  # (the link's, while it runs)
        self._open: dict[object, _Private] = {}

    def __len__(self) -> int:
        return len(self._open)

    async def client_for(self, key: object) -> Client | None:
        """The caller ``key``'s own upstream session, opened if it has none; None if it cannot be."""
        private = self._open.get(key)
        if private is None:
            if self.nursery is None:
                return None
            private = self._open[key] = _Private()
            self.nursery.start_soon(self._run, key, private)
        await private.ready.wait()
        return private.client

    def close(self, key: object) -> None:
        private = self._open.pop(key, None)
        if private is not None:
            private.scope.cancel()

    async def _run(self, key: object, private: _Private) -> None:
        try:
            with private.scope:
                async with self.link.connect(key) as client:
                    private.client = client
                    private.ready.set()
                    await client.raw.ended.wait()
        except Exception as exc:  # (a caller's own session that fails: its calls get the error)
            log.warning("upstream %s: a caller's own session failed: %s", self.link.name, exc)
        finally:
            private.client = None
            private.ready.set()
            if self._open.get(key) is private:
                del self._open[key]
