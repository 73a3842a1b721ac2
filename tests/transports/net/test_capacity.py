"""Streams that only wait for notifications have their own limits, apart from the cap on work.

A ``subscriptions/listen`` stream, a legacy GET stream, a 2024-11-05 SSE stream and a WebSocket
connection take a stream slot (``max_streams``, ``max_streams_per_client``), never one of
``max_requests``: idle listeners cannot lock tool calls out, and over a stream limit the refusal
names that limit.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest
import trio
from trio_websocket import ConnectionRejected, open_websocket_url

from mcptrio.transports.http import HttpConfig

from ..http.client import (
    SseReader,
    final_of,
    http_server,
    initialize,
    legacy_headers,
    modern,
    modern_tool,
    new_client,
    text_of,
    ws_server,
)

LISTEN = {"notifications": {"toolsListChanged": True}}


@contextlib.asynccontextmanager
async def listening(client: httpx.AsyncClient, url: str, request_id: Any) -> AsyncIterator[httpx.Response]:
    """A listen stream, held open (acknowledged) for the block; yields the response."""
    body, headers = modern("subscriptions/listen", LISTEN, request_id)
    async with client.stream("POST", url, json=body, headers=headers) as response:
        reader = None  # (held until the block ends: a reader dropped closes the stream it reads)
        if response.status_code == 200:
            reader = SseReader(response)
            ack = await reader.next_message()
            assert ack["method"] == "notifications/subscriptions/acknowledged", ack
        else:
            await response.aread()
        yield response
        del reader


async def echo(client: httpx.AsyncClient, url: str, text: str) -> str:
    body, headers = modern_tool("echo", {"text": text}, text)
    response = await client.post(url, json=body, headers=headers)
    assert response.status_code == 200, response.text
    return text_of(final_of(response, text))


def assert_refused_by(response: httpx.Response, limit: str, flag: str) -> None:
    assert response.status_code == 503, response.text
    assert response.headers["retry-after"] == "5"
    error = response.json()["error"]
    assert error["code"] == -31503 and error["data"]["limit"] == limit, error
    assert error["data"]["retryAfter"] == 5 and f"({flag})" in error["message"], error


async def ready(client: httpx.AsyncClient, url: str) -> dict[str, Any]:
    response = await client.get(url.replace("/mcp", "/readyz"))
    assert response.status_code == 200
    return response.json()


async def all_streams_closed(client: httpx.AsyncClient, url: str) -> None:
    """Until the server has seen every stream go (a closed client is noticed a moment later)."""
    while (await ready(client, url))["streams"]["open"]:
        await trio.sleep(0.02)


async def test_more_listen_streams_than_the_request_cap_leave_tool_calls_answered(app):
    config = HttpConfig(max_requests=2)
    async with http_server(app, config=config) as url, new_client() as client:
        with trio.fail_after(15):
            async with contextlib.AsyncExitStack() as streams:
                for n in range(5):
                    response = await streams.enter_async_context(listening(client, url, n))
                    assert response.status_code == 200
                assert len(app.listeners) == 5
                assert await echo(client, url, "still answered") == "still answered"
                report = await ready(client, url)
                assert report["streams"]["open"] == 5 and report["requests"]["refused"] == 0


async def test_the_stream_limit_refuses_a_stream_while_tool_calls_are_answered(app, caplog):
    caplog.set_level(logging.INFO, "mcptrio.access")
    config = HttpConfig(max_streams=3)
    async with http_server(app, config=config) as url, new_client() as client:
        with trio.fail_after(15):
            async with contextlib.AsyncExitStack() as streams:
                held = [await streams.enter_async_context(listening(client, url, n)) for n in range(3)]
                assert all(response.status_code == 200 for response in held)
                async with listening(client, url, "over") as refused:
                    assert_refused_by(refused, "max_streams", "--max-streams")
                    assert refused.json()["id"] == "over"
                assert await echo(client, url, "work goes on") == "work goes on"
                report = await ready(client, url)
                assert report["streams"] == {
                    "open": 3,
                    "limit": 3,
                    "limit_per_client": 2000,
                    "refused": 1,
                    "refused_per_client": 0,
                }
            # The slots come back with the streams: a new one is taken.
            await all_streams_closed(client, url)
            async with listening(client, url, "again") as response:
                assert response.status_code == 200
    [line] = [record for record in caplog.records if getattr(record, "fields", {}).get("outcome") == "refused"]
    assert line.fields["limit"] == "max_streams" and line.fields["client"] == "127.0.0.1"


async def test_the_per_client_limit_counts_each_address_apart(app):
    config = HttpConfig(max_streams=10, max_streams_per_client=2)
    async with (
        http_server(app, config=config) as url,
        new_client() as client,
        new_client(transport=httpx.AsyncHTTPTransport(local_address="127.0.0.2")) as other,
    ):
        with trio.fail_after(15):
            async with listening(client, url, 1), listening(client, url, 2):
                async with listening(client, url, 3) as refused:
                    assert_refused_by(refused, "max_streams_per_client", "--max-streams-per-client")
                async with listening(other, url, 4) as elsewhere:  # another client: its own two slots
                    assert elsewhere.status_code == 200
                report = await ready(client, url)
                assert report["streams"]["refused_per_client"] == 1 and report["streams"]["refused"] == 0


async def test_legacy_get_streams_take_stream_slots_not_request_slots(app):
    config = HttpConfig(max_streams=1, max_requests=1)
    async with http_server(app, config=config) as url, new_client() as client:
        with trio.fail_after(15):
            first, second = await initialize(client, url), await initialize(client, url)
            get = {"accept": "text/event-stream", "mcp-session-id": first, "mcp-protocol-version": "2025-11-25"}
            async with client.stream("GET", url, headers=get) as stream:
                assert stream.status_code == 200
                refused = await client.get(url, headers={**get, "mcp-session-id": second})
                assert_refused_by(refused, "max_streams", "--max-streams")
                call = {
                    "jsonrpc": "2.0",
                    "id": 7,
                    "method": "tools/call",
                    "params": {"name": "echo", "arguments": {"text": "legacy"}},
                }
                answered = await client.post(url, json=call, headers=legacy_headers(second))
                assert text_of(final_of(answered, 7)) == "legacy"


async def test_legacy_sse_streams_take_stream_slots(app):
    config = HttpConfig(max_streams=1, legacy_sse=True)
    async with http_server(app, config=config) as url, new_client() as client:
        with trio.fail_after(15):
            async with client.stream("GET", url + "/sse", headers={"accept": "text/event-stream"}) as stream:
                assert stream.status_code == 200
                refused = await client.get(url + "/sse", headers={"accept": "text/event-stream"})
                assert_refused_by(refused, "max_streams", "--max-streams")
            await all_streams_closed(client, url)
            async with client.stream("GET", url + "/sse", headers={"accept": "text/event-stream"}) as stream:
                assert stream.status_code == 200  # the slot came back when the first stream closed


async def test_websocket_connections_take_stream_slots(app):
    config = HttpConfig(max_streams=1)
    async with ws_server(app, config=config) as url:
        with trio.fail_after(15):
            async with open_websocket_url(url, subprotocols=["mcp"]) as ws:
                assert ws.subprotocol == "mcp"
                with pytest.raises(ConnectionRejected) as info:
                    async with open_websocket_url(url, subprotocols=["mcp"]):
                        pass
                assert info.value.status_code == 503
                assert dict(info.value.headers)[b"retry-after"] == b"5"
                error = orjson.loads(info.value.body)["error"]
                assert error["code"] == -31503 and error["data"]["limit"] == "max_streams"
            async with open_websocket_url(url, subprotocols=["mcp"]) as ws:  # its slot is back
                assert ws.subprotocol == "mcp"


async def test_with_the_defaults_2100_listeners_leave_tool_calls_answered(app):
    """Past the old shared cap of 2,000, from two addresses (each under the per-client limit)."""
    count = 2100
    async with http_server(app) as url, new_client() as client:
        port = int(url.split(":")[2].split("/")[0])
        body, headers = modern("subscriptions/listen", LISTEN, 1)
        payload = orjson.dumps(body)
        request = (
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + b"".join(f"{k}: {v}\r\n".encode() for k, v in headers.items() if k != "content-type")
            + b"Content-Type: application/json\r\n"
            + f"Content-Length: {len(payload)}\r\n\r\n".encode()
            + payload
        )
        streams: list[trio.SocketStream] = []

        async def open_one(source: str) -> None:
            sock = trio.socket.socket()
            await sock.bind((source, 0))
            await sock.connect(("127.0.0.1", port))
            stream = trio.SocketStream(sock)
            await stream.send_all(request)
            seen = b""
            while b"acknowledged" not in seen:
                chunk = await stream.receive_some(4096)
                assert chunk, seen
                seen += chunk
            assert seen.startswith(b"HTTP/1.1 200"), seen[:200]
            streams.append(stream)

        try:
            with trio.fail_after(60):
                for start in range(0, count, 100):
                    async with trio.open_nursery() as batch:
                        for n in range(start, min(count, start + 100)):
                            batch.start_soon(open_one, "127.0.0.1" if n % 2 else "127.0.0.2")
                assert len(app.listeners) == count
                assert await echo(client, url, "among 2100") == "among 2100"
                assert (await ready(client, url))["streams"]["open"] == count
        finally:
            for stream in streams:
                await stream.aclose()


def test_a_principal_counts_as_one_client_from_every_address():
    from mcptrio.auth.principal import Principal, client_key
    from mcptrio.transports.net.front_door import Capacity
    from mcptrio.transports.net.refusal import HttpError

    alice = Principal("alice", "app", frozenset(), None, "https://issuer.example")
    capacity = Capacity(max_requests=1, max_streams=10, max_streams_per_client=2)
    capacity.open_stream(client_key(alice, "10.0.0.1"), "listen")
    capacity.open_stream(client_key(alice, "10.0.0.2"), "listen")
    with pytest.raises(HttpError) as info:
        capacity.open_stream(client_key(alice, "10.0.0.3"), "listen")
    assert info.value.error.data["limit"] == "max_streams_per_client" and capacity.streams == 2
    capacity.open_stream(client_key(None, "10.0.0.3"), "listen")  # no token: its address is the client
    capacity.close_stream(client_key(alice, "10.0.0.9"))
    assert capacity.streams_by_client == {("principal", "alice"): 1, ("address", "10.0.0.3"): 1}
    capacity.start_work(1)
    with pytest.raises(HttpError) as info:
        capacity.start_work(1, "r2")
    assert info.value.error.data["limit"] == "max_requests" and info.value.request_id == "r2"
    assert capacity.report()["requests"] == {"in_flight": 1, "limit": 1, "refused": 1}
