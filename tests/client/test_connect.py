"""``mcptrio.client.connect`` against mcptrio on every transport and in both eras, and against a
server nobody here wrote (the official SDK's, over stdio and Streamable HTTP)."""

import contextlib
import json
import sys

import pytest
import trio

import mcptrio.client
from mcptrio import wire
from mcptrio.client import McpError
from mcptrio.client.http11 import MAX_CONNECTIONS

from ..peers.servers import sdk, serve_http
from ..runtime.apps import build_app
from ..transports.http.client import http_server, ws_server

SDK_SERVER = sdk().stdio
MCPTRIO_BENCH = [sys.executable, "-m", "mcptrio", "serve", "--plugins", "bench"]


async def ada(params):
    return {"action": "accept", "content": {"name": "Ada"}}


def text(result):
    assert isinstance(result, wire.CallToolResult)
    return result.content[0].text


async def everything_a_client_does(client, app):
    tools = {tool.name: tool for tool in await client.list_tools()}
    assert {"echo", "sleep", "count", "ask_name"} <= set(tools)
    assert tools["echo"].input_schema["properties"]["text"]["type"] == "string"
    assert text(await client.call_tool("echo", {"text": "hi"})) == "hi"
    seen = []
    assert text(await client.call_tool("count", {"steps": 3}, progress=lambda *p: seen.append(p))) == "counted"
    assert [p[0] for p in seen] == [1, 2, 3]
    assert text(await client.call_tool("ask_name")) == "hello Ada"  # legacy: pushed; 2026-07-28: round trips
    failed = await client.call_tool("explode")
    assert failed.is_error and "secret" not in text(failed)
    with pytest.raises(McpError) as refused:
        await client.call_tool("no_such_tool")
    assert refused.value.code in (-32602, -32601)
    contents = (await client.read_resource("test://hello")).contents
    assert contents[0].text
    with trio.move_on_after(0.3):
        await client.call_tool("sleep", {"seconds": 30})
    with trio.fail_after(5):
        while app.stats["cancelled"] < 1:
            await trio.sleep(0.01)


@pytest.mark.parametrize("era", [None, "legacy"])
async def test_in_process(era):
    app = build_app()
    async with mcptrio.client.connect(app, era=era, elicitation=ada) as client:
        assert client.era == ("legacy" if era == "legacy" else "modern")
        assert client.server_info.name == "test-server"
        await everything_a_client_does(client, app)


@pytest.mark.parametrize("era", [None, "legacy"])
async def test_over_http(era):
    app = build_app()
    async with http_server(app) as url, mcptrio.client.connect(url, era=era, elicitation=ada) as client:
        assert client.era == ("legacy" if era == "legacy" else "modern")
        await everything_a_client_does(client, app)


