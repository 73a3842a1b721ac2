"""stdio: newline-delimited JSON on the process's stdin/stdout.

Only MCP messages may reach stdout, so while serving, file descriptor 1 is pointed at stderr
(``print()`` in a handler lands there) and messages go out through a private duplicate of the
original stdout.  Reads and writes use non-blocking ``trio.lowlevel.FdStream``s where Trio has
them (Unix); elsewhere (Windows), or when asked (``MCPTRIO_STDIO=threads``, or ``threads=True``),
blocking reads and writes of the binary descriptors in worker threads (``trio.to_thread``), with
the same framing, limits and stdout guarantee.
"""

from __future__ import annotations

import collections
import contextlib
import errno
import functools
import os
import sys
from collections.abc import Iterator

import outcome
import trio

from ..direct_io import write_now
from ..framing import DEFAULT_MAX_MESSAGE_SIZE, LineFramer, Oversize

READ_SIZE = 65536


def descriptor_of(stream: object) -> trio.lowlevel.FdStream | None:
    """``stream`` if it is a descriptor (a pipe or a file, on Unix) that ``write_at_once`` can write to."""
    if sys.platform != "win32" and isinstance(stream, trio.lowlevel.FdStream):
        return stream
    return None


def write_at_once(stream: trio.lowlevel.FdStream, data: bytes) -> bytes:
    """Write what the descriptor takes now, with no trip through the scheduler first (Trio's
    ``send_all`` makes one); what it did not take, for ``send_all``.  Fails as ``send_all`` would."""
    try:
        return data[write_now(stream.fileno(), data) :]  # (full, the reader behind: nothing taken)
    except OSError as exc:
        if exc.errno == errno.EBADF:
            raise trio.ClosedResourceError("the descriptor was closed") from None
        raise trio.BrokenResourceError(f"the write failed: {exc}") from exc


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
        self._out_fd = descriptor_of(send_stream)
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
        await self._send_all(data + b"\n")

    async def send_many(self, frames: list[bytes]) -> None:
        frames.append(b"")
        await self._send_all(b"\n".join(frames))

    async def _send_all(self, data: bytes) -> None:
        """Write ``data``: on a descriptor, what it takes at once with no trip through the scheduler
        first (Trio's ``send_all`` makes one), the rest as it can (the session's writer is the one
        caller at a time)."""
        if self._out_fd is not None:
            data = write_at_once(self._out_fd, data)
            if not data:
                return
        await self._out.send_all(data)

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


class ThreadReceiveStream(trio.abc.ReceiveStream):
    """Reads of a file descriptor in a worker thread: for where Trio has no ``FdStream``.  One read
    is in flight at a time; a caller that gives up waiting leaves it running, and the next call
    takes what it read (nothing read is lost to a cancellation)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._done: trio.Event | None = None  # set when the read in flight has ended
        self._outcome: outcome.Outcome[bytes] | None = None

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if self._done is None:
            done = self._done = trio.Event()
            token, size = trio.lowlevel.current_trio_token(), max_bytes or READ_SIZE

            def arrived(result: outcome.Outcome[bytes]) -> None:
                with contextlib.suppress(trio.RunFinishedError):  # (the server has stopped: nobody waits)
                    token.run_sync_soon(self._arrived, done, result)

            trio.lowlevel.start_thread_soon(functools.partial(os.read, self.fd, size), arrived)
        await self._done.wait()
        self._done = None
        result, self._outcome = self._outcome, None
        assert result is not None
        return result.unwrap()

    def _arrived(self, done: trio.Event, result: outcome.Outcome[bytes]) -> None:
        self._outcome = result
        done.set()

    async def aclose(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)
        await trio.lowlevel.checkpoint()


class ThreadSendStream(trio.abc.SendStream):
    """Writes to a file descriptor in a worker thread, one at a time and each whole (a write is
    never abandoned halfway: that would cut a message)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._writing = trio.StrictFIFOLock()

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        async with self._writing:
            await trio.to_thread.run_sync(_write_all, self.fd, bytes(data))

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def aclose(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)
        await trio.lowlevel.checkpoint()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def threads_wanted(threads: bool | None = None) -> bool:
    """Whether stdio goes through worker threads: asked (``threads``, else ``MCPTRIO_STDIO=threads``),
    or where Trio has no ``FdStream`` (Windows)."""
    if threads is not None:
        return threads
    return os.environ.get("MCPTRIO_STDIO") == "threads" or not hasattr(trio.lowlevel, "FdStream")


def open_stdio_stream(
    message_fd: int, max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE, *, threads: bool | None = None
) -> LineMessageStream:
    """A message stream on a duplicate of stdin and on ``message_fd`` (which it takes over);
    ``threads``: see ``threads_wanted``."""
    stdin = os.dup(0)
    if threads_wanted(threads):
        if sys.platform == "win32":  # (bytes as they are: no newline translation on the way)
            import msvcrt

            msvcrt.setmode(stdin, os.O_BINARY)
            msvcrt.setmode(message_fd, os.O_BINARY)
        return LineMessageStream(ThreadReceiveStream(stdin), ThreadSendStream(message_fd), max_message_size)
    return LineMessageStream(trio.lowlevel.FdStream(stdin), trio.lowlevel.FdStream(message_fd), max_message_size)
