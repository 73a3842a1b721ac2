"""Middleware around every request: order, what it sees, what it may do, on every transport and era."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
import trio
import trio.testing
from trio_websocket import open_websocket_url

import mcptrio
from mcptrio import McpError, Request, ToolError
from mcptrio.testing import open_client, open_process_client

from ..transports.http.client import (
    CLIENT_INFO,
    LEGACY,
    call_tool,
    final_of,
    http_server,
    initialize,
    legacy_headers,
    modern_tool,
    new_client,
    notification,
    rpc,
    text_of,
    ws_server,
)

ERAS = ["legacy", "modern"]


def result_text(result: dict[str, Any]) -> str:
    assert not result.get("isError"), result
    return result["content"][0]["text"]


def make_app(*middleware: Any) -> mcptrio.App:
    app = mcptrio.App("middleware-test")

    @app.tool()
    async def echo(text: str) -> str:
        return text

    @app.tool()
    async def nap(seconds: float) -> str:
        await trio.sleep(seconds)
        return "rested"

    @app.prompt()
    async def greet(name: str) -> str:
        return f"Hello, {name}"

    @app.resource("memo://one")
    async def memo() -> str:
        return "one"

    for mw in middleware:
        app.use(mw)
    return app


def recorder(seen: list[dict[str, Any]]) -> Any:
    async def record(request: Request, call_next: Any) -> dict[str, Any]:
        seen.append(
            {
                "method": request.method,
                "name": request.name,
                "era": request.era,
                "version": request.protocol_version,
                "id": request.request_id,
                "session_id": request.session_id,
                "transport": request.transport,
                "principal": request.principal,
                "time_left": request.deadline - trio.current_time(),
                "arguments": dict(request.params.get("arguments") or {}),
            }
        )
        return await call_next(request)

    return record


@pytest.mark.parametrize("era", ERAS)
async def test_order_is_app_then_plugins_as_added_outermost_first(era):
    trail: list[str] = []

    def named(label: str) -> Any:
        async def mw(request: Request, call_next: Any) -> dict[str, Any]:
            trail.append(f"{label}>")
            result = await call_next(request)
            trail.append(f"<{label}")
            return result

        return mw

    plugin = mcptrio.Registry("policy")
    plugin.use(named("plugin"))
    app = make_app(named("first"))
    app.include(plugin)
    app.use(named("last"))
    async with open_client(app, era=era) as client:
        assert result_text(await client.call_tool("echo", {"text": "hi"})) == "hi"
    assert trail == ["first>", "plugin>", "last>", "<last", "<plugin", "<first"]


@pytest.mark.parametrize("era", ERAS)
async def test_middleware_sees_method_target_params_era_and_deadline(era):
    seen: list[dict[str, Any]] = []
    async with open_client(make_app(recorder(seen)), era=era) as client:
        await client.call_tool("echo", {"text": "x"})
        await client.request("prompts/get", {"name": "greet", "arguments": {"name": "Ada"}})
        await client.request("resources/read", {"uri": "memo://one"})
        await client.request("tools/list")
        await client.request("ping" if era == "legacy" else "server/discover")  # answered by the protocol
    assert [(s["method"], s["name"]) for s in seen] == [
        ("tools/call", "echo"),
        ("prompts/get", "greet"),
        ("resources/read", "memo://one"),
        ("tools/list", None),
    ]
    first = seen[0]
    assert first["era"] == era
    assert first["version"] == ("2025-11-25" if era == "legacy" else "2026-07-28")
    assert first["arguments"] == {"text": "x"}
    assert first["transport"] == "memory" and first["session_id"] is None and first["principal"] is None
    assert 299 < first["time_left"] <= 300  # the default request_timeout
    assert len({s["id"] for s in seen}) == 4


@pytest.mark.parametrize("era", ERAS)
async def test_middleware_may_answer_change_or_fail_a_request(era):
    async def policy(request: Request, call_next: Any) -> dict[str, Any]:
        arguments = request.params.get("arguments") or {}
        if request.name == "echo" and arguments.get("text") == "short-circuit":
            return {"content": [{"type": "text", "text": "answered by middleware"}]}
        if request.name == "echo" and arguments.get("text") == "shout":
            request.params = {**request.params, "arguments": {"text": "SHOUT"}}
        if request.name == "echo" and arguments.get("text") == "refuse":
            raise ToolError("refused by policy")
        if request.name == "echo" and arguments.get("text") == "crash":
            raise RuntimeError("/secret/path leaked?")
        if request.method == "prompts/get":
            raise McpError(-32042, "prompts are closed today", {"why": "policy"})
        if request.method == "resources/read":
            raise ToolError("not this resource")
        if request.method == "tools/list":
            raise RuntimeError("boom in middleware")
        return await call_next(request)

    async with open_client(make_app(policy), era=era) as client:
        assert result_text(await client.call_tool("echo", {"text": "short-circuit"})) == "answered by middleware"
        assert result_text(await client.call_tool("echo", {"text": "shout"})) == "SHOUT"
        refused = await client.call_tool("echo", {"text": "refuse"})
        assert refused["isError"] is True and refused["content"][0]["text"] == "refused by policy"
        crashed = await client.call_tool("echo", {"text": "crash"})
        assert crashed["isError"] is True
        assert crashed["content"][0]["text"] == "tool 'echo' failed with an internal error (RuntimeError)"
        prompt = await client.response("prompts/get", {"name": "greet", "arguments": {"name": "x"}})
        assert prompt["error"] == {"code": -32042, "message": "prompts are closed today", "data": {"why": "policy"}}
        resource = await client.response("resources/read", {"uri": "memo://one"})
        assert resource["error"]["code"] == -32602 and resource["error"]["message"] == "not this resource"
        listing = await client.response("tools/list")
        assert listing["error"]["code"] == -32603
        assert "boom" not in json.dumps(listing) and "Traceback" not in json.dumps(listing)
        # the server goes on serving
        assert result_text(await client.call_tool("echo", {"text": "still here"})) == "still here"


def test_middleware_can_time_what_call_next_takes():
    durations: list[float] = []

    async def timer(request: Request, call_next: Any) -> dict[str, Any]:
        start = trio.current_time()
        try:
            return await call_next(request)
        finally:
            durations.append(trio.current_time() - start)

    clock = trio.testing.MockClock(autojump_threshold=0)

    async def main() -> None:
        async with open_client(make_app(timer)) as client:
            assert result_text(await client.call_tool("nap", {"seconds": 2.5})) == "rested"

    trio.run(main, clock=clock)
    assert durations == [2.5]


async def test_a_cancelled_request_is_cancelled_through_the_middleware():
    outcomes: list[str] = []

    async def watch(request: Request, call_next: Any) -> dict[str, Any]:
        try:
            result = await call_next(request)
        except trio.Cancelled:
            outcomes.append("cancelled")
            raise
        outcomes.append("answered")
        return result

    async with open_client(make_app(watch)) as client:
        request_id, _ = await client.start_request("tools/call", {"name": "nap", "arguments": {"seconds": 30}})
        await trio.sleep(0.05)
        await client.notify("notifications/cancelled", {"requestId": request_id})
        with trio.fail_after(5):
            while not outcomes:
                await trio.sleep(0.01)
        assert result_text(await client.call_tool("echo", {"text": "next"})) == "next"
    assert outcomes == ["cancelled", "answered"]  # the cancelled call, then the next one


# -- real transports -------------------------------------------------------------------------------


async def test_over_http_legacy_and_modern_the_middleware_sees_transport_and_session():
    seen: list[dict[str, Any]] = []
    async with http_server(make_app(recorder(seen))) as url, new_client() as http:
        session_id = await initialize(http, url)
        legacy = await http.post(url, json=call_tool("echo", {"text": "legacy"}, 1), headers=legacy_headers(session_id))
        assert text_of(final_of(legacy)) == "legacy"
        body, headers = modern_tool("echo", {"text": "modern"}, 2)
        modern = await http.post(url, json=body, headers=headers)
        assert text_of(final_of(modern)) == "modern"
    assert [(s["era"], s["transport"], s["session_id"]) for s in seen] == [
        ("legacy", "http", session_id),
        ("modern", "http", None),
    ]


async def test_over_websocket_the_middleware_runs_for_both_eras():
    seen: list[dict[str, Any]] = []
    async with ws_server(make_app(recorder(seen))) as url:
        with trio.fail_after(10):
            async with open_websocket_url(url, subprotocols=["mcp"]) as ws:
                params = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": CLIENT_INFO}
                await ws.send_message(json.dumps(rpc("initialize", params, 0)))
                await ws.get_message()
                await ws.send_message(json.dumps(notification("notifications/initialized")))
                await ws.send_message(json.dumps(call_tool("echo", {"text": "ws"}, 1)))
                assert text_of(json.loads(await ws.get_message())) == "ws"
                body, _ = modern_tool("echo", {"text": "ws modern"}, 2)
                await ws.send_message(json.dumps(body))
                assert text_of(json.loads(await ws.get_message())) == "ws modern"
    assert [(s["era"], s["transport"]) for s in seen] == [("legacy", "websocket"), ("modern", "websocket")]


@pytest.mark.parametrize("era", ERAS)
async def test_a_plugin_package_ships_a_policy_served_over_stdio(era, monkeypatch):
    monkeypatch.setenv("MCPTRIO_NOTES_READ_ONLY", "1")
    command = [sys.executable, "-m", "mcptrio", "serve", "--plugins", "notes"]
    async with open_process_client(command, era=era) as client:
        refused = await client.call_tool("add_note", {"title": "t", "text": "x"})
        assert refused["isError"] is True
        assert refused["content"][0]["text"] == "add_note is refused: the notes are read-only on this server"
        assert result_text(await client.call_tool("list_notes", {})) == "no notes"
