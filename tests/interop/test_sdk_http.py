"""The official MCP Python SDK (``mcp`` 2.3.0) as the client of
``mcptrio serve --plugins everything --transport http``, over Streamable HTTP, in both eras:

- legacy (``mode="legacy"``): ``initialize`` at 2025-11-25, an ``Mcp-Session-Id`` session, the GET
  stream, server→client requests on a POST's SSE stream, and ``DELETE`` to end the session;
- modern (``mode="auto"``, which discovers 2026-07-28, or the version pinned): stateless POSTs
  carrying the per-request ``_meta`` envelope and the ``Mcp-*`` headers, ``server/discover``,
  ``resultType``, multi round-trip ``InputRequiredResult`` with a sealed ``requestState``, and
  ``subscriptions/listen``.

Each test starts its own server on a free loopback port and stops it at the end; those marked
``BOTH_SERVERS`` run on hypercorn too (``--http-server hypercorn``): one test of each way a
response travels (JSON, a POST's event stream, the GET stream, DELETE, a listen stream).
"""

from __future__ import annotations

import base64
import contextlib
import json
from collections.abc import AsyncIterator

import mcp_types as types
import pytest
import trio
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.subscriptions import ToolsListChanged

from ._support import (
    EXPECTED_PROMPTS,
    EXPECTED_TOOLS,
    LEGACY,
    MODERN,
    PNG_MAGIC,
    PROGRESS_STEPS,
    SAMPLED_TEXT,
    STATIC_TEXT,
    Answers,
    Exchange,
    HttpLog,
    HttpServer,
    WireTap,
    serve_http,
    text_of,
)

TEST_TIMEOUT = 40  # seconds, for a whole test: the server's start, the sessions, and its shutdown
ACCEPT = "application/json, text/event-stream"


@pytest.fixture
def answers() -> Answers:
    return Answers()


@pytest.fixture
def http_server() -> str:
    return "builtin"


@pytest.fixture
async def server(http_server: str) -> AsyncIterator[HttpServer]:
    async with serve_http(http_server) as running:
        yield running


BOTH_SERVERS = pytest.mark.parametrize("http_server", ["builtin", "hypercorn"])


@contextlib.asynccontextmanager
async def open_http(
    url: str, answers: Answers, mode: str, log: HttpLog | None = None
) -> AsyncIterator[tuple[Client, WireTap, HttpLog]]:
    """An SDK client over the SDK's Streamable HTTP transport, with its JSON-RPC and HTTP traffic recorded.

    A ``log`` passed in is the caller's to open and close (to keep using its client afterwards).
    """
    async with contextlib.AsyncExitStack() as stack:
        if log is None:
            log = HttpLog()
            await stack.enter_async_context(log.client)
        tap = WireTap(streamable_http_client(url, http_client=log.client))
        with trio.fail_after(TEST_TIMEOUT):
            async with Client(tap, mode=mode, read_timeout_seconds=20, **answers.callbacks()) as client:
                yield client, tap, log


def posts_with(log: HttpLog, fragment: str) -> list[Exchange]:
    return [e for e in log.of("POST") if fragment.encode() in e.body]


# == legacy era: 2025-11-25 sessions ====================================================================


@BOTH_SERVERS
async def test_legacy_session_lifecycle(server: HttpServer, answers: Answers) -> None:
    log = HttpLog()
    async with log.client:
        async with open_http(server.url, answers, "legacy", log) as (client, tap, _):
            assert client.protocol_version == LEGACY
            assert client.server_info is not None and client.server_info.name == "everything"
            tools = await client.list_tools()
            assert EXPECTED_TOOLS <= {t.name for t in tools.tools}

        [initialize] = posts_with(log, '"method":"initialize"')
        assert initialize.status == 200
        session_id = initialize.response_headers["mcp-session-id"]
        assert len(session_id) >= 16
        later = [e for e in log.exchanges if e is not initialize]
        assert later, "no traffic after initialize"
        for exchange in later:
            assert exchange.request_headers.get("mcp-session-id") == session_id, exchange
            assert exchange.request_headers.get("mcp-protocol-version") == LEGACY, exchange

        [initialized] = posts_with(log, "notifications/initialized")
        assert initialized.status == 202
        [get] = log.of("GET")  # the SDK opens the standalone stream after initialized
        assert get.status == 200 and get.response_headers["content-type"].startswith("text/event-stream")

        # Leaving the client terminated the session ...
        [delete] = log.of("DELETE")
        assert delete.status in (200, 204)
        assert not [e for e in log.exchanges[log.exchanges.index(delete) :] if e.method == "POST"]
        # ... so the server no longer knows it.
        with trio.fail_after(10):
            gone = await log.client.post(
                server.url,
                json={"jsonrpc": "2.0", "id": 99, "method": "tools/list"},
                headers={"mcp-session-id": session_id, "mcp-protocol-version": LEGACY, "accept": ACCEPT},
            )
        assert gone.status_code == 404, gone.text


