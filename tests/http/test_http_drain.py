"""The drain through the embedding API (``shutdown_trigger``), on HTTP and WebSocket.

What tests/operations/test_health_and_drain.py does not already show: during the drain a legacy
session still takes the client's answers (so an elicitation in flight completes) while its new
requests, a new ``initialize`` and a new GET stream get 503 + ``Retry-After`` with the retryable
``-31503``; its open GET stream and a 2026-07-28 listen stream end cleanly; a drain timeout shorter
than the work cancels it (the handler sees ``Cancelled``, the client gets an error); a POST read
just before the drain began is still bounded by the drain; and the same on a WebSocket, which
closes with 1001 once its work is done.
"""

from __future__ import annotations

import contextlib
import functools
import json
from typing import Any, AsyncIterator

import httpx
import pytest
import trio
from trio_websocket import ConnectionClosed, open_websocket_url

from mcptrio import App, SessionLimits
from mcptrio.transports.http import HttpConfig, McpHttpApp, serve_http
from mcptrio.transports.websocket import serve_websocket

from .client import (
    CLIENT_INFO,
    LEGACY,
    SUBSCRIPTION_ID,
    SseReader,
    call_tool,
    final_of,
    initialize,
    legacy_headers,
    modern,
    modern_tool,
    new_client,
    notification,
    rpc,
    text_of,
    wait_until,
)
from .test_http_legacy import get_headers

DRAINING = -31503


@contextlib.asynccontextmanager
async def draining_server(serve: Any, app: App, grace: float) -> AsyncIterator[tuple[str, trio.Event, list[bool]]]:
    """A server whose trigger the test fires mid-block; yields (url, trigger, [returned])."""
    stop = trio.Event()
    returned: list[bool] = []

    async def run(task_status: trio.TaskStatus[str]) -> None:
        await serve(app, host="127.0.0.1", port=0, shutdown_trigger=stop.wait,
                    limits=SessionLimits(shutdown_grace=grace), task_status=task_status)
        returned.append(True)

    async with trio.open_nursery() as nursery:
        with trio.fail_after(10):
            url = await nursery.start(run)
        try:
            yield url, stop, returned
        finally:
            stop.set()


def assert_draining_refusal(response: httpx.Response, request_id: Any) -> None:
    assert response.status_code == 503, (response.status_code, response.text)
    assert response.headers["retry-after"] == "1"
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["id"] == request_id
    assert body["error"]["code"] == DRAINING and "draining" in body["error"]["message"]
    assert body["error"]["data"] == {"retryAfter": 1}


async def wait_readyz(client: httpx.AsyncClient, url: str, status: int) -> None:
    base = url.rsplit("/", 1)[0]
    with trio.fail_after(5):
        while (await client.get(f"{base}/readyz")).status_code != status:
            await trio.sleep(0.02)


