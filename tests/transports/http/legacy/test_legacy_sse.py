"""The 2024-11-05 HTTP+SSE transport on the real HTTP server: off by default, on with the flag."""

import functools

import httpx
import trio

from mcptrio.transports.http import HttpConfig, serve_http

from ....runtime.apps import build_app


async def data_lines(lines, count):
    found = []
    async for line in lines:
        if line.startswith("data: "):
            found.append(line[6:])
            if len(found) == count:
                return found
    raise AssertionError("stream ended early")


async def test_endpoint_event_then_messages_on_the_stream():
    app = build_app()
    async with trio.open_nursery() as nursery:
        url = await nursery.start(functools.partial(serve_http, app, port=0, config=HttpConfig(legacy_sse=True)))
        base = url.rsplit("/mcp", 1)[0]
        with trio.fail_after(10):
            async with httpx.AsyncClient(timeout=5) as client:
                async with client.stream("GET", base + "/mcp/sse") as stream:
                    assert stream.headers["content-type"] == "text/event-stream"
                    lines = stream.aiter_lines()
                    [endpoint] = await data_lines(lines, 1)
                    assert endpoint.startswith("/mcp/messages?session_id=")
                    post = await client.post(
                        base + endpoint,
                        json={
                            "jsonrpc": "2.0",
                            "id": 1,
                            "method": "initialize",
                            "params": {"protocolVersion": "2024-11-05", "capabilities": {}},
                        },
                    )
                    assert post.status_code == 202
                    [init] = await data_lines(lines, 1)
                    assert '"protocolVersion":"2024-11-05"' in init
                    await client.post(base + endpoint, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
                    await client.post(
                        base + endpoint,
                        json={
                            "jsonrpc": "2.0",
                            "id": 2,
                            "method": "tools/call",
                            "params": {"name": "echo", "arguments": {"text": "old client"}},
                        },
                    )
                    [answer] = await data_lines(lines, 1)
                    assert '"id":2' in answer and "old client" in answer
                unknown = await client.post(
                    base + "/mcp/messages?session_id=nope", json={"jsonrpc": "2.0", "id": 3, "method": "ping"}
                )
                assert unknown.status_code == 404
        nursery.cancel_scope.cancel()


async def test_off_by_default():
    app = build_app()
    async with trio.open_nursery() as nursery:
        url = await nursery.start(functools.partial(serve_http, app, port=0))
        base = url.rsplit("/mcp", 1)[0]
        async with httpx.AsyncClient(timeout=5) as client:
            response = await client.get(base + "/mcp/sse", headers={"accept": "text/event-stream"})
            assert response.status_code == 404
        nursery.cancel_scope.cancel()
