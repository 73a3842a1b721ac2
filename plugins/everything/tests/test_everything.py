"""The everything plugin, driven the way the conformance suite's server scenarios drive a server.

Each test names the scenario it mirrors and asserts what that scenario asserts (and the exact
payloads its description documents), in every era the scenario applies to: ``legacy`` is
2025-11-25 after an initialize handshake, ``modern`` is stateless 2026-07-28. Every message the
server sends is also checked against that revision's JSON Schema (see ``everything_support``).
"""

from __future__ import annotations

import base64
import json
import re

import pytest
import trio
from everything_support import ALL_CAPABILITIES, WIRE_SCHEMAS, connect, make_app
from mcptrio_everything.media import PNG_BASE64, WAV_BASE64
from mcptrio_everything.tools import JSON_SCHEMA_2020_12

from mcptrio import McpError

BOTH = pytest.mark.parametrize("era", ["legacy", "modern"])
LEGACY_ONLY = pytest.mark.parametrize("era", ["legacy"])

TOOL_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")  # alpha.12's tools-name-format rule

SUITE_TOOLS = {
    "test_simple_text",
    "test_image_content",
    "test_audio_content",
    "test_embedded_resource",
    "test_multiple_content_types",
    "test_tool_with_logging",
    "test_tool_with_progress",
    "test_error_handling",
    "test_sampling",
    "test_elicitation",
    "test_elicitation_sep1034_defaults",
    "test_elicitation_sep1330_enums",
    "json_schema_2020_12_tool",
    "test_reconnection",
    "test_missing_capability",
    "test_streaming_elicitation",
    "test_logging_tool",
    "test_trigger_tool_change",
    "test_trigger_prompt_change",
    "test_input_required_result_elicitation",
    "test_input_required_result_sampling",
    "test_input_required_result_list_roots",
    "test_input_required_result_request_state",
    "test_input_required_result_multiple_inputs",
    "test_input_required_result_multi_round",
    "test_input_required_result_tampered_state",
    "test_input_required_result_capabilities",
}
SUITE_PROMPTS = {
    "test_simple_prompt",
    "test_prompt_with_arguments",
    "test_prompt_with_embedded_resource",
    "test_prompt_with_image",
    "test_input_required_result_prompt",
}
SUITE_RESOURCES = {"test://static-text", "test://static-binary", "test://watched-resource"}


def only_text(result: dict) -> str:
    assert result.get("isError") is not True, result
    [block] = result["content"]
    assert block["type"] == "text"
    return block["text"]


def test_wire_schemas_present() -> None:
    assert len(WIRE_SCHEMAS) >= 2, "tests/data/spec/schema is missing: wire-schema checks would be off"


def test_plugin_is_the_entry_point() -> None:
    import mcptrio_everything

    from mcptrio import plugins

    assert plugins.load("everything") is mcptrio_everything.plugin
    app = plugins.build_app(["everything"])
    assert SUITE_TOOLS <= set(app.tools) and SUITE_PROMPTS <= set(app.prompts)


# -- listings: tools-list, prompts-list, resources-list ------------------------------------------


@BOTH
async def test_tools_list(era: str) -> None:
    async with connect(era) as probe:
        listings = [(await probe.request("tools/list"))["tools"] for _ in range(3)]
    tools = listings[0]
    assert tools[0]["name"] == "test_simple_text"  # http-header-validation calls tools[0] with {}
    assert SUITE_TOOLS <= {t["name"] for t in tools}
    for tool in tools:
        assert TOOL_NAME.match(tool["name"]), tool["name"]
        assert tool["description"] and tool["inputSchema"]["type"] == "object"
    # alpha.12 tools-list-deterministic-order: the same tools in the same order, every time.
    assert [[t["name"] for t in listing] for listing in listings[1:]] == [[t["name"] for t in tools]] * 2


