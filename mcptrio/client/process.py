"""Drive a server in a real subprocess over stdio, with the raw client."""

from __future__ import annotations

import contextlib
import subprocess
from typing import Any, AsyncIterator, Sequence

import trio

from ..framing import LineFramer, Oversize
from .raw import RawClient


class ProcessEnd:
    """The client's end of a subprocess's stdin/stdout, one JSON message per line."""

    def __init__(self, process: trio.Process) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.process = process
        self._framer = LineFramer(1 << 30)
        self._lines: list[bytes] = []

    async def send(self, frame: bytes) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.send_all(frame + b"\n")

    async def receive(self) -> bytes:
        assert self.process.stdout is not None
        while not self._lines:
            data = await self.process.stdout.receive_some(65536)
            if not data:
                raise trio.EndOfChannel
            self._lines.extend(f for f in self._framer.feed(data) if not isinstance(f, Oversize))
        return self._lines.pop(0)

    async def close(self) -> None:
        """Close the server's stdin: its signal to drain and exit."""
        assert self.process.stdin is not None
        await self.process.stdin.aclose()


@contextlib.asynccontextmanager
async def process_end(command: Sequence[str], *, stderr: Any = None, env: dict[str, str] | None = None,
                      wait: float = 10) -> AsyncIterator[ProcessEnd]:
    """Spawn ``command`` and yield the client's end of its stdio.  On exit its stdin is closed
    (a server's signal to drain), and it gets ``wait`` seconds to exit before it is killed."""
    process = await trio.lowlevel.open_process(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                               stderr=stderr, env=env)
    end = ProcessEnd(process)
    try:
        yield end
        await end.close()
        with trio.move_on_after(wait):
            await process.wait()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


@contextlib.asynccontextmanager
async def open_process_client(command: Sequence[str], *, era: str = "legacy", initialize: bool = True,
                              stderr: Any = None, env: dict[str, str] | None = None,
                              **client_options: Any) -> AsyncIterator[RawClient]:
    """Spawn ``command`` as an MCP stdio server and yield a connected client.

    The server's stderr is this process's unless ``stderr`` (a file or file descriptor) is given;
    ``env`` replaces its environment.

    On exit, stdin is closed and the process is given 10 s to exit before it is killed.
    ``client.end.process.returncode`` tells how it ended.
    """
    async with process_end(command, stderr=stderr, env=env) as end:
        client = RawClient(end, era=era, **client_options)
        async with trio.open_nursery() as nursery:
            await nursery.start(client.run)
            if initialize and era == "legacy":
                await client.initialize()
            yield client
            await end.close()  # (the reader runs until the server, its input closed, exits)
            with trio.move_on_after(10):
                await end.process.wait()
