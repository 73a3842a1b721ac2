"""The lean HTTP/1.1 client (``mcptrio.client.http11``) against servers written here on real sockets:
chunked event streams, kept-alive connections used again, a server closing them, and answers
that are not HTTP."""

from __future__ import annotations

import ssl
from collections.abc import Awaitable, Callable

import pytest
import trio

from mcptrio.client import connect
from mcptrio.client.http11 import ConnectError, Pool, TransportError
from mcptrio.protocol.errors import McpError

Handler = Callable[[trio.SocketStream, int], Awaitable[None]]


async def read_request(stream: trio.SocketStream) -> bytes:
    """One request's head and body (a Content-Length one), bounded."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = await stream.receive_some(65536)
        if not chunk:
            return b""
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(body) < length:
        body += await stream.receive_some(65536)
    return head


class Server:
    """A TCP server on 127.0.0.1 whose connections ``handler`` serves (with their number)."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.connections = 0
        self.port = 0

    async def serve(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        self.port = listeners[0].socket.getsockname()[1]
        task_status.started()
        await trio.serve_listeners(self._one, listeners)

    async def _one(self, stream: trio.SocketStream) -> None:
        self.connections += 1
        async with stream:
            await self.handler(stream, self.connections)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"


def answer(body: bytes, *, close: bool = False) -> bytes:
    extra = b"connection: close\r\n" if close else b""
    return b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n%s\r\n%s" % (
        len(body),
        extra,
        body,
    )


async def keep_answering(stream: trio.SocketStream, number: int) -> None:
    for n in range(10):
        if not await read_request(stream):
            return
        await stream.send_all(answer(b'{"n": %d, "connection": %d}' % (n, number)))


def pool() -> Pool:
    return Pool(ssl.create_default_context(), connect_timeout=5)


async def test_an_event_stream_in_chunks_comes_out_line_by_line_whatever_the_chunks_cut():
    pieces = [b"id: 1\r", b'\ndata: {"a"', b": 1}\r\n\r\n", b"data: \xc3", b"\xa9t\xc3\xa9\n\n", b"data: last"]

    async def stream_events(stream: trio.SocketStream, number: int) -> None:
        await read_request(stream)
        await stream.send_all(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
        )
        for piece in pieces:
            await stream.send_all(b"%x\r\n%s\r\n" % (len(piece), piece))
            await trio.sleep(0.01)  # (each chunk its own read)
        await stream.send_all(b"0\r\n\r\n")

    server = Server(stream_events)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        client = pool()
        response = await client.open("POST", server.url, content=b"{}", headers={"accept": "text/event-stream"})
        assert response.headers["content-type"] == "text/event-stream"
        lines = [line async for line in response.aiter_lines()]
        await response.aclose()
        await client.aclose()
        nursery.cancel_scope.cancel()
    assert lines == ["id: 1", 'data: {"a": 1}', "", "data: été", "", "data: last"]


async def test_a_kept_alive_connection_is_used_again():
    server = Server(keep_answering)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        client = pool()
        first = await client.request("POST", server.url, content=b"{}", headers={})
        second = await client.request("POST", server.url, content=b"{}", headers={})
        await client.aclose()
        nursery.cancel_scope.cancel()
    assert (first.content, second.content) == (b'{"n": 0, "connection": 1}', b'{"n": 1, "connection": 1}')
    assert server.connections == 1


async def test_a_connection_the_server_closes_is_not_used_again():
    async def answer_once(stream: trio.SocketStream, number: int) -> None:
        await read_request(stream)
        await stream.send_all(answer(b'{"connection": %d}' % number, close=number == 1))
        if number == 2:  # (kept alive, then closed while idle)
            await trio.sleep(0.05)

    server = Server(answer_once)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        client = pool()
        answers = []
        for _ in range(3):
            answers.append((await client.request("POST", server.url, content=b"{}", headers={})).content)
            await trio.sleep(0.2)  # (the second connection is closed by now)
        await client.aclose()
        nursery.cancel_scope.cancel()
    assert answers == [b'{"connection": 1}', b'{"connection": 2}', b'{"connection": 3}']


