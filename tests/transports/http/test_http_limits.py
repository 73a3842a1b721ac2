"""Server-wide limits over HTTP answer 503 with Retry-After instead of growing without bound."""

import functools

import httpx
import trio

from mcptrio import SessionLimits
from mcptrio.transports.http import HttpConfig, serve_http

from .client import modern_tool

ACCEPT = {"accept": "application/json, text/event-stream"}


async def test_requests_beyond_the_server_limit_get_503(app):
    async with trio.open_nursery() as nursery:
        url = await nursery.start(
            functools.partial(
                serve_http, app, port=0, config=HttpConfig(max_requests=2), limits=SessionLimits(shutdown_grace=0.1)
            )
        )
        async with httpx.AsyncClient(timeout=10) as client:

            async def slow(n):
                body, headers = modern_tool("sleep", {"seconds": 2}, f"s{n}")
                await client.post(url, json=body, headers=headers)

            async with trio.open_nursery() as calls:
                calls.start_soon(slow, 1)
                calls.start_soon(slow, 2)
                with trio.fail_after(5):
                    while app.stats["started"] < 2:
                        await trio.sleep(0.01)
                body, headers = modern_tool("echo", {"text": "x"}, "third")
                busy = await client.post(url, json=body, headers=headers)
                assert busy.status_code == 503 and busy.headers["retry-after"] == "1"
                assert busy.json()["id"] == "third" and "server busy" in busy.json()["error"]["message"]
            body, headers = modern_tool("echo", {"text": "again"}, "fourth")
            assert (await client.post(url, json=body, headers=headers)).status_code == 200
        nursery.cancel_scope.cancel()


async def test_sessions_beyond_the_limit_get_503(app):
    async with trio.open_nursery() as nursery:
        url = await nursery.start(functools.partial(serve_http, app, port=0, config=HttpConfig(max_sessions=2)))
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}},
        }
        async with httpx.AsyncClient(timeout=10) as client:
            for _ in range(2):
                assert (await client.post(url, json=init, headers=ACCEPT)).status_code == 200
            refused = await client.post(url, json=init, headers=ACCEPT)
            assert refused.status_code == 503 and "retry-after" in refused.headers
            assert "too many sessions" in refused.json()["error"]["message"]
        nursery.cancel_scope.cancel()


async def test_a_body_that_never_arrives_gets_408(app):
    async with trio.open_nursery() as nursery:
        url = await nursery.start(functools.partial(serve_http, app, port=0, config=HttpConfig(body_timeout=0.5)))
        port = int(url.split(":")[2].split("/")[0])
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        await stream.send_all(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b'Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{"jsonrpc"'
        )
        answer = b""
        with trio.fail_after(5):
            while b"\r\n\r\n" not in answer:
                answer += await stream.receive_some(4096)
        assert answer.startswith(b"HTTP/1.1 408")
        await stream.aclose()
        nursery.cancel_scope.cancel()


async def test_a_request_head_that_trickles_in_is_cut_off(app):
    async with trio.open_nursery() as nursery:
        url = await nursery.start(functools.partial(serve_http, app, port=0, config=HttpConfig(header_timeout=0.5)))
        port = int(url.split(":")[2].split("/")[0])
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        started = trio.current_time()
        closed = False
        with trio.fail_after(5):
            try:
                for piece in (b"POST /mcp HTTP/1.1\r\n", b"Host: 127.0.0.1\r\n", b"X-Slow: 1\r\n") * 20:
                    await stream.send_all(piece)  # a slowloris client: a header line every 0.2 s
                    with trio.move_on_after(0.2):
                        if await stream.receive_some(4096) == b"":
                            closed = True
                            break
            except trio.BrokenResourceError:
                closed = True
        assert closed and trio.current_time() - started < 2
        await stream.aclose()
        nursery.cancel_scope.cancel()
