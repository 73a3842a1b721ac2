"""The official MCP Python SDK (``mcp`` 2.3.0) as the client of ``mcptrio serve --plugins everything``
over stdio: the SDK's ``stdio_client`` spawns the server, ``mcp.Client`` drives it.

Most tests run the legacy era (``mode="legacy"``: the ``initialize`` handshake at 2025-11-25,
server→client requests for sampling and elicitation); the last ones let the SDK negotiate
(``mode="auto"``: ``server/discover``), which over stdio lands on 2026-07-28, where asking the
client is a multi round-trip ``InputRequiredResult``.  Each test gets its own server process.
"""

from __future__ import annotations

import base64
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
import trio
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client

from ._support import (
    EXPECTED_PROMPTS,
    EXPECTED_TOOLS,
    LEGACY,
    MODERN,
    PNG_MAGIC,
    PROGRESS_STEPS,
    SAMPLED_TEXT,
    SERVE,
    STATIC_TEXT,
    Answers,
    WireTap,
    text_of,
)

TEST_TIMEOUT = 30  # seconds, for a whole test: spawning the server, the session, and its shutdown


@pytest.fixture
def answers() -> Answers:
    return Answers()


@contextlib.asynccontextmanager
async def open_stdio(
    tmp_path: Path, answers: Answers, mode: str = "legacy", **options: Any
) -> AsyncIterator[tuple[Client, WireTap]]:
    """An SDK client connected to a fresh ``mcptrio serve --plugins everything`` over stdio."""
    errlog_path = tmp_path / "server-stderr.txt"
    with errlog_path.open("w+") as errlog:
        params = StdioServerParameters(command=SERVE[0], args=SERVE[1:])
        tap = WireTap(stdio_client(params, errlog=errlog))
        try:
            with trio.fail_after(TEST_TIMEOUT):
                async with Client(tap, mode=mode, read_timeout_seconds=20, **answers.callbacks(), **options) as client:
                    yield client, tap
        finally:
            errlog.seek(0)
            if text := errlog.read():
                print("--- server stderr ---\n" + text[-4000:])


# -- legacy era (initialize handshake) -----------------------------------------------------------------


async def test_initialize_handshake(tmp_path: Path, answers: Answers) -> None:
    async with open_stdio(tmp_path, answers) as (client, tap):
        assert client.protocol_version == LEGACY
        assert client.server_info is not None and client.server_info.name == "everything"
        caps = client.server_capabilities
        assert caps.tools is not None and caps.resources is not None and caps.prompts is not None
        assert caps.completions is not None

        initialize, initialized = tap.sent()[:2]
        assert initialize["method"] == "initialize"
        assert initialize["params"]["protocolVersion"] == LEGACY
        assert set(initialize["params"]["capabilities"]) >= {"sampling", "elicitation", "roots"}
        assert initialized == {"jsonrpc": "2.0", "method": "notifications/initialized"}
        answer = tap.response_to(initialize)["result"]
        assert answer["protocolVersion"] == LEGACY
        assert answer["serverInfo"]["name"] == "everything"
        assert not tap.requests("server/discover")


async def test_list_and_call_tools(tmp_path: Path, answers: Answers) -> None:
    async with open_stdio(tmp_path, answers) as (client, tap):
        listing = await client.list_tools()
        tools = {tool.name: tool for tool in listing.tools}
        assert EXPECTED_TOOLS <= set(tools)
        assert listing.tools[0].name == "test_simple_text"
        sampling_schema = tools["test_sampling"].input_schema
        assert sampling_schema["required"] == ["prompt"]
        assert sampling_schema["properties"]["prompt"]["type"] == "string"
        assert tools["test_simple_text"].annotations is not None
        assert tools["test_simple_text"].annotations.read_only_hint is True

        result = await client.call_tool("test_simple_text", {})
        assert not result.is_error
        assert text_of(result) == "This is a simple text response for testing."

        image = await client.call_tool("test_image_content", {})
        block = image.content[0]
        assert isinstance(block, types.ImageContent) and block.mime_type == "image/png"
        assert base64.b64decode(block.data).startswith(PNG_MAGIC)

        mixed = await client.call_tool("test_multiple_content_types", {})
        assert [b.type for b in mixed.content] == ["text", "image", "resource"]

        failed = await client.call_tool("test_error_handling", {})
        assert failed.is_error is True
        assert text_of(failed) == "This tool intentionally returns an error for testing"

        with pytest.raises(MCPError) as unknown:
            await client.call_tool("no_such_tool", {})
        assert unknown.value.error.code == -32602
        assert [r["params"]["name"] for r in tap.requests("tools/call")][-1] == "no_such_tool"


async def test_progress_notifications(tmp_path: Path, answers: Answers) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with open_stdio(tmp_path, answers) as (client, tap):
        result = await client.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
        assert text_of(result) == "Progress test completed: 0, 50 and 100 of 100 reported"
        assert seen == PROGRESS_STEPS

        [call] = tap.requests("tools/call")
        token = call["params"]["_meta"]["progressToken"]
        notes = tap.notifications("notifications/progress")
        assert [n["params"]["progressToken"] for n in notes] == [token] * 3
        assert [n["params"]["progress"] for n in notes] == [0, 50, 100]
        received = tap.received()
        assert received.index(notes[-1]) < received.index(tap.response_to(call))


