"""Components switched off and on at run time: the ``list_changed`` reaches a legacy session's GET
stream and a 2026-07-28 listen stream, in one process and, through a real Redis, on another worker;
what is switched off is gone from that worker's lists and calls too."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import trio

import mcptrio

from ..transports.http.client import (
    LEGACY,
    SseReader,
    call_tool,
    final_of,
    http_server,
    initialize,
    legacy_headers,
    modern,
    modern_tool,
    new_client,
    rpc,
    text_of,
)

LISTEN_FOR = {"toolsListChanged": True, "promptsListChanged": True}


def switchable_app() -> mcptrio.App:
    app = mcptrio.App("switchable")

    @app.tool(tags=["beta"])
    async def experiment() -> str:
        return "new"

    @app.tool()
    async def switch_off(name: str) -> str:
        await app.disable(name)
        return "off"

    @app.tool()
    async def switch_on(name: str) -> str:
        await app.enable(name)
        return "on"

    @app.tool()
    async def hide_for_me(ctx: mcptrio.Context, name: str) -> str:
        ctx.session.disable(name)
        return "hidden"

    return app


@contextlib.asynccontextmanager
async def two_workers(redis: Any) -> AsyncIterator[tuple[list[mcptrio.App], list[str]]]:
    apps = [switchable_app(), switchable_app()]
    async with contextlib.AsyncExitStack() as stack:
        yield apps, [await stack.enter_async_context(http_server(app, state=redis.url)) for app in apps]


async def tool_names(client: Any, url: str, session_id: str) -> set[str]:
    answer = await client.post(url, json=rpc("tools/list", {}, "list"), headers=legacy_headers(session_id))
    return {tool["name"] for tool in final_of(answer)["result"]["tools"]}


async def switched_streams(where: str, change: str, change_at: str | None = None) -> dict[str, Any]:
    """A legacy session with its GET stream at ``where`` and a listen stream at ``where``; the tool
    ``switch_off`` called at ``change_at`` (default ``where``) by a 2026-07-28 request."""
    async with new_client() as client, new_client() as legacy_get, new_client() as listener:
        session_id = await initialize(client, where)
        get = {"accept": "text/event-stream", "mcp-session-id": session_id, "mcp-protocol-version": LEGACY}
        listen, headers = modern("subscriptions/listen", {"notifications": LISTEN_FOR}, "sub")
        async with (
            legacy_get.stream("GET", where, headers=get) as legacy_stream,
            listener.stream("POST", where, json=listen, headers=headers) as modern_stream,
        ):
            legacy_reader, modern_reader = SseReader(legacy_stream), SseReader(modern_stream)
            await legacy_reader.next()  # the priming event: the GET stream is attached
            assert (await modern_reader.next_message())["method"] == "notifications/subscriptions/acknowledged"
            body, headers = modern_tool(change, {"name": "experiment"}, 2)
            assert text_of(final_of(await client.post(change_at or where, json=body, headers=headers), 2)) in (
                "off",
                "on",
            )
            on_legacy = await legacy_reader.next_message()
            on_modern = await modern_reader.next_message()
            listed = await tool_names(client, where, session_id)
            called = final_of(
                await client.post(where, json=call_tool("experiment", {}, 3), headers=legacy_headers(session_id))
            )
    return {"legacy": on_legacy, "modern": on_modern, "listed": listed, "called": called}


def assert_told(seen: dict[str, Any]) -> None:
    assert seen["legacy"] == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    assert seen["modern"]["method"] == "notifications/tools/list_changed"
    assert seen["modern"]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "sub"


async def test_disable_then_enable_in_one_process_tells_a_get_stream_and_a_listen_stream():
    app = switchable_app()
    async with http_server(app) as url:
        with trio.fail_after(20):
            off = await switched_streams(url, "switch_off")
            on = await switched_streams(url, "switch_on")
    assert_told(off)
    assert "experiment" not in off["listed"]
    assert off["called"]["error"]["message"] == "unknown tool: 'experiment'"
    assert_told(on)
    assert "experiment" in on["listed"] and text_of(on["called"]) == "new"


async def test_disable_on_one_worker_reaches_the_streams_and_lists_of_another(redis):
    async with two_workers(redis) as (apps, (a, b)):
        with trio.fail_after(30):
            off = await switched_streams(b, "switch_off", change_at=a)
            on = await switched_streams(b, "switch_on", change_at=a)
    assert_told(off)
    assert "experiment" not in off["listed"]  # b applied the switch it heard of
    assert off["called"]["error"]["message"] == "unknown tool: 'experiment'"
    assert_told(on)
    assert "experiment" in on["listed"]


async def test_a_session_s_own_switch_holds_on_every_worker(redis):
    async with two_workers(redis) as (apps, (a, b)), new_client() as client:
        with trio.fail_after(30):
            session_id = await initialize(client, a)
            answer = await client.post(
                a, json=call_tool("hide_for_me", {"name": "experiment"}, 2), headers=legacy_headers(session_id)
            )
            assert text_of(final_of(answer)) == "hidden"
            on_b = await tool_names(client, b, session_id)
            other = await initialize(client, b)
            for_others = await tool_names(client, b, other)
    assert "experiment" not in on_b
    assert "experiment" in for_others


async def test_a_session_s_own_switch_on_one_worker_reaches_its_get_stream_on_another(redis):
    async with two_workers(redis) as (apps, (a, b)), new_client() as client, new_client() as streamer:
        with trio.fail_after(30):
            session_id = await initialize(client, a)
            get = {"accept": "text/event-stream", "mcp-session-id": session_id, "mcp-protocol-version": LEGACY}
            async with streamer.stream("GET", b, headers=get) as stream:
                reader = SseReader(stream)
                await reader.next()  # the priming event: the GET stream is attached on b
                answer = await client.post(
                    a, json=call_tool("hide_for_me", {"name": "experiment"}, 2), headers=legacy_headers(session_id)
                )
                assert text_of(final_of(answer)) == "hidden"
                told = await reader.next_message()
    assert told == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
