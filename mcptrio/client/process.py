"""Drive a server in a real subprocess over stdio, with the raw client."""

from __future__ import annotations

import collections
import contextlib
import signal
import subprocess
from collections.abc import AsyncIterator, Sequence
from typing import Any

import trio

from ..framing import LineFramer, Oversize
from ..transports.stdio import descriptor_of, write_at_once
from .raw import RawClient


class StderrTail:
    """The last few lines a process writes on its stderr, read as it writes them (so a full pipe
    never stops it)."""

    def __init__(self, lines: int = 3, width: int = 300) -> None:
        self.lines: collections.deque[str] = collections.deque(maxlen=lines)
        self.width = width
        self.done = trio.Event()  # the process has closed its stderr
        self._partial = b""

    async def read(self, stream: trio.abc.ReceiveStream) -> None:
        try:
            while data := await stream.receive_some(65536):
                *complete, partial = (self._partial + data).split(b"\n")
                self._partial = partial[-self.width :]
                for line in complete:
                    self._keep(line)
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            pass
        finally:
            self._keep(self._partial)
            self.done.set()

    def _keep(self, line: bytes) -> None:
        text = line.decode(errors="replace").strip()
        if text:
            self.lines.append(text[: self.width])

    def text(self) -> str:
        return " | ".join(self.lines)


class _Batch:
    """Lines for one write to a server's stdin, and how that write went."""

    def __init__(self) -> None:
        self.lines: list[bytes] = []
        self.written = False
        self.failed = False


class ProcessEnd:
    """The client's end of a subprocess's stdin/stdout, one JSON message per line."""

    def __init__(
        self, process: trio.Process, stderr_tail: StderrTail | None = None, max_message_size: int | None = None
    ) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.process = process
        self.stderr_tail = stderr_tail  # (when the process's stderr is not this one's)
        # Without a limit, a line over 1 GiB is dropped; with one, a line over it ends the connection.
        self.max_message_size = max_message_size
        self._framer = LineFramer(max_message_size or 1 << 30)
        self._oversize: int | None = None
        self._lines: collections.deque[bytes] = collections.deque()
        self._sending = trio.StrictFIFOLock()  # (many requests share the pipe: one write at a time)
        self._batch: _Batch | None = None  # the lines waiting for the next write
        self._pipe = descriptor_of(process.stdin)  # (Unix: its pipe can be written to at once)

    async def send(self, frame: bytes) -> None:
        """Write one line: at once when no write is under way and the pipe takes it whole (the
        usual case, with no trip through the scheduler before the server is woken); else behind
        the write under way, in one write with the lines of the requests sent meanwhile."""
        assert self.process.stdin is not None
        if self._pipe is not None and self._batch is None and not self._sending.locked():
            rest = write_at_once(self._pipe, frame + b"\n")
            if rest:  # (the rest, before any later line)
                async with self._sending:
                    await self.process.stdin.send_all(rest)
            return
        batch = self._batch
        if batch is None:
            batch = self._batch = _Batch()
        batch.lines.append(frame)
        async with self._sending:
            if batch.written:  # (an earlier sender wrote it with its own)
                if batch.failed:
                    raise trio.BrokenResourceError("the write to the server failed")
                return
            self._batch = None
            batch.written = True
            try:
                await self.process.stdin.send_all(b"\n".join(batch.lines) + b"\n")
            except BaseException:
                batch.failed = True
                raise

    async def receive(self) -> bytes:
        assert self.process.stdout is not None
        while not self._lines:
            data = await self.process.stdout.receive_some(65536)
            if not data:
                raise trio.EndOfChannel
            for frame in self._framer.feed(data):
                if not isinstance(frame, Oversize):
                    self._lines.append(frame)
                elif self.max_message_size is not None:
                    self._oversize = frame.size
                    raise trio.EndOfChannel
        return self._lines.popleft()

    async def close(self) -> None:
        """Close the server's stdin: its signal to drain and exit."""
        assert self.process.stdin is not None
        await self.process.stdin.aclose()

    async def why_ended(self) -> str:
        """Why the server stopped answering, in one line: how it exited (waited for up to a second),
        and the last lines of its stderr when they were kept."""
        with trio.move_on_after(1):
            await self.process.wait()
            if self.stderr_tail is not None:
                await self.stderr_tail.done.wait()
        status = self.process.returncode
        if self._oversize is not None:
            why = f"the server sent a message of {self._oversize:,} bytes, over the limit of {self.max_message_size:,}"
        elif status is None:
            why = "the server closed its output"
        elif status < 0:
            why = f"the server was killed by {signal.Signals(-status).name}"
        else:
            why = f"the server exited with status {status}"
        said = self.stderr_tail.text() if self.stderr_tail is not None else ""
        return f"{why}; its stderr ended with: {said}" if said else why


@contextlib.asynccontextmanager
async def process_end(
    command: Sequence[str],
    *,
    stderr: Any = None,
    env: dict[str, str] | None = None,
    wait: float = 10,
    keep_stderr: bool = False,
    cwd: str | None = None,
    max_message_size: int | None = None,
) -> AsyncIterator[ProcessEnd]:
    """Spawn ``command`` and yield the client's end of its stdio.  On exit its stdin is closed
    (a server's signal to drain), and it gets ``wait`` seconds to exit before it is killed.
    ``keep_stderr``: its stderr is read here, not shared, and its last lines say why it ended
    (``ProcessEnd.why_ended``).  ``max_message_size``: a longer line ends the connection."""
    tail = StderrTail() if keep_stderr else None
    process = await trio.lowlevel.open_process(
        list(command),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE if tail is not None else stderr,
        env=env,
        cwd=cwd,
    )
    async with contextlib.AsyncExitStack() as stack:
        if tail is not None:
            assert process.stderr is not None
            reading = await stack.enter_async_context(trio.open_nursery())
            reading.start_soon(tail.read, process.stderr)
            stack.callback(reading.cancel_scope.cancel)  # (a child of the server's may hold its stderr open)
        end = ProcessEnd(process, tail, max_message_size)
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
async def open_process_client(
    command: Sequence[str],
    *,
    era: str = "legacy",
    initialize: bool = True,
    stderr: Any = None,
    env: dict[str, str] | None = None,
    **client_options: Any,
) -> AsyncIterator[RawClient]:
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
