"""stdio: newline-delimited JSON on the process's stdin/stdout, without threads.

Only MCP messages may reach stdout, so while serving, file descriptor 1 is pointed at stderr
(``print()`` in a handler lands there) and messages go out through a private duplicate of the
original stdout.  Reads and writes use non-blocking ``trio.lowlevel.FdStream``s.
"""

from __future__ import annotations

import collections
import contextlib
import os
import sys
from collections.abc import Iterator

import trio

from ..framing import DEFAULT_MAX_MESSAGE_SIZE, LineFramer, Oversize

READ_SIZE = 65536


class LineMessageStream:
    """Newline-delimited frames over any Trio byte streams (stdio, a socket, a pipe)."""

    def __init__(
        self,
        receive_stream: trio.abc.ReceiveStream,
        send_stream: trio.abc.SendStream,
        max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
    ) -> None:
        self._in = receive_stream
        self._out = send_stream
        self._framer = LineFramer(max_message_size)
        self._frames: collections.deque[bytes | Oversize] = collections.deque()
        self._eof = False

    async def receive(self) -> bytes | Oversize | None:
        while not self._frames:
            if self._eof:
                return None
            data = await self._in.receive_some(READ_SIZE)
            if data:
                self._frames.extend(self._framer.feed(data))
            else:
                self._eof = True
                self._frames.extend(self._framer.close())
        return self._frames.popleft()

    async def send(self, data: bytes) -> None:
        await self._out.send_all(data + b"\n")

    async def send_many(self, frames: list[bytes]) -> None:
        frames.append(b"")
        await self._out.send_all(b"\n".join(frames))

    async def aclose(self) -> None:
        await self._in.aclose()
        await self._out.aclose()


@contextlib.contextmanager
def stdout_reserved_for_messages() -> Iterator[int]:
    """Yield a private fd for the real stdout while fd 1 (and ``print``) goes to stderr."""
    sys.stdout.flush()
    message_fd = os.dup(1)
    saved_stdout = os.dup(1)
    os.dup2(2, 1)
    try:
        yield message_fd
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        os.dup2(saved_stdout, 1)
        os.close(saved_stdout)


def open_stdio_stream(message_fd: int, max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE) -> LineMessageStream:
    """A message stream on a duplicate of stdin and on ``message_fd`` (which it takes over)."""
    stdin = trio.lowlevel.FdStream(os.dup(0))
    stdout = trio.lowlevel.FdStream(message_fd)
    return LineMessageStream(stdin, stdout, max_message_size)