async def test_legacy_tools_and_progress(server: HttpServer, answers: Answers) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with open_http(server.url, answers, "legacy") as (client, tap, log):
        simple = await client.call_tool("test_simple_text", {})
        assert text_of(simple) == "This is a simple text response for testing."
        failed = await client.call_tool("test_error_handling", {})
        assert failed.is_error is True
        image = await client.call_tool("test_image_content", {})
        assert isinstance(image.content[0], types.ImageContent)
        assert base64.b64decode(image.content[0].data).startswith(PNG_MAGIC)

        result = await client.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
        assert text_of(result) == "Progress test completed: 0, 50 and 100 of 100 reported"
        assert seen == PROGRESS_STEPS
        [post] = posts_with(log, "test_tool_with_progress")
        assert post.response_headers["content-type"].startswith("text/event-stream")
        [call] = [r for r in tap.requests("tools/call") if r["params"]["name"] == "test_tool_with_progress"]
        token = call["params"]["_meta"]["progressToken"]
        notes = tap.notifications("notifications/progress")
        assert [(n["params"]["progressToken"], n["params"]["progress"]) for n in notes] == [
            (token, 0),
            (token, 50),
            (token, 100),
        ]


@BOTH_SERVERS
async def test_legacy_elicitation_and_sampling(server: HttpServer, answers: Answers) -> None:
    async with open_http(server.url, answers, "legacy") as (client, tap, log):
        elicited = await client.call_tool("test_elicitation", {"message": "Who are you?"})
        assert text_of(elicited) == (
            'User response: action=accept, content={"email":"alice@example.org","username":"alice"}'
        )
        sampled = await client.call_tool("test_sampling", {"prompt": "What is the capital of France?"})
        assert text_of(sampled) == f"LLM response: {SAMPLED_TEXT}"

        elicit_request, sampling_request = tap.server_requests()
        assert elicit_request["method"] == "elicitation/create"
        assert elicit_request["params"]["message"] == "Who are you?"
        assert sampling_request["method"] == "sampling/createMessage"
        assert sampling_request["params"]["maxTokens"] == 100
        assert [a.request_id for a in answers.asked] == [elicit_request["id"], sampling_request["id"]]
        # Each came on its tools/call POST's event stream; each answer is a POST the server accepts.
        for request in (elicit_request, sampling_request):
            [answer] = posts_with(log, json.dumps(request["id"]) + ',"result"')
            assert answer.status == 202


async def test_legacy_concurrent_server_requests(server: HttpServer, answers: Answers) -> None:
    """A tool that asks for an elicitation, a sampling and the roots at once (``Context.ask_many``):
    three server→client requests that open the POST's event stream concurrently."""
    async with open_http(server.url, answers, "legacy") as (client, tap, log):
        result = await client.call_tool("test_input_required_result_multiple_inputs", {})
    # Asserted after the client has closed, so a failure reads as one plain AssertionError.
    [post] = posts_with(log, "test_input_required_result_multiple_inputs")
    assert post.status == 200 and post.response_headers["content-type"].startswith("text/event-stream")
    assert not result.is_error, f"{text_of(result)}; the server sent {tap.received()[-3:]}"
    assert text_of(result) == f"Name: Alice; Greeting: {SAMPLED_TEXT}; Roots: 1"
    assert sorted(r["method"] for r in tap.server_requests()) == [
        "elicitation/create",
        "roots/list",
        "sampling/createMessage",
    ]
    assert sorted(a.kind for a in answers.asked) == ["elicitation", "roots", "sampling"]


