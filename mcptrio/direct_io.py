"""A plain TCP socket read and written with system calls made at once, by the HTTP server and the
HTTP client alike (and stdio's pipes written so, ``write_now``).

Trio's stream calls pass through five wrappers and, after each call that succeeds, through the
scheduler; an exchange of one small message each way spends more there than in the system calls.
Here the call is made at once and waits only when the socket is not ready.  Only a plain TCP
stream where a socket is a file descriptor: with TLS the socket's bytes are not the stream's, and
on Windows ``os.read``/``os.write`` do not take a socket.
"""

from __future__ import annotations

import os
import sys

import trio


def plain_socket(stream: trio.abc.Stream) -> trio.socket.SocketType | None:
    """The socket under ``stream`` if it is read and written here (a plain TCP stream, not on
    Windows); None otherwise."""
    if sys.platform != "win32" and isinstance(stream, trio.SocketStream):
        return stream.socket
    return None


def read_now(fd: int, size: int) -> bytes | None:
    """Up to ``size`` bytes of what the socket holds (empty: the peer closed it), without waiting;
    None when nothing has come.  A reset is an ``OSError``, as from ``os.read``."""
    try:
        return os.read(fd, size)
    except BlockingIOError:
        return None


def write_now(fd: int, data: bytes | bytearray) -> int:
    """How many bytes of ``data`` the socket (or pipe) takes at once (0: it is full).  A reset, or a
    descriptor closed under it, is an ``OSError``, as from ``os.write``."""
    try:
        return os.write(fd, data)
    except BlockingIOError:
        return 0


async def receive_some(socket: trio.socket.SocketType, size: int) -> bytes:
    """As Trio's ``receive_some``: what has come (empty: the peer closed), waiting when nothing
    has.  A cancellation is taken before anything is read, never after: bytes read are returned
    (a pipelined request, or the next message, read just as its reader was cancelled, would be
    lost).  ``OSError`` for a reset; ``ClosedResourceError`` when the socket is closed meanwhile."""
    await trio.lowlevel.checkpoint_if_cancelled()
    data = read_now(socket.fileno(), size)
    if data is not None:
        await trio.lowlevel.cancel_shielded_checkpoint()  # (it was there already: the others get a turn)
        return data
    while True:
        await trio.lowlevel.wait_readable(socket)
        data = read_now(socket.fileno(), size)
        if data is not None:
            return data
