"""A plain socket read and written at once (``mcptrio.direct_io``), as the HTTP server and client
use it: Trio's cancellation rule for a read, what a full, closed or reset socket gives."""

import socket as stdlib_socket
import ssl
import sys

import pytest
import trio
import trio.testing

from mcptrio.direct_io import plain_socket, read_now, receive_some, write_now


def pair() -> tuple[trio.socket.SocketType, trio.socket.SocketType]:
    return trio.socket.socketpair(stdlib_socket.AF_UNIX, stdlib_socket.SOCK_STREAM)


async def test_bytes_already_there_are_read_at_once_through_a_checkpoint():
    a, b = pair()
    with a, b:
        await b.send(b"ready")
        with trio.testing.assert_checkpoints():  # (the others get a turn, as Trio's read gives them)
            assert await receive_some(a, 100) == b"ready"


async def test_a_read_cancelled_before_it_starts_leaves_the_bytes_for_the_next_one():
    a, b = pair()
    with a, b:
        await b.send(b"pipelined")
        with trio.CancelScope() as scope:
            scope.cancel()
            await receive_some(a, 100)
            pytest.fail("read although cancelled")
        assert await receive_some(a, 100) == b"pipelined"


async def test_a_read_waits_for_bytes_and_sees_the_peer_close():
    a, b = pair()
    got: list[bytes] = []
    with a:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(lambda: _append(got, receive_some(a, 100)))
            await trio.testing.wait_all_tasks_blocked()
            assert got == []
            await b.send(b"late")
        b.close()
        assert got == [b"late"]
        assert await receive_some(a, 100) == b""


async def _append(into: list[bytes], reading) -> None:
    into.append(await reading)


async def test_nothing_there_is_none_and_a_full_socket_takes_nothing():
    a, b = pair()
    with a, b:
        assert read_now(a.fileno(), 100) is None
        chunk = b"x" * 65536
        taken = [write_now(b.fileno(), chunk) for _ in range(200)]
        assert taken[0] > 0 and taken[-1] == 0  # (nobody reads: it fills up, and then takes none)
        assert read_now(a.fileno(), 10) == b"x" * 10


async def test_a_write_to_a_socket_whose_peer_is_gone_is_an_os_error():
    a, b = pair()
    with b:
        a.close()
        with pytest.raises(OSError):
            write_now(b.fileno(), b"anyone?")


async def test_only_a_plain_socket_stream_on_a_platform_where_a_socket_is_a_descriptor_is_read_directly(monkeypatch):
    a, b = pair()
    plain = trio.SocketStream(a)
    with a, b:
        assert plain_socket(plain) is a
        tls = trio.SSLStream(plain, ssl.create_default_context(), server_hostname="localhost")
        assert plain_socket(tls) is None  # (the socket's bytes are not the stream's)
        monkeypatch.setattr(sys, "platform", "win32")
        assert plain_socket(plain) is None