@BOTH
async def test_prompts_and_resources_list(era: str) -> None:
    async with connect(era) as probe:
        prompts = (await probe.request("prompts/list"))["prompts"]
        resources = (await probe.request("resources/list"))["resources"]
        templates = (await probe.request("resources/templates/list"))["resourceTemplates"]
    assert SUITE_PROMPTS <= {p["name"] for p in prompts}
    assert all(p["description"] for p in prompts)
    by_name = {p["name"]: p for p in prompts}
    assert [a["name"] for a in by_name["test_prompt_with_arguments"]["arguments"]] == ["arg1", "arg2"]
    assert all(a["required"] for a in by_name["test_prompt_with_arguments"]["arguments"])
    assert [a["name"] for a in by_name["test_prompt_with_embedded_resource"]["arguments"]] == ["resourceUri"]
    assert SUITE_RESOURCES <= {r["uri"] for r in resources}
    assert resources[0]["uri"] == "test://static-text"  # caching reads the first listed resource
    assert all(r["name"] and r["description"] for r in resources)
    assert [t["uriTemplate"] for t in templates] == ["test://template/{id}/data"]


# -- tools-call-* --------------------------------------------------------------------------------


@BOTH
async def test_simple_text(era: str) -> None:
    async with connect(era) as probe:
        # The scenario omits "arguments" altogether.
        result = await probe.request("tools/call", {"name": "test_simple_text"})
    assert result["content"] == [{"type": "text", "text": "This is a simple text response for testing."}]


@BOTH
async def test_image_content(era: str) -> None:
    async with connect(era) as probe:
        result = await probe.call("test_image_content")
    assert result["content"] == [{"type": "image", "data": PNG_BASE64, "mimeType": "image/png"}]
    png = base64.b64decode(PNG_BASE64)
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and png[16:24] == b"\x00\x00\x00\x01\x00\x00\x00\x01"


@BOTH
async def test_audio_content(era: str) -> None:
    async with connect(era) as probe:
        result = await probe.call("test_audio_content")
    assert result["content"] == [{"type": "audio", "data": WAV_BASE64, "mimeType": "audio/wav"}]
    wav = base64.b64decode(WAV_BASE64)
    assert wav[:4] == b"RIFF" and wav[8:12] == b"WAVE"


@BOTH
async def test_embedded_resource(era: str) -> None:
    async with connect(era) as probe:
        result = await probe.call("test_embedded_resource")
    assert result["content"] == [
        {
            "type": "resource",
            "resource": {
                "uri": "test://embedded-resource",
                "mimeType": "text/plain",
                "text": "This is an embedded resource content.",
            },
        }
    ]


@BOTH
async def test_mixed_content(era: str) -> None:
    async with connect(era) as probe:
        result = await probe.call("test_multiple_content_types")
    text, image, resource = result["content"]
    assert text == {"type": "text", "text": "Multiple content types test:"}
    assert image == {"type": "image", "data": PNG_BASE64, "mimeType": "image/png"}
    assert resource["type"] == "resource"
    assert resource["resource"]["uri"] == "test://mixed-content-resource"
    assert resource["resource"]["mimeType"] == "application/json"
    assert json.loads(resource["resource"]["text"]) == {"test": "data", "value": 123}


@BOTH
async def test_error(era: str) -> None:
    async with connect(era) as probe:
        result = await probe.call("test_error_handling")
    assert result["isError"] is True
    assert result["content"][0]["text"] == "This tool intentionally returns an error for testing"


@LEGACY_ONLY
async def test_tool_with_logging(era: str, autojump_clock: trio.testing.MockClock) -> None:
    async with connect(era) as probe:
        assert await probe.request("logging/setLevel", {"level": "debug"}) == {}
        only_text(await probe.call("test_tool_with_logging"))
        messages = probe.notified("notifications/message")
    assert [(m["params"]["level"], m["params"]["data"]) for m in messages] == [
        ("info", "Tool execution started"),
        ("info", "Tool processing data"),
        ("info", "Tool execution completed"),
    ]


@BOTH
async def test_tool_with_progress(era: str, autojump_clock: trio.testing.MockClock) -> None:
    async with connect(era) as probe:
        only_text(await probe.call("test_tool_with_progress", meta={"progressToken": "progress-test-1"}))
        updates = [n["params"] for n in probe.notified("notifications/progress")]
    assert [(u["progressToken"], u["progress"], u["total"]) for u in updates] == [
        ("progress-test-1", 0, 100),
        ("progress-test-1", 50, 100),
        ("progress-test-1", 100, 100),
    ]