async def test_legacy_resources_prompts_completion(server: HttpServer, answers: Answers) -> None:
    async with open_http(server.url, answers, "legacy") as (client, _tap, _log):
        resources = await client.list_resources()
        assert [str(r.uri) for r in resources.resources][:2] == ["test://static-text", "test://static-binary"]
        static = await client.read_resource("test://static-text")
        assert static.contents[0].text == STATIC_TEXT  # type: ignore[union-attr]
        templated = await client.read_resource("test://template/7/data")
        assert json.loads(templated.contents[0].text) == {  # type: ignore[union-attr]
            "id": "7",
            "templateTest": True,
            "data": "Data for ID: 7",
        }
        with pytest.raises(MCPError) as missing:
            await client.read_resource("test://no-such-resource")
        assert missing.value.error.code == -32002

        prompts = await client.list_prompts()
        assert EXPECTED_PROMPTS <= {p.name for p in prompts.prompts}
        prompt = await client.get_prompt("test_prompt_with_arguments", {"arg1": "alpha", "arg2": "beta"})
        assert text_of(prompt) == "Prompt with arguments: arg1='alpha', arg2='beta'"
        # In a legacy session the prompt asks through a real elicitation/create request.
        contextual = await client.get_prompt("test_input_required_result_prompt")
        assert text_of(contextual) == "Prompt with context: quarterly report"

        completed = await client.complete(
            types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
            {"name": "arg1", "value": "par"},
        )
        assert completed.completion.values == ["paris", "park", "party"]


# == modern era: 2026-07-28, stateless =================================================================


def assert_stateless(log: HttpLog) -> None:
    """No session, no standalone stream, nothing to terminate (2026-07-28 Streamable HTTP)."""
    assert log.exchanges
    assert not log.of("GET") and not log.of("DELETE")
    for exchange in log.exchanges:
        assert "mcp-session-id" not in exchange.response_headers, exchange
        assert "mcp-session-id" not in exchange.request_headers, exchange
        assert exchange.request_headers["mcp-protocol-version"] == MODERN, exchange


@BOTH_SERVERS
async def test_modern_discover_and_envelope(server: HttpServer, answers: Answers) -> None:
    async with open_http(server.url, answers, "auto") as (client, tap, log):
        assert client.protocol_version == MODERN
        assert client.server_info is not None and client.server_info.name == "everything"
        [discover] = tap.requests("server/discover")
        assert MODERN in tap.response_to(discover)["result"]["supportedVersions"]
        assert not tap.requests("initialize")
        assert log.exchanges[0].request_headers["mcp-method"] == "server/discover"

        tools = await client.list_tools()
        assert EXPECTED_TOOLS <= {t.name for t in tools.tools}
        result = await client.call_tool("test_custom_header", {"region": "eu-west"})
        assert text_of(result) == "Region: eu-west"

        [call] = tap.requests("tools/call")
        meta = call["params"]["_meta"]
        assert meta["io.modelcontextprotocol/protocolVersion"] == MODERN
        assert meta["io.modelcontextprotocol/clientInfo"]["name"]
        assert set(meta["io.modelcontextprotocol/clientCapabilities"]) >= {"sampling", "elicitation"}
        assert tap.response_to(call)["result"]["resultType"] == "complete"
        [post] = posts_with(log, '"name":"test_custom_header"')
        assert post.status == 200
        assert post.request_headers["mcp-method"] == "tools/call"
        assert post.request_headers["mcp-name"] == "test_custom_header"
        assert post.request_headers["mcp-param-region"] == "eu-west"  # x-mcp-header, mirrored by the SDK
    assert_stateless(log)


