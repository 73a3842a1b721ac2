"""The WebSocket transport (subprotocol ``mcp``): both eras over one connection, upgrade checks, size limit."""

import base64
import json
import os
from urllib.parse import urlsplit

import pytest
import trio
from trio_websocket import ConnectionClosed, ConnectionRejected, open_websocket_url

from mcptrio import SessionLimits

from .http.client import (
    CLIENT_INFO,
    LEGACY,
    META_SERVER_INFO,
    call_tool,
    modern_tool,
    notification,
    rpc,
    text_of,
    wait_until,
    ws_server,
)


async def exchange(ws, message, request_id):
    """Send one message; return the messages received up to the response to ``request_id``."""
    await ws.send_message(json.dumps(message))
    out = []
    while True:
        received = json.loads(await ws.get_message())
        out.append(received)
        if received.get("id") == request_id and "method" not in received:
            return out


async def test_legacy_initialize_and_call_over_one_connection(app):
    async with ws_server(app) as url:
        with trio.fail_after(10):
            async with open_websocket_url(url, subprotocols=["mcp"]) as ws:
                assert ws.subprotocol == "mcp"
                params = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": CLIENT_INFO}
                [init] = await exchange(ws, rpc("initialize", params, 0), 0)
                assert init["result"]["protocolVersion"] == LEGACY
                assert init["result"]["serverInfo"]["name"] == "test-server"
                await ws.send_message(json.dumps(notification("notifications/initialized")))
                [echo] = await exchange(ws, call_tool("echo", {"text": "over ws"}, 1), 1)
                assert text_of(echo) == "over ws"
                messages = await exchange(ws, call_tool("count", {"steps": 2}, 2, progress_token="w"), 2)
                assert [m["params"]["progress"] for m in messages[:-1]] == [1, 2]
                assert text_of(messages[-1]) == "counted"


async def test_modern_request_over_websocket(app):
    async with ws_server(app) as url:
        with trio.fail_after(10):
            async with open_websocket_url(url, subprotocols=["mcp"]) as ws:
                body, _headers = modern_tool("echo", {"text": "modern ws"}, "m1")
                [answer] = await exchange(ws, body, "m1")
    assert answer["result"]["resultType"] == "complete"
    assert answer["result"]["_meta"][META_SERVER_INFO]["name"] == "test-server"
    assert text_of(answer) == "modern ws"


async def test_legacy_elicitation_over_websocket(app):
    async with ws_server(app) as url:
        with trio.fail_after(10):
            async with open_websocket_url(url, subprotocols=["mcp"]) as ws:
                params = {"protocolVersion": LEGACY, "capabilities": {"elicitation": {}}, "clientInfo": CLIENT_INFO}
                await exchange(ws, rpc("initialize", params, 0), 0)
                await ws.send_message(json.dumps(notification("notifications/initialized")))
                await ws.send_message(json.dumps(call_tool("ask_name", {}, 5)))
                ask = json.loads(await ws.get_message())
                assert ask["method"] == "elicitation/create"
                reply = {"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"name": "Lin"}}}
                [final] = await exchange(ws, reply, 5)
    assert text_of(final) == "hello Lin"


async def test_bad_origin_on_upgrade_is_rejected_403(app):
    async with ws_server(app) as url:
        with trio.fail_after(10):
            with pytest.raises(ConnectionRejected) as info:
                async with open_websocket_url(
                    url, subprotocols=["mcp"], extra_headers=[(b"origin", b"http://evil.example")]
                ):
                    pass
    assert info.value.status_code == 403


async def test_loopback_origin_on_upgrade_is_accepted(app):
    async with ws_server(app) as url:
        with trio.fail_after(10):
            async with open_websocket_url(
                url, subprotocols=["mcp"], extra_headers=[(b"origin", b"http://localhost:3000")]
            ) as ws:
                [pong] = await exchange(ws, rpc("ping", {}, 1), 1)
    assert pong == {"jsonrpc": "2.0", "id": 1, "result": {}}


async def test_missing_subprotocol_is_refused(app):
    async with ws_server(app) as url:
        with trio.fail_after(10):
            with pytest.raises(ConnectionRejected) as info:
                async with open_websocket_url(url):
                    pass
            with pytest.raises(ConnectionRejected) as other:
                async with open_websocket_url(url, subprotocols=["not-mcp"]):
                    pass
    assert 400 <= info.value.status_code < 500
    assert 400 <= other.value.status_code < 500


async def test_bad_host_on_upgrade_is_refused(app):
    """A raw upgrade request with a foreign Host header (trio-websocket always sends the URL's host)."""
    async with ws_server(app) as url:
        parts = urlsplit(url)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET {parts.path} HTTP/1.1\r\nHost: evil.example\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Sec-WebSocket-Protocol: mcp\r\n\r\n"
        ).encode()
        with trio.fail_after(10):
            stream = await trio.open_tcp_stream(parts.hostname, parts.port)
            async with stream:
                await stream.send_all(request)
                head = b""
                while b"\r\n" not in head:
                    chunk = await stream.receive_some(4096)
                    if not chunk:
                        break
                    head += chunk
    status_line = head.split(b"\r\n", 1)[0]
    assert status_line.split()[1] == b"421", head


async def test_message_over_the_limit_closes_with_1009(app):
    limits = SessionLimits(max_message_size=2048)
    async with ws_server(app, limits=limits) as url:
        with trio.fail_after(10):
            async with open_websocket_url(url, subprotocols=["mcp"]) as ws:
                [pong] = await exchange(ws, rpc("ping", {}, 1), 1)  # small ones are fine
                body, _headers = modern_tool("echo", {"text": "x" * 10_000}, 2)
                await ws.send_message(json.dumps(body))
                with pytest.raises(ConnectionClosed) as info:
                    while True:
                        await ws.get_message()
    assert info.value.reason.code == 1009


async def test_closing_the_websocket_cancels_in_flight_handlers(app):
    """A closed WebSocket can carry no answer any more: its handlers are cancelled at once,
    not left running for ``shutdown_grace`` (as after EOF on stdio, where stdout still works)."""
    limits = SessionLimits(shutdown_grace=8)
    async with ws_server(app, limits=limits) as url:
        with trio.fail_after(20):
            async with open_websocket_url(url, subprotocols=["mcp"]) as ws:
                body, _headers = modern_tool("sleep", {"seconds": 60}, 1)
                await ws.send_message(json.dumps(body))
                await wait_until(lambda: app.stats["started"] == 1, 5, "the sleep tool started")
            closed_at = trio.current_time()
            try:
                await wait_until(
                    lambda: app.stats["cancelled"] == 1,
                    3,
                    f"handler cancelled after the client closed the WebSocket (stats {app.stats})",
                )
            finally:
                waited = trio.current_time() - closed_at
    assert app.stats["finished"] == 0
    assert waited < 3, waited
