"""The gateway in front of real servers nobody here wrote (tests/peers): the npm reference servers
(server-everything, server-filesystem), the official Python SDK's server and a FastMCP server, over
stdio and, where they offer it, Streamable HTTP; the caller in either era at the front.

What each must show through the gateway: list, a call with progress, a question (elicitation,
sampling) answered by the caller, a resource read and a subscription, and a cancellation the
upstream sees."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import trio

import mcptrio
import mcptrio.client
from mcptrio.client import Client
from mcptrio.gateway import Upstream, links_of

from ..interop.test_upstream_peers import ada, model, text
from ..peers import servers
from ..peers.servers import Peer
from .test_gateway import tools_named

TIMEOUT = 60


@contextlib.asynccontextmanager
async def through_gateway(
    peer: Peer, transport: str, era: str, name: str, **options: Any
) -> AsyncIterator[tuple[mcptrio.App, Client]]:
    """A gateway app serving ``peer`` (its command line, or its URL while it runs) as ``name``, and a
    client of the app in ``era``."""
    async with contextlib.AsyncExitStack() as stack:
        if transport == "http":
            upstream = Upstream(name, url=await stack.enter_async_context(servers.serve_http(peer)))
        else:
            upstream = Upstream(name, command=tuple(peer.stdio), env=peer.env)
        app = mcptrio.App("gateway")
        app.proxy(upstream)
        client = await stack.enter_async_context(mcptrio.client.connect(app, era=era, **options))
        yield app, client


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_server_everything_through_the_gateway(transport, era):
    uri = "demo://resource/static/document/features.md"
    with trio.fail_after(TIMEOUT):
        async with through_gateway(
            servers.everything(), transport, era, "ev", elicitation=ada, sampling=model, listen=True
        ) as (_, client):
            names = await tools_named(client, "ev_trigger-sampling-request")
            assert {"ev_echo", "ev_trigger-long-running-operation", "ev_trigger-elicitation-request"} <= set(names)
            assert text(await client.call_tool("ev_echo", {"message": "hi"})) == "Echo: hi"
            seen: list[tuple[Any, ...]] = []
            done = await client.call_tool(
                "ev_trigger-long-running-operation", {"duration": 0.3, "steps": 3}, progress=lambda *p: seen.append(p)
            )
            assert "Steps: 3" in text(done) and [p[:2] for p in seen] == [(1, 3), (2, 3), (3, 3)]
            # A legacy upstream's pushed questions: pushed on to a legacy caller, asked in the
            # answer of a 2026-07-28 caller's call (and the call run again with the answers).
            assert "provided the requested information" in text(
                await client.call_tool("ev_trigger-elicitation-request")
            )
            sampled = text(await client.call_tool("ev_trigger-sampling-request", {"prompt": "frogs"}))
            assert "a haiku on" in sampled and "frogs" in sampled
            assert f"ev+{uri}" in [resource.uri for resource in await client.list_resources()]
            read = await client.read_resource(f"ev+{uri}")
            assert read.contents[0].uri == f"ev+{uri}" and read.contents[0].text.strip()
            if era == "legacy":
                await client.subscribe(f"ev+{uri}")
                await client.call_tool("ev_toggle-subscriber-updates")  # (one update at once, then one every 5 s)
                while not any(
                    note["params"] == {"uri": f"ev+{uri}"}
                    for note in client.raw.notifications
                    if note["method"] == "notifications/resources/updated"
                ):
                    await trio.sleep(0.05)
            else:
                async with client.listen(resourceSubscriptions=[f"ev+{uri}"]) as stream:
                    await client.call_tool("ev_toggle-subscriber-updates")
                    async for note in stream:
                        if note["method"] == "notifications/resources/updated":
                            assert note["params"]["uri"] == f"ev+{uri}"
                            break


async def test_an_upstream_asking_for_roots_with_no_call_in_flight_is_told_why_and_what_to_do(capfd):
    # (server-everything asks a client that declares roots for them as its session starts, and
    # writes the error it gets to its stderr, which the gateway's stdio upstream inherits)
    told = ""
    with trio.fail_after(TIMEOUT):
        async with through_gateway(servers.everything(), "stdio", "legacy", "ev") as (_, client):
            await tools_named(client, "ev_echo")
            while "roots" not in told:
                told += capfd.readouterr().err
                await trio.sleep(0.05)
    assert "roots/list came with no call in flight on the shared session" in told
    assert 'sessions = "per-caller"' in told


async def test_server_filesystem_through_the_gateway(tmp_path):
    (tmp_path / "note.txt").write_text("on disk")
    with trio.fail_after(TIMEOUT):
        async with through_gateway(servers.filesystem(tmp_path), "stdio", "modern", "fs") as (_, client):
            await tools_named(client, "fs_read_text_file")
            assert text(await client.call_tool("fs_read_text_file", {"path": str(tmp_path / "note.txt")})) == "on disk"
            await client.call_tool("fs_write_file", {"path": str(tmp_path / "new.txt"), "content": "via the gateway"})
            assert (tmp_path / "new.txt").read_text() == "via the gateway"
            outside = await client.call_tool("fs_read_text_file", {"path": "/etc/hostname"})
            assert outside.is_error and "outside allowed directories" in outside.content[0].text


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_the_official_sdk_server_through_the_gateway(transport, era):
    with trio.fail_after(TIMEOUT):
        async with through_gateway(servers.sdk(), transport, era, "sdk", elicitation=ada) as (app, client):
            await tools_named(client, "sdk_echo")
            assert text(await client.call_tool("sdk_echo", {"text": "hi"})) == "hi"
            seen: list[tuple[Any, ...]] = []
            assert (
                text(await client.call_tool("sdk_steps", {"count": 2}, progress=lambda *p: seen.append(p))) == "2 steps"
            )
            assert [p[:2] for p in seen] == [(1, 2), (2, 2)]
            link_era = app_link_era(app)
            if link_era == "legacy":  # (the SDK's elicit pushes; it has no 2026-07-28 path)
                assert text(await client.call_tool("sdk_ask_name")) == "hello Ada"
            read = await client.read_resource("sdk+sdk://info")
            assert json.loads(read.contents[0].text) == {"server": "mcp-python-sdk"}


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_fastmcp_server_through_the_gateway(transport, era):
    with trio.fail_after(TIMEOUT):
        async with through_gateway(servers.fastmcp(), transport, era, "f", elicitation=ada, sampling=model) as (
            _,
            client,
        ):
            await tools_named(client, "f_sleep_stats")
            assert text(await client.call_tool("f_echo", {"text": "hi"})) == "hi"
            seen: list[tuple[Any, ...]] = []
            assert (
                text(await client.call_tool("f_steps", {"count": 3}, progress=lambda *p: seen.append(p))) == "3 steps"
            )
            assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
            assert text(await client.call_tool("f_ask_name")) == "hello Ada"
            assert text(await client.call_tool("f_haiku", {"topic": "frogs"})) == "a haiku on frogs"
            assert json.loads((await client.read_resource("f+peers://info")).contents[0].text) == {"server": "fastmcp"}
            assert (await client.get_prompt("f_greet", {"name": "Ada"})).messages[0].content.text == "Hello, Ada!"
            with trio.move_on_after(0.5):
                await client.call_tool("f_sleep", {"ms": 30_000})
            with trio.fail_after(5):  # the upstream saw the cancellation and stopped the call
                while json.loads(text(await client.call_tool("f_sleep_stats")))["cancelled"] == 0:
                    await trio.sleep(0.05)


def app_link_era(app: mcptrio.App) -> str:
    """The era the gateway speaks to its one upstream."""
    [link] = links_of(app)
    assert link.client is not None
    return link.client.era