@BOTH
async def test_tool_with_progress_without_token(era: str, autojump_clock: trio.testing.MockClock) -> None:
    async with connect(era) as probe:
        only_text(await probe.call("test_tool_with_progress"))
        assert probe.notified("notifications/progress") == []


@LEGACY_ONLY
async def test_sampling(era: str) -> None:
    async with connect(era) as probe:
        result = await probe.call("test_sampling", {"prompt": "Test prompt for sampling"})
    assert probe.asked == [
        (
            "sampling/createMessage",
            {
                "messages": [{"role": "user", "content": {"type": "text", "text": "Test prompt for sampling"}}],
                "maxTokens": 100,
            },
        )
    ]
    assert only_text(result) == "LLM response: The capital of France is Paris."


@LEGACY_ONLY
async def test_sampling_without_the_capability_is_a_tool_error(era: str) -> None:
    async with connect(era, capabilities={"elicitation": {}}) as probe:
        result = await probe.call("test_sampling", {"prompt": "hello"})
    assert result["isError"] is True and "sampling" in result["content"][0]["text"]
    assert probe.asked == []


@LEGACY_ONLY
async def test_elicitation(era: str) -> None:
    async with connect(era) as probe:
        result = await probe.call("test_elicitation", {"message": "Please provide your information"})
    [(method, params)] = probe.asked
    assert method == "elicitation/create"
    assert params["message"] == "Please provide your information"
    assert params["requestedSchema"] == {
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"},
        },
        "required": ["username", "email"],
    }
    assert only_text(result) == (
        'User response: action=accept, content={"email":"test@example.com","username":"testuser"}'
    )


@LEGACY_ONLY
async def test_elicitation_sep1034_defaults(era: str) -> None:
    async with connect(era) as probe:
        result = await probe.call("test_elicitation_sep1034_defaults")
    [(method, params)] = probe.asked
    properties = params["requestedSchema"]["properties"]
    expected = {
        "name": ("string", "John Doe"),
        "age": ("integer", 30),
        "score": ("number", 95.5),
        "status": ("string", "active"),
        "verified": ("boolean", True),
    }
    for field, (kind, default) in expected.items():
        assert properties[field]["type"] == kind
        assert properties[field]["default"] == default and type(properties[field]["default"]) is type(default)
    assert properties["status"]["enum"] == ["active", "inactive", "pending"]
    assert only_text(result).startswith("Elicitation completed: action=accept, content=")


@LEGACY_ONLY
async def test_elicitation_sep1330_enums(era: str) -> None:
    async with connect(era) as probe:
        result = await probe.call("test_elicitation_sep1330_enums")
    [(_, params)] = probe.asked
    p = params["requestedSchema"]["properties"]
    # The five variants, checked as elicitation-sep1330-enums checks them.
    assert p["untitledSingle"]["type"] == "string" and isinstance(p["untitledSingle"]["enum"], list)
    assert "oneOf" not in p["untitledSingle"] and "enumNames" not in p["untitledSingle"]
    assert p["titledSingle"]["type"] == "string" and "enum" not in p["titledSingle"]
    assert all(isinstance(o["const"], str) and isinstance(o["title"], str) for o in p["titledSingle"]["oneOf"])
    assert len(p["legacyEnum"]["enumNames"]) == len(p["legacyEnum"]["enum"]) == 3
    assert p["untitledMulti"]["type"] == "array" and p["untitledMulti"]["items"]["type"] == "string"
    assert isinstance(p["untitledMulti"]["items"]["enum"], list) and "anyOf" not in p["untitledMulti"]["items"]
    assert p["titledMulti"]["type"] == "array" and "enum" not in p["titledMulti"]["items"]
    assert all(isinstance(o["const"], str) and isinstance(o["title"], str) for o in p["titledMulti"]["items"]["anyOf"])
    assert only_text(result).startswith("Elicitation completed: action=accept")