@BOTH_SERVERS
async def test_modern_tools_and_progress(server: HttpServer, answers: Answers) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with open_http(server.url, answers, "auto") as (client, tap, log):
        simple = await client.call_tool("test_simple_text", {})
        assert text_of(simple) == "This is a simple text response for testing."
        failed = await client.call_tool("test_error_handling", {})
        assert failed.is_error is True
        assert text_of(failed) == "This tool intentionally returns an error for testing"

        result = await client.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
        assert text_of(result) == "Progress test completed: 0, 50 and 100 of 100 reported"
        assert seen == PROGRESS_STEPS
        [post] = posts_with(log, '"name":"test_tool_with_progress"')
        assert post.response_headers["content-type"].startswith("text/event-stream")
        assert [n["params"]["progress"] for n in tap.notifications("notifications/progress")] == [0, 50, 100]
    assert_stateless(log)


async def test_modern_elicitation_multi_round_trip(server: HttpServer, answers: Answers) -> None:
    async with open_http(server.url, answers, "auto") as (client, tap, log):
        # The SDK's driver: InputRequiredResult -> elicitation callback -> retry with the answers.
        result = await client.call_tool("test_input_required_result_elicitation", {})
        assert text_of(result) == "Hello, Alice!"
        [asked] = answers.of("elicitation")
        assert asked.request_id == "user_name"  # the inputRequests key: no server→client request
        assert asked.params is not None and asked.params["message"] == "What is your name?"
        assert not tap.server_requests()
        first, retry = tap.requests("tools/call")
        required = tap.response_to(first)["result"]
        assert required["resultType"] == "input_required"
        assert required["inputRequests"]["user_name"]["method"] == "elicitation/create"
        assert isinstance(required["requestState"], str) and required["requestState"]
        assert retry["params"]["requestState"] == required["requestState"]
        assert retry["params"]["inputResponses"] == {"user_name": {"action": "accept", "content": {"name": "Alice"}}}
        assert tap.response_to(retry)["result"]["resultType"] == "complete"
        assert [p.status for p in posts_with(log, "test_input_required_result_elicitation")] == [200, 200]

        # The same loop by hand, over two rounds, each with its own sealed requestState.
        session = client.session
        name = "test_input_required_result_multi_round"
        round1 = await session.call_tool(name, {}, allow_input_required=True)
        assert isinstance(round1, types.InputRequiredResult)
        assert list(round1.input_requests or {}) == ["step1"]
        step1 = {"step1": types.ElicitResult(action="accept", content={"name": "Alice"})}
        round2 = await session.call_tool(
            name, {}, input_responses=step1, request_state=round1.request_state, allow_input_required=True
        )
        assert isinstance(round2, types.InputRequiredResult)
        assert list(round2.input_requests or {}) == ["step2"]
        assert round2.request_state and round2.request_state != round1.request_state
        step2 = {"step2": types.ElicitResult(action="accept", content={"color": "teal"})}
        done = await session.call_tool(
            name, {}, input_responses=step2, request_state=round2.request_state, allow_input_required=True
        )
        assert isinstance(done, types.CallToolResult)
        assert text_of(done) == "Multi-round complete for Alice who likes teal"

        # A requestState the client altered is refused.
        name = "test_input_required_result_tampered_state"
        asking = await session.call_tool(name, {}, allow_input_required=True)
        assert isinstance(asking, types.InputRequiredResult) and asking.request_state
        state = asking.request_state
        # Change an early character: the last one of a base64 text may carry only padding bits.
        forged = state[:2] + ("A" if state[2] != "A" else "w") + state[3:]
        confirm = {"confirm": types.ElicitResult(action="accept", content={"ok": True})}
        with pytest.raises(MCPError) as refused:
            await session.call_tool(name, {}, input_responses=confirm, request_state=forged, allow_input_required=True)
        assert refused.value.error.code == -32602
        honest = await session.call_tool(
            name, {}, input_responses=confirm, request_state=state, allow_input_required=True
        )
        assert isinstance(honest, types.CallToolResult)
        assert text_of(honest) == "integrity-ok: state verified (ok=True)"
    assert_stateless(log)


