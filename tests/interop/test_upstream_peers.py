"""``mcptrio.client`` against real servers nobody here wrote (tests/peers): the npm reference servers
(server-everything, server-filesystem), the official Python SDK's server and a FastMCP server, over
stdio and, where they offer it, Streamable HTTP — the upstreams the gateway is tested with."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import trio

import mcptrio.client
from mcptrio import wire
from mcptrio.client import Client

from ..peers import servers
from ..peers.servers import Peer

TIMEOUT = 40  # seconds for one test's whole conversation (a Node or Python server starts in 1-3 s)


async def ada(params):
    assert "name" in params["requestedSchema"]["properties"]
    return {"action": "accept", "content": {"name": "Ada"}}


async def model(params):
    asked = params["messages"][0]["content"]["text"]
    return {"role": "assistant", "content": {"type": "text", "text": f"a haiku on {asked}"}, "model": "test"}


def text(result: wire.CallToolResult) -> str:
    assert not result.is_error, result
    return result.content[0].text


@contextlib.asynccontextmanager
async def connected(peer: Peer, transport: str, **options: Any) -> AsyncIterator[Client]:
    """``mcptrio.client.connect`` to ``peer`` over ``transport``: its command line, or its URL while it runs."""
    async with contextlib.AsyncExitStack() as stack:
        target = await stack.enter_async_context(servers.serve_http(peer)) if transport == "http" else peer.stdio
        yield await stack.enter_async_context(mcptrio.client.connect(target, env=peer.env, keep_stderr=True, **options))


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_server_everything(transport):
    with trio.fail_after(TIMEOUT):
        async with connected(servers.everything(), transport, elicitation=ada, sampling=model) as client:
            assert client.era == "legacy"  # (its SDK does not know server/discover: the client fell back)
            assert client.server_info.name == "mcp-servers/everything"
            names = {tool.name for tool in await client.list_tools()}
            # the tools it registers once it knows the client answers elicitation and sampling, too
            assert {"echo", "trigger-long-running-operation", "trigger-elicitation-request"} <= names
            assert text(await client.call_tool("echo", {"message": "hi"})) == "Echo: hi"
            seen = []
            done = await client.call_tool(
                "trigger-long-running-operation", {"duration": 0.3, "steps": 3}, progress=lambda *p: seen.append(p)
            )
            assert "Steps: 3" in text(done) and [p[:2] for p in seen] == [(1, 3), (2, 3), (3, 3)]
            assert "provided the requested information" in text(await client.call_tool("trigger-elicitation-request"))
            sampled = text(await client.call_tool("trigger-sampling-request", {"prompt": "frogs"}))
            assert "a haiku on" in sampled and "frogs" in sampled
            uris = [resource.uri for resource in await client.list_resources()]
            assert "demo://resource/static/document/features.md" in uris
            read = await client.read_resource("demo://resource/static/document/features.md")
            assert read.contents[0].text.strip()


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_server_everything_subscriptions_templates_prompts_roots_and_tasks(transport):
    async def roots(params):
        return {"roots": [{"uri": "file:///srv/work", "name": "work"}]}

    uri = "demo://resource/static/document/features.md"
    with trio.fail_after(TIMEOUT):
        async with connected(servers.everything(), transport, roots=roots, tasks=True) as client:
            await client.subscribe(uri)
            await client.call_tool("toggle-subscriber-updates")  # (one update at once, then one every 5 s)
            while not any(note["params"] == {"uri": uri} for note in notes(client, "notifications/resources/updated")):
                await trio.sleep(0.05)
            template = await client.read_resource("demo://resource/dynamic/text/7")
            assert template.contents[0].text.startswith("Resource 7:")
            prompt = await client.get_prompt("args-prompt", {"city": "Paris"})
            assert "Paris" in prompt.messages[0].content.text
            ref = {"type": "ref/prompt", "name": "completable-prompt"}
            completed = await client.complete(ref, {"name": "department", "value": "S"})
            assert completed.completion.values == ["Sales", "Support"]
            assert "file:///srv/work" in text(await client.call_tool("get-roots-list"))
            statuses = []
            report = await client.call_tool("simulate-research-query", {"topic": "frogs"}, on_task=statuses.append)
            assert "Research Report: frogs" in text(report) and statuses[-1]["status"] == "completed"


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_tool_that_runs_only_as_a_task_is_called_as_one_unlisted_and_may_ask_the_client(transport):
    async def clarify(params):
        assert "interpretation" in params["requestedSchema"]["properties"]
        return {"action": "accept", "content": {"interpretation": "technical"}}

    statuses = []
    with trio.fail_after(TIMEOUT):
        async with connected(servers.everything(), transport, elicitation=clarify) as client:
            # (its SDK refuses a plain call of this tool with a result, isError, not a JSON-RPC error)
            arguments = {"topic": "frogs", "ambiguous": True}
            report = await client.call_tool("simulate-research-query", arguments, on_task=statuses.append)
    assert "Research Report: frogs (technical)" in text(report)
    assert [task["status"] for task in statuses][-1] == "input_required"


def notes(client: Client, method: str) -> list[dict[str, Any]]:
    return [note for note in client.raw.notifications if note["method"] == method]


async def test_server_filesystem(tmp_path):
    (tmp_path / "note.txt").write_text("on disk")
    peer = servers.filesystem(tmp_path)
    with trio.fail_after(TIMEOUT):
        async with mcptrio.client.connect(peer.stdio, keep_stderr=True) as client:
            assert client.server_info.name == "secure-filesystem-server"
            assert {"read_text_file", "write_file", "list_directory"} <= {t.name for t in await client.list_tools()}
            assert text(await client.call_tool("read_text_file", {"path": str(tmp_path / "note.txt")})) == "on disk"
            written = {"path": str(tmp_path / "new.txt"), "content": "written upstream"}
            await client.call_tool("write_file", written)
            assert (tmp_path / "new.txt").read_text() == "written upstream"
            outside = await client.call_tool("read_text_file", {"path": "/etc/hostname"})
            assert outside.is_error and "outside allowed directories" in outside.content[0].text


async def test_server_filesystem_takes_its_directories_from_the_clients_roots(tmp_path):
    async def roots(params):
        return {"roots": [{"uri": tmp_path.as_uri(), "name": "work"}]}

    with trio.fail_after(TIMEOUT):
        async with mcptrio.client.connect(servers.filesystem().stdio, roots=roots, keep_stderr=True) as client:
            # (it asks roots/list once initialized, without waiting for it before it answers)
            while str(tmp_path) not in text(await client.call_tool("list_allowed_directories")):
                await trio.sleep(0.05)


@pytest.mark.parametrize("era", ["modern", "legacy"])
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_the_official_sdk_server(transport, era):
    with trio.fail_after(TIMEOUT):
        async with connected(servers.sdk(), transport, era=era, elicitation=ada) as client:
            assert client.era == era and client.server_info.name == "sdk-under-test"
            assert text(await client.call_tool("echo", {"text": "hi"})) == "hi"
            seen = []
            assert text(await client.call_tool("steps", {"count": 2}, progress=lambda *p: seen.append(p))) == "2 steps"
            assert [p[:2] for p in seen] == [(1, 2), (2, 2)]
            if era == "legacy":  # (the SDK's ctx.elicit has no 2026-07-28 path: "no back-channel")
                assert text(await client.call_tool("ask_name")) == "hello Ada"
            assert json.loads((await client.read_resource("sdk://info")).contents[0].text) == {
                "server": "mcp-python-sdk"
            }


@pytest.mark.parametrize("era", ["modern", "legacy"])
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_fastmcp_server(transport, era):
    with trio.fail_after(TIMEOUT):
        async with connected(servers.fastmcp(), transport, era=era, elicitation=ada, sampling=model) as client:
            assert client.era == era and client.server_info.name == "fastmcp-under-test"
            tools = {tool.name: tool for tool in await client.list_tools()}
            assert {"echo", "steps", "ask_name", "haiku", "sleep"} <= set(tools)
            assert tools["echo"].input_schema["properties"]["text"]["type"] == "string"
            assert text(await client.call_tool("echo", {"text": "hi"})) == "hi"
            seen = []
            assert text(await client.call_tool("steps", {"count": 3}, progress=lambda *p: seen.append(p))) == "3 steps"
            assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
            # pushed requests in a legacy session, InputRequiredResult round trips in 2026-07-28
            assert text(await client.call_tool("ask_name")) == "hello Ada"
            assert text(await client.call_tool("haiku", {"topic": "frogs"})) == "a haiku on frogs"
            assert json.loads((await client.read_resource("peers://info")).contents[0].text) == {"server": "fastmcp"}
            prompt = await client.get_prompt("greet", {"name": "Ada"})
            assert prompt.messages[0].content.text == "Hello, Ada!"
            with trio.move_on_after(0.5):
                await client.call_tool("sleep", {"ms": 30_000})
            with trio.fail_after(5):  # the server saw the cancellation and stopped the call
                while json.loads(text(await client.call_tool("sleep_stats")))["cancelled"] == 0:
                    await trio.sleep(0.05)


async def test_an_http_peer_that_cannot_start_is_a_clear_error():
    broken = Peer("broken", [], http=lambda port: (["node", "-e", "console.error('no luck'); process.exit(3)"], {}))
    with trio.fail_after(TIMEOUT), pytest.raises(RuntimeError, match=r"broken over HTTP exited with 3:\nno luck"):
        async with servers.serve_http(broken):
            pass