@BOTH
async def test_json_schema_2020_12_tool_keeps_its_schema(era: str) -> None:
    async with connect(era) as probe:
        tools = (await probe.request("tools/list"))["tools"]
        [tool] = [t for t in tools if t["name"] == "json_schema_2020_12_tool"]
        assert tool["inputSchema"] == JSON_SCHEMA_2020_12  # $schema, $defs/$anchor, allOf, if/then/else kept
        result = await probe.call("json_schema_2020_12_tool", {"contactMethod": "email", "email": "a@b.c"})
        assert only_text(result).startswith("JSON Schema 2020-12 tool called with:")
        refused = await probe.call("json_schema_2020_12_tool", {"unknown": 1})
        assert refused["isError"] is True


@BOTH
async def test_custom_header_tool(era: str) -> None:
    async with connect(era) as probe:
        tools = (await probe.request("tools/list"))["tools"]
        # http-custom-header-server-validation uses the first tool with a string x-mcp-header property.
        [first] = [t for t in tools if any("x-mcp-header" in p for p in t["inputSchema"]["properties"].values())][:1]
        assert first["name"] == "test_custom_header"
        assert first["inputSchema"]["properties"]["region"] == {
            "type": "string",
            "description": "Mirrored into the Mcp-Param-Region header",
            "x-mcp-header": "Region",
        }
        assert only_text(await probe.call("test_custom_header", {"region": "SGVsbG8="})) == "Region: SGVsbG8="


@LEGACY_ONLY
async def test_reconnection(era: str, autojump_clock: trio.testing.MockClock) -> None:
    async with connect(era) as probe:
        assert "reconnected" in only_text(await probe.call("test_reconnection"))


# -- resources-* and sep-2164 ----------------------------------------------------------------------


@BOTH
async def test_read_static_text(era: str) -> None:
    async with connect(era) as probe:
        result = await probe.request("resources/read", {"uri": "test://static-text"})
    assert result["contents"] == [
        {
            "uri": "test://static-text",
            "mimeType": "text/plain",
            "text": "This is the content of the static text resource.",
        }
    ]


@BOTH
async def test_read_static_binary(era: str) -> None:
    async with connect(era) as probe:
        result = await probe.request("resources/read", {"uri": "test://static-binary"})
    assert result["contents"] == [{"uri": "test://static-binary", "mimeType": "image/png", "blob": PNG_BASE64}]


@BOTH
async def test_read_template(era: str) -> None:
    async with connect(era) as probe:
        result = await probe.request("resources/read", {"uri": "test://template/123/data"})
    [content] = result["contents"]
    assert content["uri"] == "test://template/123/data" and content["mimeType"] == "application/json"
    assert json.loads(content["text"]) == {"id": "123", "templateTest": True, "data": "Data for ID: 123"}


@BOTH
async def test_read_watched_resource(era: str) -> None:
    async with connect(era) as probe:
        result = await probe.request("resources/read", {"uri": "test://watched-resource"})
    assert result["contents"][0]["text"] == "Watched resource content"


@LEGACY_ONLY
async def test_subscribe_and_unsubscribe(era: str) -> None:
    async with connect(era) as probe:
        assert await probe.request("resources/subscribe", {"uri": "test://watched-resource"}) == {}
        assert await probe.request("resources/unsubscribe", {"uri": "test://watched-resource"}) == {}


@BOTH
async def test_unknown_resource_is_an_error_naming_the_uri(era: str) -> None:
    uri = "test://nonexistent-resource-for-conformance-testing"
    async with connect(era) as probe:
        with pytest.raises(McpError) as caught:
            await probe.request("resources/read", {"uri": uri})
    # sep-2164 (2026-07-28): -32602 with data.uri; 2025-11-25 keeps its -32002.
    assert caught.value.code == (-32602 if era == "modern" else -32002)
    assert caught.value.data == {"uri": uri}


# -- prompts-* and completion-complete ------------------------------------------------------------


@BOTH
async def test_simple_prompt(era: str) -> None:
    async with connect(era) as probe:
        result = await probe.request("prompts/get", {"name": "test_simple_prompt"})
    assert result["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "This is a simple prompt for testing."}}
    ]


