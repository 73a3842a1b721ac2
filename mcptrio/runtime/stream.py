"""The one interface every stream transport gives a session: whole frames in, whole messages out."""

from __future__ import annotations

from typing import Protocol

from ..framing import Oversize


class MessageStream(Protocol):
    """A bidirectional stream of JSON-RPC frames (one JSON value each, no delimiters)."""

    async def receive(self) -> bytes | Oversize | None:
        """The next frame; ``Oversize`` for one over the limit; ``None`` at end of input (in-flight
        requests drain); raises ``trio.BrokenResourceError`` when the peer is gone (they are cancelled)."""

    async def send(self, data: bytes) -> None:
        """Write one encoded message; raises ``trio.BrokenResourceError`` when the peer is gone."""

    async def send_many(self, frames: list[bytes]) -> None:
        """Write several encoded messages, in order (one write where the transport allows)."""


class OneByOne:
    """``send_many`` for transports with no batched write: each frame in order."""

    async def send(self, data: bytes) -> None:
        raise NotImplementedError

    async def send_many(self, frames: list[bytes]) -> None:
        for data in frames:
            await self.send(data)