async def test_elicitation_request(tmp_path: Path, answers: Answers) -> None:
    async with open_stdio(tmp_path, answers) as (client, tap):
        result = await client.call_tool("test_elicitation", {"message": "Who are you?"})
        assert not result.is_error
        assert text_of(result) == (
            'User response: action=accept, content={"email":"alice@example.org","username":"alice"}'
        )
        [asked] = answers.of("elicitation")
        assert asked.params is not None and asked.params["message"] == "Who are you?"
        schema = asked.params["requestedSchema"]
        assert schema["required"] == ["username", "email"]
        assert set(schema["properties"]) == {"username", "email"}

        # A real server→client JSON-RPC request, answered by the SDK's callback.
        [request] = tap.server_requests()
        assert request["method"] == "elicitation/create" and request["id"] == asked.request_id
        [reply] = [m for m in tap.sent() if m.get("id") == request["id"] and "method" not in m]
        assert reply["result"] == {"action": "accept", "content": {"username": "alice", "email": "alice@example.org"}}


async def test_elicitation_declined(tmp_path: Path) -> None:
    answers = Answers(elicit_action="decline")
    async with open_stdio(tmp_path, answers) as (client, tap):
        result = await client.call_tool("test_input_required_result_elicitation", {})
        assert result.is_error is True
        assert text_of(result) == "the user did not provide name (action=decline)"
        [request] = tap.server_requests()
        assert request["method"] == "elicitation/create"
        assert request["params"]["message"] == "What is your name?"