async def test_a_legacy_session_takes_answers_but_no_new_work_while_draining(app):
    async with draining_server(serve_http, app, grace=5) as (url, stop, returned), new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url, capabilities={"elicitation": {}})
            async with client.stream("GET", url, headers=get_headers(session_id)) as listening, \
                    client.stream("POST", url, json=call_tool("ask_name", {}, "call-1"),
                                  headers=legacy_headers(session_id)) as calling:
                stream = SseReader(listening)
                reader = SseReader(calling)
                ask = await reader.next_message()
                assert ask["method"] == "elicitation/create", ask

                stop.set()
                await wait_readyz(client, url, 503)
                assert [e.data for e in await stream.rest()] == [""]  # its priming event, then the end
                assert stream.ended

                late = await client.post(url, json=call_tool("echo", {"text": "late"}, 7),
                                         headers=legacy_headers(session_id))
                assert_draining_refusal(late, 7)
                params = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": CLIENT_INFO}
                fresh = await client.post(url, json=rpc("initialize", params, "init"),
                                          headers=legacy_headers(version=None))
                assert_draining_refusal(fresh, "init")
                again = await client.get(url, headers=get_headers(session_id))
                assert again.status_code == 503 and again.headers["retry-after"] == "1"

                # The client's answer and notifications still come in: the call in flight completes.
                ping = await client.post(url, json=notification("notifications/roots/list_changed"),
                                         headers=legacy_headers(session_id))
                assert ping.status_code == 202
                answer = {"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"name": "Ada"}}}
                posted = await client.post(url, json=answer, headers=legacy_headers(session_id))
                assert posted.status_code == 202, posted.text
                rest = await reader.until_response("call-1")
                assert text_of(rest[-1]) == "hello Ada"
            await wait_until(lambda: returned, 5, "serve_http returns once the drain is over")


async def test_a_listen_stream_closes_at_once_while_a_call_in_flight_finishes(app):
    async with draining_server(serve_http, app, grace=5) as (url, stop, returned), new_client() as client:
        with trio.fail_after(10):
            answers: list[httpx.Response] = []
            async with trio.open_nursery() as nursery:
                async def slow_call() -> None:
                    body, headers = modern_tool("sleep", {"seconds": 1.0}, "slow")
                    answers.append(await client.post(url, json=body, headers=headers))

                nursery.start_soon(slow_call)
                body, headers = modern("subscriptions/listen", {"notifications": {"toolsListChanged": True}}, "sub")
                async with client.stream("POST", url, json=body, headers=headers) as response:
                    reader = SseReader(response)
                    ack = await reader.next_message()
                    assert ack["method"] == "notifications/subscriptions/acknowledged", ack
                    await trio.sleep(0.2)  # the slow call is in flight
                    stop.set()
                    with trio.fail_after(0.8):  # well before the call (and the grace) ends
                        closing = await reader.next_message()
                        assert await reader.next() is None
                assert closing["id"] == "sub" and closing["result"]["_meta"][SUBSCRIPTION_ID] == "sub", closing
                assert not answers  # the call is still running when the listen stream has ended
        assert text_of(final_of(answers[0], "slow")) == "slept 1"
        await wait_until(lambda: returned, 5, "serve_http returns once the drain is over")
    assert app.stats["cancelled"] == 0


async def test_a_drain_timeout_shorter_than_the_work_cancels_it_and_the_handler_sees_cancelled(app):
    async with draining_server(serve_http, app, grace=0.3) as (url, stop, returned), new_client() as client:
        with trio.fail_after(10):
            answers: list[dict[str, Any]] = []
            async with trio.open_nursery() as nursery:
                async def call(n: int) -> None:
                    body, headers = modern_tool("sleep", {"seconds": 30}, n)
                    answers.append(final_of(await client.post(url, json=body, headers=headers), n))

                for n in range(3):
                    nursery.start_soon(call, n)
                await wait_until(lambda: app.stats["started"] == 3, 5, "three calls in flight")
                stop.set()
            await wait_until(lambda: returned, 5, "serve_http returns once the drain is over")
    assert app.stats["cancelled"] == 3 and app.stats["finished"] == 0
    assert sorted(a["id"] for a in answers) == [0, 1, 2]
    assert all("shutting down" in a["error"]["message"] for a in answers), answers


async def test_a_post_read_just_before_the_drain_began_is_still_bounded_by_it(app):
    """The POST passes the drain check; the drain begins before its request has a worker (the SSE
    head is a checkpoint): it must still be cancelled at the drain's deadline and answered."""
    asgi = McpHttpApp(app, HttpConfig(response_mode="sse"), SessionLimits(shutdown_grace=0.2))
    body, headers = modern_tool("sleep", {"seconds": 30}, "raced")
    sent: list[dict[str, Any]] = []
    drained = trio.Event()

    async with trio.open_nursery() as nursery:
        async def shutdown() -> None:
            await asgi.shutdown()
            drained.set()

        async def receive() -> dict[str, Any]:
            if not sent and not drained.is_set() and not asgi.shutting_down:
                nursery.start_soon(shutdown)  # runs at the POST's next checkpoint, past the check
                return {"type": "http.request", "body": json.dumps(body).encode(), "more_body": False}
            await trio.sleep_forever()

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        scope = {"type": "http", "method": "POST", "path": "/mcp", "query_string": b"", "client": ("127.0.0.1", 1),
                 "headers": [(b"host", b"127.0.0.1")] + [(k.encode(), v.encode()) for k, v in headers.items()]}
        with trio.fail_after(5):
            await asgi(scope, receive, send)
            await drained.wait()
    assert app.stats == {"started": 1, "finished": 0, "cancelled": 1}
    assert sent[0]["status"] == 200  # the request was taken (not refused): it is answered
    text = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body").decode()
    assert '"id":"raced"' in text and "shutting down" in text, text


# -- WebSocket ---------------------------------------------------------------------------------------

async def ws_exchange(ws: Any, message: dict[str, Any]) -> None:
    await ws.send_message(json.dumps(message))


async def next_message(ws: Any) -> dict[str, Any]:
    return json.loads(await ws.get_message())


async def test_a_websocket_takes_answers_refuses_new_requests_then_closes_with_1001(app):
    async with draining_server(serve_websocket, app, grace=5) as (url, stop, returned):
        with trio.fail_after(10):
            async with open_websocket_url(url, subprotocols=["mcp"]) as ws:
                params = {"protocolVersion": LEGACY, "capabilities": {"elicitation": {}}, "clientInfo": CLIENT_INFO}
                await ws_exchange(ws, rpc("initialize", params, 0))
                assert (await next_message(ws))["id"] == 0
                await ws_exchange(ws, notification("notifications/initialized"))
                await ws_exchange(ws, call_tool("ask_name", {}, 1))
                ask = await next_message(ws)
                assert ask["method"] == "elicitation/create", ask

                stop.set()
                await trio.sleep(0.1)
                await ws_exchange(ws, call_tool("echo", {"text": "late"}, 2))
                refused = await next_message(ws)
                assert refused["id"] == 2 and refused["error"]["code"] == DRAINING, refused
                assert refused["error"]["data"] == {"retryAfter": 1}

                await ws_exchange(ws, {"jsonrpc": "2.0", "id": ask["id"],
                                       "result": {"action": "accept", "content": {"name": "Ada"}}})
                answer = await next_message(ws)
                assert answer["id"] == 1 and text_of(answer) == "hello Ada"
                with pytest.raises(ConnectionClosed) as closed:
                    await ws.get_message()
                assert closed.value.reason.code == 1001
        await wait_until(lambda: returned, 5, "serve_websocket returns once the drain is over")


async def test_a_websocket_drain_timeout_cancels_the_work_then_closes_with_1001(app):
    async with draining_server(serve_websocket, app, grace=0.3) as (url, stop, returned):
        with trio.fail_after(10):
            async with open_websocket_url(url, subprotocols=["mcp"]) as ws:
                body, _headers = modern_tool("sleep", {"seconds": 30}, "long")
                await ws_exchange(ws, body)
                await wait_until(lambda: app.stats["started"] == 1, 5, "the call is in flight")
                stop.set()
                answer = await next_message(ws)
                assert answer["id"] == "long" and "shutting down" in answer["error"]["message"], answer
                with pytest.raises(ConnectionClosed) as closed:
                    await ws.get_message()
                assert closed.value.reason.code == 1001
        await wait_until(lambda: returned, 5, "serve_websocket returns once the drain is over")
    assert app.stats["cancelled"] == 1