@BOTH
async def test_prompt_with_arguments(era: str) -> None:
    async with connect(era) as probe:
        result = await probe.request(
            "prompts/get",
            {"name": "test_prompt_with_arguments", "arguments": {"arg1": "testValue1", "arg2": "testValue2"}},
        )
    assert result["messages"] == [
        {
            "role": "user",
            "content": {"type": "text", "text": "Prompt with arguments: arg1='testValue1', arg2='testValue2'"},
        }
    ]


@BOTH
async def test_prompt_with_embedded_resource(era: str) -> None:
    async with connect(era) as probe:
        result = await probe.request(
            "prompts/get",
            {"name": "test_prompt_with_embedded_resource", "arguments": {"resourceUri": "test://example-resource"}},
        )
    assert result["messages"] == [
        {
            "role": "user",
            "content": {
                "type": "resource",
                "resource": {
                    "uri": "test://example-resource",
                    "mimeType": "text/plain",
                    "text": "Embedded resource content for testing.",
                },
            },
        },
        {"role": "user", "content": {"type": "text", "text": "Please process the embedded resource above."}},
    ]


@BOTH
async def test_prompt_with_image(era: str) -> None:
    async with connect(era) as probe:
        result = await probe.request("prompts/get", {"name": "test_prompt_with_image"})
    assert result["messages"] == [
        {"role": "user", "content": {"type": "image", "data": PNG_BASE64, "mimeType": "image/png"}},
        {"role": "user", "content": {"type": "text", "text": "Please analyze the image above."}},
    ]


@BOTH
async def test_completion(era: str) -> None:
    prompt = {"type": "ref/prompt", "name": "test_prompt_with_arguments"}
    async with connect(era) as probe:
        scenario = await probe.request(
            "completion/complete", {"ref": prompt, "argument": {"name": "arg1", "value": "test"}}
        )
        documented = await probe.request(
            "completion/complete", {"ref": prompt, "argument": {"name": "arg1", "value": "par"}}
        )
        template = await probe.request(
            "completion/complete",
            {
                "ref": {"type": "ref/resource", "uri": "test://template/{id}/data"},
                "argument": {"name": "id", "value": "4"},
            },
        )
    assert scenario["completion"]["values"] == ["test", "testValue1"]
    assert documented["completion"] == {"values": ["paris", "park", "party"], "total": 3, "hasMore": False}
    assert template["completion"]["values"] == ["42"]


# -- input-required-result-* (2026-07-28, SEP-2322) -------------------------------------------------


def input_required(result: dict) -> dict:
    assert result["resultType"] == "input_required", result
    assert result["inputRequests"], result
    return result["inputRequests"]


async def first_round(probe, name: str, *, meta: dict | None = None, **params) -> dict:
    """One round of a tools/call, answered as it comes (an InputRequiredResult is not resolved)."""
    return await probe.request("tools/call", {"name": name, "arguments": {}, **params}, meta=meta, resolve=False)


async def test_mrtr_basic_elicitation() -> None:
    async with connect("modern") as probe:
        r1 = await first_round(probe, "test_input_required_result_elicitation")
        requests = input_required(r1)
        assert list(requests) == ["user_name"]
        assert requests["user_name"]["method"] == "elicitation/create"
        assert requests["user_name"]["params"]["message"] == "What is your name?"
        assert requests["user_name"]["params"]["requestedSchema"] == {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
        }
        r2 = await first_round(
            probe,
            "test_input_required_result_elicitation",
            inputResponses={"user_name": {"action": "accept", "content": {"name": "Alice"}}},
            requestState=r1["requestState"],
        )
    assert r2["resultType"] == "complete" and only_text(r2) == "Hello, Alice!"