async def test_sampling_request(tmp_path: Path, answers: Answers) -> None:
    async with open_stdio(tmp_path, answers) as (client, tap):
        result = await client.call_tool("test_sampling", {"prompt": "What is the capital of France?"})
        assert not result.is_error
        assert text_of(result) == f"LLM response: {SAMPLED_TEXT}"
        [asked] = answers.of("sampling")
        assert asked.params is not None and asked.params["maxTokens"] == 100
        assert asked.params["messages"] == [
            {"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}
        ]
        [request] = tap.server_requests()
        assert request["method"] == "sampling/createMessage" and request["id"] == asked.request_id
        [reply] = [m for m in tap.sent() if m.get("id") == request["id"] and "method" not in m]
        assert reply["result"]["model"] == "interop-test-model"


async def test_concurrent_server_requests(tmp_path: Path, answers: Answers) -> None:
    """One tool asks for an elicitation, a sampling and the roots at once (``Context.ask_many``)."""
    async with open_stdio(tmp_path, answers) as (client, tap):
        result = await client.call_tool("test_input_required_result_multiple_inputs", {})
        assert not result.is_error, text_of(result)
        assert text_of(result) == f"Name: Alice; Greeting: {SAMPLED_TEXT}; Roots: 1"
        assert sorted(a.kind for a in answers.asked) == ["elicitation", "roots", "sampling"]
        assert sorted(r["method"] for r in tap.server_requests()) == [
            "elicitation/create",
            "roots/list",
            "sampling/createMessage",
        ]


async def test_read_resources(tmp_path: Path, answers: Answers) -> None:
    async with open_stdio(tmp_path, answers) as (client, tap):
        listing = await client.list_resources()
        uris = [str(r.uri) for r in listing.resources]
        assert uris[:3] == ["test://static-text", "test://static-binary", "test://watched-resource"]
        templates = await client.list_resource_templates()
        assert [t.uri_template for t in templates.resource_templates] == ["test://template/{id}/data"]

        static = await client.read_resource("test://static-text")
        [content] = static.contents
        assert isinstance(content, types.TextResourceContents)
        assert (str(content.uri), content.mime_type, content.text) == ("test://static-text", "text/plain", STATIC_TEXT)

        binary = await client.read_resource("test://static-binary")
        [blob] = binary.contents
        assert isinstance(blob, types.BlobResourceContents) and blob.mime_type == "image/png"
        assert base64.b64decode(blob.blob).startswith(PNG_MAGIC)

        templated = await client.read_resource("test://template/42/data")
        [data] = templated.contents
        assert isinstance(data, types.TextResourceContents)
        assert str(data.uri) == "test://template/42/data" and data.mime_type == "application/json"
        assert json.loads(data.text) == {"id": "42", "templateTest": True, "data": "Data for ID: 42"}

        with pytest.raises(MCPError) as missing:
            await client.read_resource("test://no-such-resource")
        assert missing.value.error.code == -32002  # "resource not found" up to 2025-11-25
        assert tap.requests("resources/read")[-1]["params"]["uri"] == "test://no-such-resource"


async def test_prompts(tmp_path: Path, answers: Answers) -> None:
    async with open_stdio(tmp_path, answers) as (client, _tap):
        listing = await client.list_prompts()
        prompts = {p.name: p for p in listing.prompts}
        assert EXPECTED_PROMPTS <= set(prompts)
        arguments = prompts["test_prompt_with_arguments"].arguments or []
        assert [(a.name, a.required) for a in arguments] == [("arg1", True), ("arg2", True)]

        simple = await client.get_prompt("test_simple_prompt")
        assert text_of(simple) == "This is a simple prompt for testing."

        prompt = await client.get_prompt("test_prompt_with_arguments", {"arg1": "alpha", "arg2": "beta"})
        assert prompt.messages[0].role == "user"
        assert text_of(prompt) == "Prompt with arguments: arg1='alpha', arg2='beta'"

        embedded = await client.get_prompt("test_prompt_with_embedded_resource", {"resourceUri": "test://doc/1"})
        first = embedded.messages[0].content
        assert isinstance(first, types.EmbeddedResource)
        assert str(first.resource.uri) == "test://doc/1"

        with pytest.raises(MCPError) as missing:
            await client.get_prompt("test_prompt_with_arguments", {"arg1": "alpha"})
        assert missing.value.error.code == -32602
        assert "arg2" in missing.value.error.message


async def test_completion(tmp_path: Path, answers: Answers) -> None:
    async with open_stdio(tmp_path, answers) as (client, tap):
        prompt_ref = types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments")
        completed = await client.complete(prompt_ref, {"name": "arg1", "value": "pa"})
        assert completed.completion.values == ["paris", "park", "party"]

        template_ref = types.ResourceTemplateReference(type="ref/resource", uri="test://template/{id}/data")
        ids = await client.complete(template_ref, {"name": "id", "value": "1"})
        assert ids.completion.values == ["1", "123"]

        [first, _] = tap.requests("completion/complete")
        assert first["params"]["ref"] == {"type": "ref/prompt", "name": "test_prompt_with_arguments"}
        assert first["params"]["argument"] == {"name": "arg1", "value": "pa"}


# -- 2026-07-28 over stdio (the SDK's default mode="auto" negotiates it with server/discover) ------------


async def test_modern_era_discovered(tmp_path: Path, answers: Answers) -> None:
    async with open_stdio(tmp_path, answers, mode="auto") as (client, tap):
        assert client.protocol_version == MODERN
        assert client.server_info is not None and client.server_info.name == "everything"
        [discover] = tap.requests("server/discover")
        supported = tap.response_to(discover)["result"]["supportedVersions"]
        assert MODERN in supported and LEGACY in supported
        assert not tap.requests("initialize")

        result = await client.call_tool("test_simple_text", {})
        assert text_of(result) == "This is a simple text response for testing."
        [call] = tap.requests("tools/call")
        assert call["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == MODERN
        assert tap.response_to(call)["result"]["resultType"] == "complete"

        static = await client.read_resource("test://static-text")
        assert static.contents[0].text == STATIC_TEXT  # type: ignore[union-attr]
        prompt = await client.get_prompt("test_prompt_with_arguments", {"arg1": "x", "arg2": "y"})
        assert text_of(prompt) == "Prompt with arguments: arg1='x', arg2='y'"


async def test_modern_elicitation_multi_round_trip(tmp_path: Path, answers: Answers) -> None:
    async with open_stdio(tmp_path, answers, mode="auto") as (client, tap):
        result = await client.call_tool("test_input_required_result_elicitation", {})
        assert text_of(result) == "Hello, Alice!"

        # The SDK's driver ran the callback with the inputRequests key, not a JSON-RPC id ...
        [asked] = answers.of("elicitation")
        assert asked.request_id == "user_name"
        assert asked.params is not None and asked.params["message"] == "What is your name?"
        # ... because there was no server→client request: an InputRequiredResult, then a retry.
        assert not tap.server_requests()
        first, retry = tap.requests("tools/call")
        required = tap.response_to(first)["result"]
        assert required["resultType"] == "input_required"
        assert required["inputRequests"]["user_name"]["method"] == "elicitation/create"
        assert retry["params"]["requestState"] == required["requestState"]
        assert retry["params"]["inputResponses"]["user_name"]["action"] == "accept"
        assert tap.response_to(retry)["result"]["resultType"] == "complete"


async def test_modern_sampling_and_progress(tmp_path: Path, answers: Answers) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with open_stdio(tmp_path, answers, mode="auto") as (client, tap):
        result = await client.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
        assert text_of(result) == "Progress test completed: 0, 50 and 100 of 100 reported"
        assert seen == PROGRESS_STEPS

        sampled = await client.call_tool("test_sampling", {"prompt": "Capital of France?"})
        assert text_of(sampled) == f"LLM response: {SAMPLED_TEXT}"
        [asked] = answers.of("sampling")
        assert asked.params is not None and asked.params["maxTokens"] == 100
        assert not tap.server_requests()
        many = await client.call_tool("test_input_required_result_multiple_inputs", {})
        assert text_of(many) == f"Name: Alice; Greeting: {SAMPLED_TEXT}; Roots: 1"
        assert {a.request_id for a in answers.asked[1:]} == {"user_name", "greeting", "client_roots"}
