"""mcptrio's HTTP/1.1 server (``transports/http/server/http11_server.py``) as a plain ASGI server, over real
sockets on 127.0.0.1: keep-alive and pipelining, refusals of bad input, the ASGI receive/send
contract (disconnects, mid-response failures, 100-continue, HEAD), timeouts and the drain.
The MCP endpoint on it is what the rest of tests/http exercises."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import h11
import pytest
import trio
import trio.testing

from mcptrio.transports.http.server.http11_server import Http11Server


class Recorder:
    """A small ASGI app: echoes the body, and does what the request's path asks."""

    def __init__(self) -> None:
        self.events: list[Any] = []
        self.release = trio.Event()
        self.slow_started = trio.Event()
        self.lifespan: list[str] = []
        self.paths: list[str] = []  # the requests' paths, in the order the app was called
        self.arrived: dict[str, trio.Event] = {}  # set when a request for its path reaches the app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                self.lifespan.append(message["type"])
                await send({"type": message["type"] + ".complete"})
                if message["type"] == "lifespan.shutdown":
                    return
        path = scope["path"]
        self.paths.append(path)
        if path in self.arrived:
            self.arrived[path].set()
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        if path == "/raise":
            raise RuntimeError("the app failed")
        if path == "/half":  # starts a streamed body, then fails
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"partial", "more_body": True})
            raise RuntimeError("the app failed mid-response")
        if path == "/inject":  # a header value that would split the response
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"x-name", body + b"\r\nset-cookie: stolen=1")],
                }
            )
            await send({"type": "http.response.body", "body": b"never"})
            return
        if path == "/too-long":  # more body than its Content-Length
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
            await send({"type": "http.response.body", "body": b"four"})
            return
        if path == "/stream":
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"one,", "more_body": True})
            await send({"type": "http.response.body", "body": b"two", "more_body": False})
            return
        if path == "/wait-disconnect":
            self.events.append(await receive())
            return
        if path == "/slow":
            self.slow_started.set()
            await self.release.wait()
        if path.startswith("/watched/"):
            # Answered while a watcher waits for a disconnect (the server reads the socket for it),
            # after as many turns of the scheduler as the path says.
            await self.release.wait()
            async with trio.open_nursery() as nursery:
                nursery.start_soon(receive)
                for _ in range(int(path.rsplit("/", 1)[1])):
                    await trio.sleep(0)
                await send({"type": "http.response.start", "status": 200, "headers": []})
                await send({"type": "http.response.body", "body": b"watched"})
                nursery.cancel_scope.cancel()
            return
        headers = [(b"content-type", b"text/plain")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send(
            {"type": "http.response.body", "body": scope["method"].encode() + b" " + path.encode() + b" " + body}
        )
        if path == "/after":  # ASGI: a receive after the response is complete is a disconnect, at once
            self.events.append(await receive())


@contextlib.asynccontextmanager
async def served(app: Any, **options: Any) -> AsyncIterator[tuple[int, trio.Event]]:
    stop = trio.Event()
    server = Http11Server(app, **options)
    async with trio.open_nursery() as nursery:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        await nursery.start(server.serve, listeners, stop.wait)
        yield listeners[0].socket.getsockname()[1], stop
        stop.set()


class Client:
    """An HTTP/1.1 client on one connection, h11 writing the requests and reading the answers."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.h11 = h11.Connection(h11.CLIENT)

    async def send(
        self, method: str, target: str, body: bytes | None = b"", headers: list[tuple[str, str]] = (), end: bool = True
    ) -> None:
        """A request; with ``body=None`` its head only (the body follows with ``send_body``)."""
        framing = (
            []
            if any(name.lower() in ("transfer-encoding", "content-length") for name, _ in headers)
            else [("Content-Length", str(len(body or b"")))]
        )
        data = self.h11.send(
            h11.Request(method=method, target=target, headers=[("Host", "127.0.0.1"), *framing, *headers])
        )
        await self.stream.send_all(data or b"")
        if body is not None:
            await self.send_body(body, end=end)

    async def send_body(self, body: bytes, end: bool = True) -> None:
        data = self.h11.send(h11.Data(data=body)) if body else b""
        if end:
            data = (data or b"") + (self.h11.send(h11.EndOfMessage()) or b"")
        await self.stream.send_all(data or b"")

    async def next_event(self) -> Any:
        while True:
            event = self.h11.next_event()
            if event is not h11.NEED_DATA:
                return event
            self.h11.receive_data(await self.stream.receive_some(65536))

    async def answer(self) -> tuple[int, dict[bytes, bytes], bytes]:
        """The next whole response (status, headers, body); h11 raises if it is cut short."""
        status, headers, body = 0, {}, b""
        with trio.fail_after(5):
            while True:
                event = await self.next_event()
                if isinstance(event, h11.Response):
                    status, headers = event.status_code, dict(event.headers)
                elif isinstance(event, h11.Data):
                    body += event.data
                elif isinstance(event, h11.EndOfMessage):
                    if self.h11.our_state is h11.DONE and self.h11.their_state is h11.DONE:
                        self.h11.start_next_cycle()
                    return status, headers, body
                elif isinstance(event, h11.ConnectionClosed):
                    raise EOFError("closed")

    async def closed(self) -> bool:
        """True once the server has closed the connection (EOF), within 60 s (of a MockClock too)."""
        with trio.move_on_after(60):
            while True:
                try:
                    if not await self.stream.receive_some(65536):
                        return True
                except trio.BrokenResourceError:
                    return True
        return False


async def connect(port: int) -> Client:
    return Client(await trio.open_tcp_stream("127.0.0.1", port))


async def raw_exchange(port: int, data: bytes) -> bytes:
    """Send bytes as they are, read until the server closes (bounded): all it wrote."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    await stream.send_all(data)
    received = b""
    with trio.fail_after(5):
        while chunk := await stream.receive_some(65536):
            received += chunk
    await stream.aclose()
    return received


def parse(raw: bytes) -> tuple[int, dict[bytes, bytes], bytes]:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    headers = dict(line.lower().split(b": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


def request(method: str, path: str, body: bytes = b"") -> bytes:
    return f"{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body


async def test_keep_alive_and_pipelined_requests_are_answered_in_order() -> None:
    async with served(Recorder()) as (port, _):
        client = await connect(port)
        for n in range(3):
            await client.send("POST", f"/one/{n}", f"body {n}".encode())
            status, headers, body = await client.answer()
            assert (status, body) == (200, f"POST /one/{n} body {n}".encode())
            assert headers[b"content-length"] == str(len(body)).encode() and b"date" in headers
        await client.stream.aclose()
        # two requests in one write, then a third that closes: all answered, in order, on one connection
        raw = await raw_exchange(
            port,
            request("POST", "/a", b"1")
            + request("GET", "/b%20c?x=1")
            + b"GET /last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        )
        assert raw.count(b"HTTP/1.1 200 OK\r\n") == 3
        assert raw.index(b"POST /a 1") < raw.index(b"GET /b c ") < raw.index(b"GET /last ")


async def test_a_request_that_comes_while_the_one_before_is_answered_is_not_lost() -> None:
    """The next request's bytes are read by the task that watches for a disconnect; when the answer
    ends that task at the moment it has read them, they are kept for the next request."""
    app = Recorder()
    async with served(app) as (port, _):
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        received = b""
        for n in range(40):
            watched = f"/watched/{n % 5}"
            app.arrived[watched], app.release = trio.Event(), trio.Event()
            await stream.send_all(request("GET", watched))
            await app.arrived[watched].wait()
            await stream.send_all(request("GET", f"/next/{n}"))
            await trio.sleep(0.005)  # (in the server's socket before the answer starts)
            app.release.set()
            with trio.fail_after(5):
                while f"GET /next/{n} ".encode() not in received:
                    received += await stream.receive_some(65536)
        assert received.count(b"HTTP/1.1 200 OK\r\n") == 80
        await stream.aclose()


async def test_a_chunked_body_is_read_whole() -> None:
    async with served(Recorder()) as (port, _):
        client = await connect(port)
        await client.send("POST", "/c", None, [("Transfer-Encoding", "chunked")])
        await client.send_body(b"hello", end=False)
        await client.send_body(b" world")
        assert (await client.answer())[2] == b"POST /c hello world"


@pytest.mark.parametrize(
    "data, status",
    [
        (b"NOT HTTP AT ALL\r\n\r\n", 400),
        (b"GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n", 400),
        (b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 200_000 + b"\r\n\r\n", 431),
    ],
)
async def test_a_request_h11_refuses_gets_its_status_with_a_reason_and_the_connection_closes(
    data: bytes, status: int
) -> None:
    async with served(Recorder()) as (port, _):
        got, headers, body = parse(await raw_exchange(port, data))  # (read until the server closed)
        assert got == status and headers[b"connection"] == b"close"
        assert body.startswith(f"{status} ".encode()) and len(body.splitlines()) == 1 and len(body) > 20
        # the server goes on serving others
        other = await connect(port)
        await other.send("GET", "/fine")
        assert (await other.answer())[0] == 200


async def test_an_app_that_fails_before_answering_gives_500_and_the_server_goes_on(caplog) -> None:
    async with served(Recorder()) as (port, _):
        status, headers, body = parse(await raw_exchange(port, request("POST", "/raise")))
        assert (status, body) == (500, b"Internal Server Error") and headers[b"connection"] == b"close"
        other = await connect(port)
        await other.send("GET", "/fine")
        assert (await other.answer())[0] == 200
    assert "the ASGI app failed on POST /raise" in caplog.text


async def test_an_app_that_fails_mid_response_closes_the_connection_so_the_cut_is_seen() -> None:
    async with served(Recorder()) as (port, _):
        client = await connect(port)
        await client.send("GET", "/half")
        with pytest.raises(h11.RemoteProtocolError):  # a chunked body that never ends: h11 says so at EOF
            await client.answer()


async def test_receive_after_the_response_is_a_disconnect_at_once() -> None:
    app = Recorder()
    async with served(app) as (port, _):
        client = await connect(port)
        await client.send("GET", "/after")
        assert (await client.answer())[0] == 200
        await client.send("GET", "/next")  # the connection is still good
        assert (await client.answer())[2] == b"GET /next "
    assert app.events == [{"type": "http.disconnect"}]


async def test_a_client_that_closes_while_the_app_waits_is_a_disconnect() -> None:
    app = Recorder()
    async with served(app) as (port, _):
        client = await connect(port)
        await client.send("POST", "/wait-disconnect", b"x")
        await trio.sleep(0.05)
        assert app.events == []  # still waiting: the client is there
        await client.stream.aclose()
        with trio.fail_after(5):
            while not app.events:
                await trio.sleep(0.01)
    assert app.events == [{"type": "http.disconnect"}]


async def test_expect_100_continue_is_answered_before_the_body_is_read() -> None:
    async with served(Recorder()) as (port, _):
        client = await connect(port)
        await client.send("POST", "/e", None, [("Content-Length", "4"), ("Expect", "100-continue")])
        with trio.fail_after(5):
            interim = await client.next_event()
        assert isinstance(interim, h11.InformationalResponse) and interim.status_code == 100
        await client.send_body(b"body")
        status, _, body = await client.answer()
        assert (status, body) == (200, b"POST /e body")


async def test_head_gets_headers_only() -> None:
    async with served(Recorder()) as (port, _):
        client = await connect(port)
        await client.send("HEAD", "/h")
        status, headers, body = await client.answer()
        assert status == 200 and body == b"" and int(headers[b"content-length"]) > 0
        await client.send("GET", "/h2")  # and the connection goes on
        assert (await client.answer())[2] == b"GET /h2 "


async def test_an_idle_connection_and_a_slow_head_are_closed_after_the_header_timeout(autojump_clock) -> None:
    async with served(Recorder(), header_timeout=30) as (port, _):
        idle = await connect(port)
        slow = await connect(port)
        await slow.stream.send_all(b"GET / HTTP/1.1\r\n")  # half a head, never finished
        start = trio.current_time()
        assert await idle.closed() and await slow.closed()
        assert 30 <= trio.current_time() - start < 31
        busy = await connect(port)  # a request running longer than the timeout is not cut
        await busy.send("GET", "/slow")
        await trio.sleep(100)
        assert busy.h11.their_state is not h11.DONE


async def test_between_requests_the_keep_alive_timeout_holds_and_a_started_head_gets_the_header_timeout(
    autojump_clock,
) -> None:
    async with served(Recorder(), header_timeout=30, keep_alive_timeout=600) as (port, _):
        kept, slow = await connect(port), await connect(port)
        for client in (kept, slow):
            await client.send("GET", "/first")
            assert (await client.answer())[0] == 200
        start = trio.current_time()
        await trio.sleep(500)  # idle longer than a head may take, within the keep-alive timeout
        await kept.send("GET", "/second")
        assert (await kept.answer())[2] == b"GET /second "
        await slow.stream.send_all(b"GET / HTTP/1.1\r\n")  # half a head: due within 30 s of its first bytes
        assert await slow.closed() and 530 <= trio.current_time() - start < 531
        await trio.sleep(560)
        assert await kept.closed() and 1100 <= trio.current_time() - start < 1101  # (600 s after its answer)


async def test_a_keep_alive_timeout_of_zero_closes_a_connection_once_answered(autojump_clock) -> None:
    # (no keep-alive: the connection ends at the next look for overdue heads, and the looks do not
    # turn into a busy loop: once it is closed, no task of the server is left ready to run)
    async with served(Recorder(), keep_alive_timeout=0) as (port, _):
        client = await connect(port)
        await client.send("GET", "/only")
        assert (await client.answer())[0] == 200
        start = trio.current_time()
        assert await client.closed()
        assert trio.current_time() - start <= 0.25
        ready = []
        for _ in range(20):
            await trio.sleep(0)
            ready.append(trio.lowlevel.current_statistics().tasks_runnable)
        assert ready[-10:] == [0] * 10, ready  # (the connection's own task may take a turn to end)


async def test_the_drain_finishes_a_running_request_closes_idle_connections_and_stops_accepting() -> None:
    app = Recorder()
    async with served(app, graceful_timeout=10) as (port, stop):
        busy, idle = await connect(port), await connect(port)
        await busy.send("GET", "/slow")
        await idle.send("GET", "/quick")
        assert (await idle.answer())[0] == 200
        await trio.sleep(0.05)
        stop.set()
        assert await idle.closed()  # idle: closed at once
        with pytest.raises(OSError):
            await trio.open_tcp_stream("127.0.0.1", port)  # no longer accepting
        app.release.set()
        status, headers, body = await busy.answer()  # the running request is answered, then closed
        assert (status, body, headers[b"connection"]) == (200, b"GET /slow ", b"close")
        assert await busy.closed()
    assert app.lifespan == ["lifespan.startup", "lifespan.shutdown"]


async def test_a_client_pipelining_many_requests_does_not_hold_the_others_up() -> None:
    """Answers are written without a trip through the scheduler, so a connection with requests
    already read yields before each next one: another client's request is served among them."""
    app = Recorder()
    tenth = app.arrived["/greedy/10"] = trio.Event()
    async with served(app) as (port, _):
        other = await trio.open_tcp_stream("127.0.0.1", port)
        greedy = await trio.open_tcp_stream("127.0.0.1", port)
        received = b""
        with trio.fail_after(5):
            await greedy.send_all(b"".join(request("GET", f"/greedy/{n}") for n in range(400)))
            await tenth.wait()  # (the greedy client is being served: now the other one asks)
            await other.send_all(request("GET", "/other"))
            while received.count(b"HTTP/1.1 200 OK\r\n") < 400:
                received += await greedy.receive_some(1 << 20)
            assert b"GET /other" in await other.receive_some(65536)
        await greedy.aclose()
        await other.aclose()
    assert app.paths.index("/other") < 300, app.paths


async def test_the_drain_finishes_a_pipelined_request_too() -> None:
    """A request that arrived with the one before it (no read of its own) is running, not idle."""
    app = Recorder()
    async with served(app, graceful_timeout=10) as (port, stop):
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        await stream.send_all(request("GET", "/quick") + request("GET", "/slow"))
        with trio.fail_after(5):
            await app.slow_started.wait()
        stop.set()
        await trio.sleep(0.05)
        app.release.set()
        received = b""
        with trio.fail_after(5):
            while chunk := await stream.receive_some(65536):
                received += chunk
    assert received.count(b"HTTP/1.1 200 OK\r\n") == 2 and received.endswith(b"GET /slow "), received
    assert b"connection: close" in received.split(b"GET /quick ")[1]


async def test_an_app_without_a_lifespan_is_served() -> None:
    async def plain(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError("no lifespan here")
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async with served(plain) as (port, _):
        client = await connect(port)
        await client.send("DELETE", "/x")
        status, headers, body = await client.answer()
        assert status == 204 and body == b"" and b"content-length" not in headers


async def test_the_scope_says_who_is_where() -> None:
    seen: list[dict[str, Any]] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            seen.append(scope)
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})

    async with served(app) as (port, _):
        client = await connect(port)
        await client.send("GET", "/p%C3%A4th?q=1", headers=[("X-Thing", "One")])
        await client.answer()
    scope = seen[0]
    assert scope["path"] == "/päth" and scope["raw_path"] == b"/p%C3%A4th" and scope["query_string"] == b"q=1"
    assert (b"x-thing", b"One") in scope["headers"]
    assert scope["client"][0] == "127.0.0.1" and scope["server"] == ("127.0.0.1", port)
    assert scope["http_version"] == "1.1" and scope["method"] == "GET"


async def test_a_streamed_body_is_chunked_for_http11_and_ends_with_the_connection_for_http10() -> None:
    async with served(Recorder()) as (port, _):
        client = await connect(port)
        await client.send("GET", "/stream")
        status, headers, body = await client.answer()
        assert (status, body, headers[b"transfer-encoding"]) == (200, b"one,two", b"chunked")
        raw = await raw_exchange(port, b"GET /stream HTTP/1.0\r\n\r\n")  # (read until the server closed)
        status, headers, body = parse(raw)
        assert (status, body, headers[b"connection"]) == (200, b"one,two", b"close")
        assert b"transfer-encoding" not in headers


async def test_connection_close_from_the_client_is_honoured() -> None:
    async with served(Recorder()) as (port, _):
        client = await connect(port)
        await client.send("GET", "/bye", headers=[("Connection", "close")])
        status, headers, _ = await client.answer()
        assert status == 200 and headers[b"connection"] == b"close"
        assert await client.closed()


@pytest.mark.parametrize("path", ["/inject", "/too-long"])
async def test_a_response_that_breaks_http_framing_is_never_written(path: str, caplog) -> None:
    """A header carrying CR/LF (response splitting) or a body longer than its Content-Length: the
    app's failure, logged; nothing of it was written, so the client gets a 500 instead (once
    something was, it gets a cut connection: test_an_app_that_fails_mid_response...)."""
    async with served(Recorder()) as (port, _):
        raw = await raw_exchange(port, request("POST", path, b"v"))
        status, headers, body = parse(raw)
        assert (status, body, headers[b"connection"]) == (500, b"Internal Server Error", b"close")
        assert b"set-cookie" not in raw.lower() and b"stolen" not in raw
        other = await connect(port)
        await other.send("GET", "/fine")
        assert (await other.answer())[0] == 200
    assert f"the ASGI app failed on POST {path}" in caplog.text
