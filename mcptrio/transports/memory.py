"""An in-memory transport: frames over Trio memory channels, for tests and embedding."""

from __future__ import annotations

import attrs
import trio

from ..framing import DEFAULT_MAX_MESSAGE_SIZE, Oversize
from ..runtime.stream import OneByOne


@attrs.define(eq=False)
class MemoryMessageStream(OneByOne):
    """The server's end: frames from the client, encoded messages to it."""

    incoming: trio.MemoryReceiveChannel[bytes]
    outgoing: trio.MemorySendChannel[bytes]
    max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE

    async def receive(self) -> bytes | Oversize | None:
        try:
            frame = await self.incoming.receive()
        except (trio.EndOfChannel, trio.ClosedResourceError):
            return None
        if len(frame) > self.max_message_size:
            return Oversize(len(frame))
        return frame

    async def send(self, data: bytes) -> None:
        await self.outgoing.send(data)


@attrs.define(eq=False)
class MemoryClientEnd:
    """The client's end: ``send`` frames, ``receive`` the server's messages, ``close`` for EOF."""

    to_server: trio.MemorySendChannel[bytes]
    from_server: trio.MemoryReceiveChannel[bytes]

    async def send(self, frame: bytes) -> None:
        await self.to_server.send(frame)

    async def receive(self) -> bytes:
        return await self.from_server.receive()

    async def close(self) -> None:
        await self.to_server.aclose()


def memory_pair(
    max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE, buffer: int = 64
) -> tuple[MemoryMessageStream, MemoryClientEnd]:
    to_server, server_in = trio.open_memory_channel[bytes](buffer)
    server_out, to_client = trio.open_memory_channel[bytes](buffer)
    return (MemoryMessageStream(server_in, server_out, max_message_size), MemoryClientEnd(to_server, to_client))