async def test_over_http_more_calls_than_connections_answered_both_ways():
    """A request is exchanged in its caller's task; one answered by an event stream is read on by
    another task, which gives its connection back: calls beyond the pool's limit still go through,
    from one task and from many at once."""
    app = build_app()
    async with http_server(app) as url, mcptrio.client.connect(url) as client:
        seen = []
        with trio.fail_after(30):
            for _ in range(MAX_CONNECTIONS // 2 + 10):
                assert (
                    text(await client.call_tool("count", {"steps": 1}, progress=lambda *p: seen.append(p))) == "counted"
                )
                assert text(await client.call_tool("echo", {"text": "hi"})) == "hi"
            answers = []

            async def call(index):
                answers.append(text(await client.call_tool("echo", {"text": str(index)})))

            async with trio.open_nursery() as nursery:
                for index in range(MAX_CONNECTIONS + 10):
                    nursery.start_soon(call, index)
        assert len(seen) == MAX_CONNECTIONS // 2 + 10
        assert sorted(answers, key=int) == [str(index) for index in range(MAX_CONNECTIONS + 10)]


@pytest.mark.parametrize("era", [None, "legacy"])
async def test_over_websocket(era):
    app = build_app()
    async with ws_server(app) as url, mcptrio.client.connect(url, era=era, elicitation=ada) as client:
        await everything_a_client_does(client, app)


@pytest.mark.parametrize("era", [None, "legacy"])
async def test_over_stdio_with_a_command_line(era):
    async with mcptrio.client.connect(MCPTRIO_BENCH, era=era) as client:
        assert client.server_info.name == "bench"  # (one plugin served: its name)
        assert text(await client.call_tool("echo", {"text": "over stdio"})) == "over stdio"
        with trio.move_on_after(0.3):
            await client.call_tool("sleep", {"ms": 30000})
        await trio.sleep(0.2)
        assert json.loads(text(await client.call_tool("sleep_stats")))["cancelled"] == 1


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_the_official_sdk_server_in_both_eras(transport):
    async with contextlib.AsyncExitStack() as stack:
        target = SDK_SERVER if transport == "stdio" else await stack.enter_async_context(serve_http(sdk()))
        with trio.fail_after(40):
            for era in ("modern", "legacy"):
                async with mcptrio.client.connect(target, era=era, elicitation=ada) as client:
                    assert client.era == era and client.server_info.name == "sdk-under-test"
                    assert {t.name for t in await client.list_tools()} >= {"echo", "steps", "ask_name", "sleep"}
                    seen = []
                    done = await client.call_tool("steps", {"count": 3}, progress=lambda *p: seen.append(p))
                    assert text(done) == "3 steps" and [p[:2] for p in seen] == [(1, 3), (2, 3), (3, 3)]
                    if era == "legacy":  # (the SDK's ctx.elicit has no 2026-07-28 path: "no back-channel")
                        assert text(await client.call_tool("ask_name")) == "hello Ada"
                    before = json.loads(text(await client.call_tool("sleep_stats")))["cancelled"]
                    with trio.move_on_after(0.5):
                        await client.call_tool("sleep", {"ms": 30000})
                    with trio.fail_after(5):
                        while json.loads(text(await client.call_tool("sleep_stats")))["cancelled"] == before:
                            await trio.sleep(0.05)


async def test_a_bad_target_or_era_is_a_clear_error():
    with pytest.raises(ValueError, match="era must be"):
        async with mcptrio.client.connect(build_app(), era="future"):
            pass
    with pytest.raises(ValueError, match="empty command line"):
        async with mcptrio.client.connect([]):
            pass


async def test_listen_yields_the_notifications_of_its_stream():
    app = build_app()
    async with http_server(app) as url, mcptrio.client.connect(url) as client:
        with trio.fail_after(10):
            async with client.listen(toolsListChanged=True) as changes:
                await app.notify_tools_changed()
                first = await changes.__anext__()
                assert first["method"] == "notifications/tools/list_changed"
            await trio.sleep(0.1)
            assert not app.listeners, "leaving the block closed the stream"
    async with mcptrio.client.connect(build_app(), era="legacy") as legacy:
        with pytest.raises(McpError, match="use subscribe"):
            async with legacy.listen(toolsListChanged=True):
                pass


async def test_a_progress_callback_that_raises_does_not_end_the_connection(caplog):
    def broken(progress, total, message):
        raise RuntimeError("a bug in the caller's callback")

    async with mcptrio.client.connect(build_app()) as client:
        assert text(await client.call_tool("count", {"steps": 2}, progress=broken)) == "counted"
        assert text(await client.call_tool("echo", {"text": "still here"})) == "still here"
    assert "a notification callback failed" in caplog.text


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://", "'http://' names no host"),
        ("wss://", "'wss://' names no host"),
        ("http://host:port/mcp", "is not a URL: Port"),
    ],
)
async def test_a_url_that_cannot_be_reached_as_written_is_a_value_error_saying_why(url, problem):
    with pytest.raises(ValueError, match=problem):
        async with mcptrio.client.connect(url):
            pass