async def test_mrtr_basic_sampling() -> None:
    async with connect("modern") as probe:
        r1 = await first_round(probe, "test_input_required_result_sampling")
        requests = input_required(r1)
        assert list(requests) == ["capital_question"]
        assert requests["capital_question"] == {
            "method": "sampling/createMessage",
            "params": {
                "messages": [{"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}],
                "maxTokens": 100,
            },
        }
        r2 = await first_round(
            probe,
            "test_input_required_result_sampling",
            inputResponses={
                "capital_question": {
                    "role": "assistant",
                    "content": {"type": "text", "text": "Paris."},
                    "model": "test-model",
                    "stopReason": "endTurn",
                }
            },
            requestState=r1["requestState"],
        )
    assert only_text(r2) == "Sampling result: Paris."


async def test_mrtr_basic_list_roots() -> None:
    async with connect("modern") as probe:
        r1 = await first_round(probe, "test_input_required_result_list_roots")
        assert input_required(r1) == {"client_roots": {"method": "roots/list", "params": {}}}
        r2 = await first_round(
            probe,
            "test_input_required_result_list_roots",
            inputResponses={"client_roots": {"roots": [{"uri": "file:///test/root"}]}},
            requestState=r1["requestState"],
        )
    assert only_text(r2) == "Found 1 root(s): file:///test/root"


async def test_mrtr_request_state() -> None:
    async with connect("modern") as probe:
        r1 = await first_round(probe, "test_input_required_result_request_state")
        assert list(input_required(r1)) == ["confirm"]
        assert isinstance(r1["requestState"], str) and r1["requestState"]
        r2 = await first_round(
            probe,
            "test_input_required_result_request_state",
            inputResponses={"confirm": {"action": "accept", "content": {"ok": True}}},
            requestState=r1["requestState"],
        )
    assert "state-ok" in only_text(r2)


async def test_mrtr_multiple_input_requests() -> None:
    async with connect("modern") as probe:
        r1 = await first_round(probe, "test_input_required_result_multiple_inputs")
        requests = input_required(r1)
        assert {k: r["method"] for k, r in requests.items()} == {
            "user_name": "elicitation/create",
            "greeting": "sampling/createMessage",
            "client_roots": "roots/list",
        }
        assert r1["requestState"]
        r2 = await probe.call("test_input_required_result_multiple_inputs")  # answers every key, echoes state
    assert only_text(r2) == "Name: Alice; Greeting: The capital of France is Paris.; Roots: 1"


async def test_mrtr_multi_round() -> None:
    name = "test_input_required_result_multi_round"
    async with connect("modern") as probe:
        r1 = await first_round(probe, name)
        assert list(input_required(r1)) == ["step1"] and r1["requestState"]
        r2 = await first_round(
            probe,
            name,
            inputResponses={"step1": {"action": "accept", "content": {"name": "Alice"}}},
            requestState=r1["requestState"],
        )
        step2 = input_required(r2)
        assert list(step2) == ["step2"]
        assert step2["step2"]["params"]["message"] == "Step 2: What is your favorite color?"
        assert r2["requestState"] != r1["requestState"]
        r3 = await first_round(
            probe,
            name,
            inputResponses={"step2": {"action": "accept", "content": {"color": "blue"}}},
            requestState=r2["requestState"],
        )
    assert only_text(r3) == "Multi-round complete for Alice who likes blue"


async def test_mrtr_missing_input_response_asks_again() -> None:
    async with connect("modern") as probe:
        r1 = await first_round(
            probe,
            "test_input_required_result_elicitation",
            inputResponses={"wrong_key": {"action": "accept", "content": {"data": "wrong"}}},
        )
    assert list(input_required(r1)) == ["user_name"]


async def test_mrtr_on_prompts_get() -> None:
    async with connect("modern") as probe:
        r1 = await probe.request("prompts/get", {"name": "test_input_required_result_prompt"}, resolve=False)
        requests = input_required(r1)
        assert list(requests) == ["user_context"]
        assert requests["user_context"]["params"]["message"] == "What context should the prompt use?"
        r2 = await probe.request(
            "prompts/get",
            {
                "name": "test_input_required_result_prompt",
                "requestState": r1["requestState"],
                "inputResponses": {"user_context": {"action": "accept", "content": {"context": "test context"}}},
            },
        )
    assert r2["resultType"] == "complete"
    assert r2["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "Prompt with context: test context"}}
    ]


async def test_mrtr_result_type_and_unsupported_methods() -> None:
    async with connect("modern") as probe:
        r1 = await first_round(probe, "test_input_required_result_elicitation")
        assert r1["resultType"] == "input_required"
        for method in ("tools/list", "prompts/list"):
            assert (await probe.request(method, resolve=False))["resultType"] == "complete"


async def test_mrtr_tampered_state_is_rejected() -> None:
    name = "test_input_required_result_tampered_state"
    async with connect("modern") as probe:
        r1 = await first_round(probe, name)
        [key] = input_required(r1)
        with pytest.raises(McpError) as caught:
            await first_round(
                probe,
                name,
                inputResponses={key: {"action": "accept", "content": {"ok": True}}},
                requestState=r1["requestState"] + "-TAMPERED",
            )
        assert caught.value.code == -32602
        r2 = await first_round(
            probe,
            name,
            inputResponses={key: {"action": "accept", "content": {"ok": True}}},
            requestState=r1["requestState"],
        )
    assert only_text(r2).startswith("integrity-ok")


@pytest.mark.parametrize(
    ("declared", "keys"),
    [
        ({"sampling": {}}, ["sample_input"]),  # the scenario: sampling only, so no elicitation request
        ({"elicitation": {}}, ["elicit_input"]),
        (ALL_CAPABILITIES, ["elicit_input", "sample_input"]),
    ],
)
async def test_mrtr_respects_client_capabilities(declared: dict, keys: list) -> None:
    name = "test_input_required_result_capabilities"
    async with connect("modern", capabilities={}) as probe:
        meta = {"io.modelcontextprotocol/clientCapabilities": declared}
        r1 = await first_round(probe, name, meta=meta)
        assert sorted(input_required(r1)) == keys
        result = await probe.call(name, meta=meta)
    assert only_text(result) == f"capabilities-ok: received {','.join(keys)}"


async def test_mrtr_capabilities_with_nothing_declared() -> None:
    async with connect("modern", capabilities={}) as probe:
        result = await first_round(probe, "test_input_required_result_capabilities")
    assert result["resultType"] == "complete" and "No supported capabilities" in only_text(result)


async def test_mrtr_ignores_extra_input_responses() -> None:
    async with connect("modern") as probe:
        result = await first_round(
            probe,
            "test_input_required_result_elicitation",
            inputResponses={
                "user_name": {"action": "accept", "content": {"name": "Alice"}},
                "unknown_extra_key": {"action": "accept", "content": {"foo": "bar"}},
                "another_unexpected": {"action": "accept", "content": {"baz": 123}},
            },
        )
    assert result["resultType"] == "complete" and only_text(result) == "Hello, Alice!"


async def test_mrtr_validates_input_responses() -> None:
    name = "test_input_required_result_elicitation"
    async with connect("modern") as probe:
        with pytest.raises(McpError) as caught:
            await first_round(probe, name, inputResponses={"user_name": 12345})
        assert caught.value.code == -32602
        again = await first_round(probe, name, inputResponses=None)
        assert again["resultType"] == "input_required"


async def test_mrtr_declined_form_is_a_tool_error() -> None:
    async with connect("modern") as probe:
        result = await first_round(
            probe, "test_input_required_result_elicitation", inputResponses={"user_name": {"action": "decline"}}
        )
    assert result["isError"] is True and "action=decline" in result["content"][0]["text"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("test_input_required_result_elicitation", "Hello, Alice!"),
        ("test_input_required_result_sampling", "Sampling result: The capital of France is Paris."),
        ("test_input_required_result_list_roots", "Found 1 root(s): file:///test/root"),
        ("test_input_required_result_request_state", "confirmed without a requestState (ok=True)"),
        (
            "test_input_required_result_multiple_inputs",
            "Name: Alice; Greeting: The capital of France is Paris.; Roots: 1",
        ),
        ("test_input_required_result_multi_round", "Multi-round complete for Alice who likes blue"),
        ("test_input_required_result_tampered_state", "integrity-ok: state verified (ok=True)"),
        ("test_input_required_result_capabilities", "capabilities-ok: received elicit_input,sample_input"),
    ],
)
async def test_mrtr_tools_in_a_legacy_session(name: str, expected: str) -> None:
    """The same handlers send real server→client requests after an initialize handshake."""
    async with connect("legacy") as probe:
        assert only_text(await probe.call(name)) == expected
        assert probe.asked


# -- server-stateless diagnostics (2026-07-28, SEP-2575) --------------------------------------------


async def test_discover_declares_what_the_plugin_serves() -> None:
    async with connect("modern", capabilities={}) as probe:
        result = await probe.request("server/discover")
    assert "2026-07-28" in result["supportedVersions"]
    # sep-2575-server-declares-prompts-in-discover and -discover-capabilities-match-handlers.
    assert {"tools", "prompts", "resources", "completions"} <= set(result["capabilities"])
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"]


async def test_missing_capability_is_refused_with_32021() -> None:
    async with connect("modern", capabilities={}) as probe:
        with pytest.raises(McpError) as caught:
            await probe.call("test_missing_capability")
    assert caught.value.code == -32021
    assert caught.value.data == {"requiredCapabilities": {"sampling": {}}}


async def test_missing_capability_succeeds_with_sampling() -> None:
    async with connect("modern", capabilities={"sampling": {}}) as probe:
        assert only_text(await probe.call("test_missing_capability")).startswith("Success")


async def test_streaming_elicitation_asks_in_the_result_not_on_the_stream() -> None:
    async with connect("modern", capabilities={"elicitation": {}}) as probe:
        result = await first_round(probe, "test_streaming_elicitation")
        assert list(input_required(result)) == ["confirmation"]
        assert probe.asked == []  # no server→client request was sent on the stream
        done = await probe.call("test_streaming_elicitation")
    assert only_text(done) == "Streaming complete (action=accept)"


async def test_logging_tool_logs_only_with_a_log_level() -> None:
    async with connect("modern") as probe:
        assert only_text(await probe.call("test_logging_tool")) == "Logging evaluated"
        assert probe.notified("notifications/message") == []
        await probe.call("test_logging_tool", meta={"io.modelcontextprotocol/logLevel": "warning"})
        levels = [n["params"]["level"] for n in probe.notified("notifications/message")]
    assert levels == ["warning", "error"]


async def open_listen(probe, **filters) -> None:
    await probe.client.start_request("subscriptions/listen", {"notifications": filters})
    await probe.client.wait_for_notification("notifications/subscriptions/acknowledged")


async def test_trigger_tool_change_reaches_a_tools_subscription() -> None:
    async with connect("modern") as probe:
        await open_listen(probe, toolsListChanged=True)
        only_text(await probe.call("test_trigger_tool_change"))
        [changed] = await probe.client.wait_for_notification("notifications/tools/list_changed")
        assert probe.client.notifications[0]["method"] == "notifications/subscriptions/acknowledged"
        subscription = probe.client.notifications[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"]
        assert changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == subscription


async def test_trigger_prompt_change_and_the_notification_filter() -> None:
    async with connect("modern") as probe:
        await open_listen(probe, promptsListChanged=True)
        only_text(await probe.call("test_trigger_tool_change"))
        only_text(await probe.call("test_trigger_prompt_change"))
        await probe.client.wait_for_notification("notifications/prompts/list_changed")
        assert probe.notified("notifications/tools/list_changed") == []  # filtered to prompts only


@LEGACY_ONLY
async def test_triggers_in_a_legacy_session(era: str) -> None:
    async with connect(era) as probe:
        only_text(await probe.call("test_trigger_tool_change"))
        only_text(await probe.call("test_trigger_prompt_change"))
        await probe.client.wait_for_notification("notifications/tools/list_changed")
        await probe.client.wait_for_notification("notifications/prompts/list_changed")


# -- caching (2026-07-28, SEP-2549) -----------------------------------------------------------------


async def test_caching_hints_on_every_cacheable_result() -> None:
    app = make_app()
    async with connect("modern", app=app) as probe:
        results = [
            await probe.request(m) for m in ("tools/list", "prompts/list", "resources/list", "resources/templates/list")
        ]
        first = results[2]["resources"][0]["uri"]
        results.append(await probe.request("resources/read", {"uri": first}))
    for result in results:
        assert isinstance(result["ttlMs"], int) and result["ttlMs"] >= 0
        assert result["cacheScope"] in ("public", "private")