async def test_an_answer_that_is_not_http_is_a_clear_error():
    async def garbage(stream: trio.SocketStream, number: int) -> None:
        await read_request(stream)
        await stream.send_all(b"SSH-2.0-OpenSSH_9.6\r\n\r\n")

    server = Server(garbage)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        client = pool()
        with pytest.raises(TransportError, match="HTTP answer is malformed"):
            await client.request("POST", server.url, content=b"{}", headers={})
        with trio.fail_after(10), pytest.raises(McpError, match="HTTP request failed: .*malformed"):
            async with connect(server.url, era="legacy"):
                pass
        await client.aclose()
        nursery.cancel_scope.cancel()


async def test_a_connection_refused_is_a_connect_error():
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    await listeners[0].aclose()  # (nothing listens there now)
    client = pool()
    with pytest.raises(ConnectError):
        await client.request("GET", f"http://127.0.0.1:{port}/mcp", headers={})


async def test_a_bearer_token_goes_on_every_request():
    seen: list[bytes] = []

    async def record(stream: trio.SocketStream, number: int) -> None:
        for _ in range(2):
            head = await read_request(stream)
            seen.extend(line for line in head.split(b"\r\n") if line.lower().startswith(b"authorization"))
            await stream.send_all(answer(b"{}"))

    tokens = iter(["one", "two"])

    async def token() -> str:
        return next(tokens)

    server = Server(record)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        client = Pool(ssl.create_default_context(), token=token)
        for _ in range(2):
            await client.request("POST", server.url, content=b"{}", headers={})
        await client.aclose()
        nursery.cancel_scope.cancel()
    assert seen == [b"authorization: Bearer one", b"authorization: Bearer two"]


@pytest.mark.parametrize(
    ("sent", "expected"),
    [
        (b'HTTP/1.0 200 OK\r\ncontent-type: application/json\r\n\r\n{"until": "closed"}', b'{"until": "closed"}'),
        (b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}", b"{}"),
        (b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n", "a chunk size b'zz'"),
        (b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n{}", "closed the connection before the end"),
        (b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "not a header line"),
    ],
)
async def test_each_framing_of_a_body_and_each_broken_one(sent, expected):
    async def send(stream: trio.SocketStream, number: int) -> None:
        await read_request(stream)
        await stream.send_all(sent)

    server = Server(send)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        client = pool()
        if isinstance(expected, bytes):
            assert (await client.request("POST", server.url, content=b"{}", headers={})).content == expected
        else:
            with pytest.raises(TransportError, match=expected):
                await client.request("POST", server.url, content=b"{}", headers={})
        await client.aclose()
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize(
    "headers",
    [
        {"x-evil": "a\r\nhost: elsewhere"},
        {"x-evil": "fine", "x-also": "b\nhost: elsewhere"},
        {"x evil": "a"},
        {"x-evil:": "a"},
    ],
)
async def test_a_header_with_a_line_break_or_a_name_not_a_token_is_refused_before_anything_is_sent(headers):
    client = pool()
    seen = {name: "fine" for name in headers}  # (the same names, fine values: its head is kept)
    with pytest.raises((ValueError, ConnectError)):
        await client.request("POST", "http://127.0.0.1:9/mcp", headers=seen)
    for _ in range(2):  # (again: a head refused is not kept)
        with pytest.raises(ValueError, match="not a valid HTTP header"):
            await client.request("POST", "http://127.0.0.1:9/mcp", headers=headers)


async def test_a_bearer_token_with_a_line_break_is_refused_without_being_repeated():
    client = Pool(ssl.create_default_context(), token="secret\r\nhost: elsewhere")
    with pytest.raises(ValueError, match="line break") as refused:
        await client.request("POST", "http://127.0.0.1:9/mcp", headers={})
    assert "secret" not in str(refused.value)


async def test_each_request_carries_its_own_header_values_and_length():
    seen: list[bytes] = []

    async def record(stream: trio.SocketStream, number: int) -> None:
        for _ in range(3):
            head = await read_request(stream)
            seen.append(
                b"|".join(
                    sorted(line for line in head.split(b"\r\n")[1:] if line.startswith((b"mcp-", b"content-length")))
                )
            )
            await stream.send_all(answer(b"{}"))

    server = Server(record)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        client = pool()
        for session, body in (("a", b"{}"), ("b", b"{}"), ("b", b'{"x":1}')):
            response = await client.request("POST", server.url, content=body, headers={"mcp-session-id": session})
            assert response.content == b"{}"
        await client.aclose()
        nursery.cancel_scope.cancel()
    assert seen == [
        b"content-length: 2|mcp-session-id: a",
        b"content-length: 2|mcp-session-id: b",
        b"content-length: 7|mcp-session-id: b",
    ]