async def test_modern_sampling_and_multiple_inputs(server: HttpServer, answers: Answers) -> None:
    async with open_http(server.url, answers, "auto") as (client, tap, log):
        sampled = await client.call_tool("test_sampling", {"prompt": "What is the capital of France?"})
        assert text_of(sampled) == f"LLM response: {SAMPLED_TEXT}"
        [asked] = answers.of("sampling")
        assert asked.params is not None and asked.params["maxTokens"] == 100
        assert asked.params["messages"][0]["content"]["text"] == "What is the capital of France?"

        many = await client.call_tool("test_input_required_result_multiple_inputs", {})
        assert text_of(many) == f"Name: Alice; Greeting: {SAMPLED_TEXT}; Roots: 1"
        assert {(a.kind, a.request_id) for a in answers.asked[1:]} == {
            ("elicitation", "user_name"),
            ("sampling", "greeting"),
            ("roots", "client_roots"),
        }
        assert not tap.server_requests()
    assert_stateless(log)


async def test_modern_resources_prompts_completion(server: HttpServer, answers: Answers) -> None:
    async with open_http(server.url, answers, "auto") as (client, tap, log):
        resources = await client.list_resources()
        assert [str(r.uri) for r in resources.resources][:2] == ["test://static-text", "test://static-binary"]
        templates = await client.list_resource_templates()
        assert [t.uri_template for t in templates.resource_templates] == ["test://template/{id}/data"]
        static = await client.read_resource("test://static-text")
        assert static.contents[0].text == STATIC_TEXT  # type: ignore[union-attr]
        binary = await client.read_resource("test://static-binary")
        assert base64.b64decode(binary.contents[0].blob).startswith(PNG_MAGIC)  # type: ignore[union-attr]
        templated = await client.read_resource("test://template/123/data")
        assert json.loads(templated.contents[0].text) == {  # type: ignore[union-attr]
            "id": "123",
            "templateTest": True,
            "data": "Data for ID: 123",
        }
        [read] = [r for r in tap.requests("resources/read") if r["params"]["uri"] == "test://static-text"]
        assert tap.response_to(read)["result"]["resultType"] == "complete"
        with pytest.raises(MCPError) as missing:
            await client.read_resource("test://no-such-resource")
        assert missing.value.error.code == -32602  # 2026-07-28 replaced -32002

        prompts = await client.list_prompts()
        assert EXPECTED_PROMPTS <= {p.name for p in prompts.prompts}
        prompt = await client.get_prompt("test_prompt_with_arguments", {"arg1": "alpha", "arg2": "beta"})
        assert text_of(prompt) == "Prompt with arguments: arg1='alpha', arg2='beta'"
        contextual = await client.get_prompt("test_input_required_result_prompt")
        assert text_of(contextual) == "Prompt with context: quarterly report"
        assert [a.request_id for a in answers.of("elicitation")] == ["user_context"]
        first, retry = tap.requests("prompts/get")[1:]
        assert tap.response_to(first)["result"]["resultType"] == "input_required"
        assert retry["params"]["inputResponses"]["user_context"]["content"] == {"context": "quarterly report"}

        completed = await client.complete(
            types.ResourceTemplateReference(type="ref/resource", uri="test://template/{id}/data"),
            {"name": "id", "value": "4"},
        )
        assert completed.completion.values == ["42"]
    assert_stateless(log)


@BOTH_SERVERS
async def test_modern_listen_sees_another_clients_change(server: HttpServer, answers: Answers) -> None:
    async with open_http(server.url, answers, "auto") as (listener, _tap, _log):
        async with listener.listen(tools_list_changed=True) as subscription:
            assert subscription.honored.tools_list_changed is True
            async with open_http(server.url, Answers(), "auto") as (other, _, _):
                changed = await other.call_tool("test_trigger_tool_change", {})
                assert text_of(changed) == "Mutation triggered: tools list changed"
            with trio.fail_after(10):
                event = await subscription.__anext__()
            assert isinstance(event, ToolsListChanged)


async def test_modern_version_pinned_without_discover(server: HttpServer, answers: Answers) -> None:
    async with open_http(server.url, answers, MODERN) as (client, tap, log):
        assert client.protocol_version == MODERN
        result = await client.call_tool("test_input_required_result_elicitation", {})
        assert text_of(result) == "Hello, Alice!"
        assert not tap.requests("server/discover") and not tap.requests("initialize")
        assert [a.request_id for a in answers.of("elicitation")] == ["user_name"]
    assert_stateless(log)
