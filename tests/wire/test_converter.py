"""The converter's rules: wire names and ``_meta``, base64, extra keys, closed objects, errors, unions."""

import base64
import json
from pathlib import Path
from typing import Any

import attrs
import jsonschema
import pytest

from mcptrio import wire
from mcptrio.wire import WireError, structure, unstructure

SCHEMA = json.loads((Path(__file__).parents[1] / "data/spec/schema/2026-07-28/schema.json").read_text())
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def error_of(data: Any, cls: Any, path: str | None = None) -> WireError:
    with pytest.raises(WireError) as caught:
        structure(data, cls, path=path)
    assert "\n" not in caught.value.message
    return caught.value


def assert_valid(obj: Any, definition: str) -> None:
    """The unstructured object is valid against its 2026-07-28 schema definition."""
    jsonschema.validate(unstructure(obj), {**SCHEMA, "$ref": f"#/$defs/{definition}"})


# -- wire names and _meta -------------------------------------------------------------------------


def test_snake_case_attributes_have_camel_case_wire_names() -> None:
    tool = structure({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {}}, wire.Tool)
    assert tool.input_schema == {"type": "object"} and tool.output_schema == {}
    assert unstructure(tool) == {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {}}


def test_meta_keeps_its_exact_key() -> None:
    data = {
        "content": [],
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}, "com.example/trace": "abc"},
    }
    result = structure(data, wire.CallToolResult)
    assert result.meta.server_info == wire.Implementation(name="s", version="1")
    assert result.meta.extra == {"com.example/trace": "abc"}
    out = unstructure(result)
    assert out == data
    assert "meta" not in out and "Meta" not in out


def test_untyped_meta_is_a_plain_dict() -> None:
    block = wire.TextContent(text="x", meta={"k": 1})
    assert unstructure(block) == {"type": "text", "text": "x", "_meta": {"k": 1}}
    assert structure({"type": "text", "text": "x", "_meta": {"k": 1}}, wire.TextContent) == block


def test_request_meta_names_the_reverse_dns_keys() -> None:
    params = structure({"name": "t", "_meta": {**META, "progressToken": 7}}, wire.CallToolRequestParams)
    assert params.meta.protocol_version == "2026-07-28"
    assert params.meta.client_capabilities == wire.ClientCapabilities()
    assert params.meta.progress_token == 7
    assert unstructure(params) == {"name": "t", "_meta": {**META, "progressToken": 7}}


def test_dollar_schema_is_spelled_on_the_wire() -> None:
    schema = wire.RequestedSchema(properties={}, schema="https://json-schema.org/draft/2020-12/schema")
    assert unstructure(schema) == {"type": "object", "properties": {}, "$schema": schema.schema}


def test_none_is_absent_on_the_wire_and_null_is_rejected() -> None:
    assert unstructure(wire.Prompt(name="p")) == {"name": "p"}
    error = error_of({"name": "p", "title": None}, wire.Prompt)
    assert (error.message, error.path) == ("title: expected str, got null", "title")


def test_an_error_response_may_have_a_null_id() -> None:
    data = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
    response = structure(data, wire.JSONRPCMessage)
    assert response == wire.JSONRPCErrorResponse(error=wire.Error(code=-32700, message="Parse error"))
    assert unstructure(response) == {"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}}


# -- bytes ------------------------------------------------------------------------------------------


def test_bytes_are_standard_base64() -> None:
    raw = bytes(range(256))
    image = wire.ImageContent(data=raw, mime_type="image/png")
    data = unstructure(image)
    assert data["data"] == base64.b64encode(raw).decode("ascii")
    assert unstructure(wire.AudioContent(data=b"hello", mime_type="audio/wav"))["data"] == "aGVsbG8="
    assert structure(data, wire.ImageContent) == image


def test_blob_is_base64_and_decodes_to_bytes() -> None:
    contents = structure({"uri": "file:///a", "blob": "AAEC/w=="}, wire.ResourceContents)
    assert contents == wire.BlobResourceContents(uri="file:///a", blob=b"\x00\x01\x02\xff")
    assert unstructure(contents)["blob"] == "AAEC/w=="


def test_bad_base64_is_a_wire_error() -> None:
    error = error_of({"type": "image", "data": "not base64!", "mimeType": "image/png"}, wire.ImageContent)
    assert error.path == "data" and "base64" in error.message
    error = error_of({"uri": "file:///a", "blob": 5}, wire.BlobResourceContents)
    assert error.message == "blob: expected a base64 str, got 5"


# -- open objects keep unknown keys ---------------------------------------------------------------------


def test_unknown_keys_of_open_objects_survive_at_every_level() -> None:
    data = {
        "name": "t",
        "inputSchema": {"type": "object"},
        "execution": {"taskSupport": "optional"},  # legacy tasks: not modelled, kept
        "annotations": {"readOnlyHint": True, "x-vendor": [1, 2]},
        "icons": [{"src": "https://example.com/i.png", "x-size": 3}],
    }
    tool = structure(data, wire.Tool)
    assert tool.extra == {"execution": {"taskSupport": "optional"}}
    assert tool.annotations.extra == {"x-vendor": [1, 2]}
    assert tool.icons[0].extra == {"x-size": 3}
    assert unstructure(tool) == data


def test_unknown_capabilities_survive() -> None:
    data = {"tools": {"listChanged": True}, "tasks": {"list": {}}, "future": {"x": 1}}
    capabilities = structure(data, wire.ServerCapabilities)
    assert capabilities.extra == {"tasks": {"list": {}}, "future": {"x": 1}}
    assert unstructure(capabilities) == data


def test_extra_given_in_python_goes_to_the_wire_and_never_overrides_an_attribute() -> None:
    root = wire.Root(uri="file:///r", extra={"x-flag": True, "uri": "file:///other"})
    assert unstructure(root) == {"uri": "file:///r", "x-flag": True}


# -- closed objects reject them -------------------------------------------------------------------------
# The MCP schemas close no object (none has ``additionalProperties: false``), so every wire class
# is open.  A class without an ``extra`` attribute is closed; tool argument models may be.


@attrs.frozen(kw_only=True)
class Point:
    x: int
    y: int | None = None


@attrs.frozen(kw_only=True)
class Shape:
    points: list[Point]
    extra: dict[str, Any] = attrs.Factory(dict)


def test_unknown_keys_of_closed_objects_are_rejected_by_name() -> None:
    error = error_of({"x": 1, "z": 2}, Point)
    assert error.message == "unknown field 'z'"
    error = error_of({"points": [{"x": 1}, {"x": 2, "w": 0, "z": 0}], "label": "kept"}, Shape, path="arguments")
    assert error.message == "arguments.points[1]: unknown fields 'w', 'z'"
    assert error.path == "arguments.points[1]"


def test_closed_objects_write_no_extra() -> None:
    assert unstructure(Point(x=1)) == {"x": 1}
    assert structure({"points": [{"x": 1, "y": 2}]}, Shape) == Shape(points=[Point(x=1, y=2)])


# -- errors name the field --------------------------------------------------------------------------------


def test_missing_field_names_its_path() -> None:
    error = error_of({"_meta": META}, wire.CallToolRequestParams, path="params")
    assert (error.message, error.path) == ("params.name: required field missing", "params.name")


def test_wrong_type_names_the_field_and_the_value() -> None:
    error = error_of({"name": "t", "arguments": "x"}, wire.CallToolRequestParams)
    assert (error.message, error.path) == ("arguments: expected object, got 'x'", "arguments")

    @attrs.frozen(kw_only=True)
    class Args:
        count: int

    error = error_of({"count": "abc"}, Args, path="arguments")
    assert (error.message, error.path) == ("arguments.count: expected int, got 'abc'", "arguments.count")


def test_nested_paths_use_wire_names_and_indices() -> None:
    data = {"name": "t", "_meta": {**META, "io.modelcontextprotocol/clientInfo": {"name": "c"}}}
    error = error_of(data, wire.CallToolRequestParams, path="params")
    assert error.message == "params._meta.io.modelcontextprotocol/clientInfo.version: required field missing"

    error = error_of({"content": [{"type": "text", "text": "a"}, {"type": "text"}]}, wire.CallToolResult)
    assert error.message == "content[1].text: required field missing"

    error = error_of({"action": "accept", "content": {"age": {"x": 1}}}, wire.ElicitResult)
    assert error.message == "content['age']: expected str, number, bool or array of str, got an object"


def test_several_problems_are_one_line() -> None:
    error = error_of({"uri": 5, "mimeType": 6}, wire.Resource)
    assert error.message == "uri: expected str, got 5; name: required field missing; mimeType: expected str, got 6"
    assert error.path == "uri"


def test_root_problem_has_no_path() -> None:
    error = error_of([1], wire.Tool)
    assert (error.message, error.path) == ("expected object, got an array", None)
    assert isinstance(error, ValueError)


def test_primitives_are_strict() -> None:
    assert error_of({"completion": {"values": [], "total": True}}, wire.CompleteResult).message == (
        "completion.total: expected int, got true"
    )
    assert error_of({"progressToken": 1, "progress": "1"}, wire.ProgressNotificationParams).message == (
        "progress: expected number, got '1'"
    )
    assert error_of({"completion": {"values": "abc"}}, wire.CompleteResult).message == (
        "completion.values: expected array, got 'abc'"
    )
    assert error_of({"requestId": 1.5}, wire.CancelledNotificationParams).path == "requestId"


def test_literals_are_checked() -> None:
    error = error_of({"jsonrpc": "1.0", "id": 1, "method": "ping"}, wire.JSONRPCRequest)
    assert error.message == "jsonrpc: expected '2.0', got '1.0'"
    error = error_of({"level": "loud"}, wire.SetLevelRequestParams)
    assert error.message.startswith("level: expected one of 'debug', 'info',") and error.message.endswith("got 'loud'")


# -- unions -------------------------------------------------------------------------------------------------


def test_content_blocks_by_type() -> None:
    blocks = structure(
        [
            {"type": "text", "text": "t"},
            {"type": "image", "data": "", "mimeType": "image/png"},
            {"type": "audio", "data": "", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///a", "name": "a"},
            {"type": "resource", "resource": {"uri": "file:///a", "text": "t"}},
        ],
        list[wire.ContentBlock],
    )
    kinds = [wire.TextContent, wire.ImageContent, wire.AudioContent, wire.ResourceLink, wire.EmbeddedResource]
    assert [type(block) for block in blocks] == kinds
    error = error_of({"content": [{"type": "video"}]}, wire.CallToolResult)
    assert error.path == "content[0].type" and "got 'video'" in error.message


def test_elicit_params_by_mode() -> None:
    form = {"message": "m", "requestedSchema": {"type": "object", "properties": {}}}
    assert structure(form, wire.ElicitRequestParams).mode is None
    assert type(structure({**form, "mode": "form"}, wire.ElicitRequestParams)) is wire.ElicitRequestFormParams
    url = structure({"mode": "url", "message": "m", "url": "https://x"}, wire.ElicitRequestParams)
    assert type(url) is wire.ElicitRequestURLParams
    assert unstructure(structure(form, wire.ElicitRequestParams)) == form


@pytest.mark.parametrize(
    ("data", "cls"),
    [
        ({"type": "string"}, wire.StringSchema),
        ({"type": "integer"}, wire.NumberSchema),
        ({"type": "boolean"}, wire.BooleanSchema),
        ({"type": "string", "enum": ["a"]}, wire.UntitledSingleSelectEnumSchema),
        ({"type": "string", "oneOf": [{"const": "a", "title": "A"}]}, wire.TitledSingleSelectEnumSchema),
        ({"type": "array", "items": {"type": "string", "enum": ["a"]}}, wire.UntitledMultiSelectEnumSchema),
        ({"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}}, wire.TitledMultiSelectEnumSchema),
        ({"type": "string", "enum": ["a"], "enumNames": ["A"]}, wire.LegacyTitledEnumSchema),
    ],
)
def test_primitive_schemas_by_shape(data: dict[str, Any], cls: type) -> None:
    schema = structure(data, wire.PrimitiveSchemaDefinition)
    assert type(schema) is cls and unstructure(schema) == data


def test_enum_schema_rejects_other_primitives() -> None:
    assert "expected one of" in error_of({"type": "string"}, wire.EnumSchema).message


def test_input_responses_by_shape() -> None:
    data = {
        "a": {"action": "decline"},
        "b": {"roots": []},
        "c": {"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m"},
    }
    responses = structure(data, wire.InputResponses)
    assert [type(r) for r in responses.values()] == [wire.ElicitResult, wire.ListRootsResult, wire.CreateMessageResult]
    assert unstructure(responses) == data


def test_sampling_content_is_one_block_or_a_list() -> None:
    one = structure({"role": "user", "content": {"type": "text", "text": "x"}}, wire.SamplingMessage)
    many = structure({"role": "user", "content": [{"type": "text", "text": "x"}]}, wire.SamplingMessage)
    assert one.content == wire.TextContent(text="x") and many.content == [wire.TextContent(text="x")]


def test_jsonrpc_messages_by_shape() -> None:
    kinds = {
        wire.JSONRPCRequest: {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        wire.JSONRPCNotification: {"jsonrpc": "2.0", "method": "notifications/initialized"},
        wire.JSONRPCResultResponse: {"jsonrpc": "2.0", "id": "a", "result": {}},
        wire.JSONRPCErrorResponse: {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "no"}},
    }
    for cls, data in kinds.items():
        message = structure(data, wire.JSONRPCMessage)
        assert type(message) is cls and unstructure(message) == data


# -- built in Python, valid on the wire -------------------------------------------------------------------


def test_objects_built_in_python_are_schema_valid() -> None:
    assert_valid(
        wire.CallToolResult(
            content=[
                wire.TextContent(text="hi"),
                wire.ImageContent(data=b"\x89PNG", mime_type="image/png"),
                wire.EmbeddedResource(resource=wire.BlobResourceContents(uri="file:///x", blob=b"\0")),
            ],
            structured_content={"n": 1},
            result_type="complete",
        ),
        "CallToolResult",
    )
    assert_valid(
        wire.DiscoverResult(
            supported_versions=["2026-07-28"],
            capabilities=wire.ServerCapabilities(tools=wire.ToolsCapability(list_changed=True)),
            ttl_ms=0,
            cache_scope="public",
        ),
        "DiscoverResult",
    )
    form = wire.ElicitRequestFormParams(
        message="m", requested_schema=wire.RequestedSchema(properties={"n": wire.StringSchema()})
    )
    assert_valid(wire.InputRequiredResult(input_requests={"x": wire.ElicitRequest(params=form)}), "InputRequiredResult")
    assert_valid(
        wire.SubscriptionsListenResult(meta=wire.SubscriptionsListenResultMeta(subscription_id=1)),
        "SubscriptionsListenResult",
    )


# -- the method maps --------------------------------------------------------------------------------------

PARAMS = {
    "initialize": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}},
    "ping": {},
    "server/discover": {"_meta": META},
    "tools/list": {"_meta": META, "cursor": "c"},
    "tools/call": {"name": "t", "_meta": META},
    "resources/list": {},
    "resources/templates/list": {},
    "resources/read": {"uri": "file:///a", "_meta": META},
    "resources/subscribe": {"uri": "file:///a"},
    "resources/unsubscribe": {"uri": "file:///a"},
    "prompts/list": {},
    "prompts/get": {"name": "p", "arguments": {"a": "b"}},
    "completion/complete": {
        "ref": {"type": "ref/resource", "uri": "file:///{p}"},
        "argument": {"name": "p", "value": ""},
    },
    "logging/setLevel": {"level": "info"},
    "subscriptions/listen": {"notifications": {}, "_meta": META},
    "notifications/cancelled": {"requestId": 1},
    "notifications/progress": {"progressToken": "t", "progress": 1},
    "notifications/initialized": {},
    "notifications/roots/list_changed": {},
}
RESULTS = {
    "initialize": {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}},
    "ping": {},
    "server/discover": {
        "resultType": "complete",
        "supportedVersions": ["2026-07-28"],
        "capabilities": {},
        "ttlMs": 0,
        "cacheScope": "private",
    },
    "tools/list": {"tools": []},
    "tools/call": {"content": []},
    "resources/list": {"resources": []},
    "resources/templates/list": {"resourceTemplates": []},
    "resources/read": {"contents": []},
    "resources/subscribe": {},
    "resources/unsubscribe": {},
    "prompts/list": {"prompts": []},
    "prompts/get": {"messages": []},
    "completion/complete": {"completion": {"values": []}},
    "logging/setLevel": {},
    "subscriptions/listen": {"resultType": "complete", "_meta": {"io.modelcontextprotocol/subscriptionId": 1}},
    "elicitation/create": {"action": "cancel"},
    "sampling/createMessage": {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"},
    "roots/list": {"roots": []},
}
SERVER_PARAMS = {
    "elicitation/create": {"mode": "url", "message": "m", "url": "https://x", "elicitationId": "e"},
    "sampling/createMessage": {"messages": [], "maxTokens": 1},
    "roots/list": {},
    "ping": {},
    "notifications/cancelled": {"requestId": "r", "reason": "timed out"},
    "notifications/progress": {"progressToken": 1, "progress": 0.5, "total": 1},
    "notifications/message": {"level": "error", "data": None},
    "notifications/resources/updated": {"uri": "file:///a"},
    "notifications/resources/list_changed": {},
    "notifications/tools/list_changed": {"_meta": {"io.modelcontextprotocol/subscriptionId": "s"}},
    "notifications/prompts/list_changed": {},
    "notifications/subscriptions/acknowledged": {"notifications": {"toolsListChanged": True}},
    "notifications/elicitation/complete": {"elicitationId": "e"},
}


def test_every_method_has_a_minimal_example() -> None:
    assert PARAMS.keys() == wire.PARAMS_BY_METHOD.keys()
    assert RESULTS.keys() == wire.RESULT_BY_METHOD.keys()
    assert SERVER_PARAMS.keys() == wire.SERVER_PARAMS_BY_METHOD.keys()


@pytest.mark.parametrize(
    ("table", "method", "data"),
    [("params", m, d) for m, d in PARAMS.items()]
    + [("result", m, d) for m, d in RESULTS.items()]
    + [("server params", m, d) for m, d in SERVER_PARAMS.items()],
)
def test_method_maps_structure_a_minimal_example(table: str, method: str, data: dict[str, Any]) -> None:
    cls = {
        "params": wire.PARAMS_BY_METHOD,
        "result": wire.RESULT_BY_METHOD,
        "server params": wire.SERVER_PARAMS_BY_METHOD,
    }
    obj = structure(data, cls[table][method])
    assert attrs.has(type(obj))
    assert unstructure(obj) == data


def test_a_wire_object_in_a_free_json_field_is_written_out() -> None:
    data = wire.UnsupportedProtocolVersionErrorData(requested="1", supported=["2026-07-28"])
    error = wire.Error(code=-32022, message="Unsupported protocol version", data=data)
    assert unstructure(error)["data"] == {"requested": "1", "supported": ["2026-07-28"]}
    assert unstructure(wire.CallToolResult(content=[], structured_content=[1, {"a": None}])) == {
        "content": [],
        "structuredContent": [1, {"a": None}],
    }


def test_error_data_by_code() -> None:
    data = {"requested": "1900-01-01", "supported": ["2026-07-28"]}
    assert structure(data, wire.ERROR_DATA_BY_CODE[-32022]) == wire.UnsupportedProtocolVersionErrorData(
        requested="1900-01-01", supported=["2026-07-28"]
    )
    data = {"requiredCapabilities": {"sampling": {}}}
    assert unstructure(structure(data, wire.ERROR_DATA_BY_CODE[-32021])) == data
    data = {"elicitations": [{"mode": "url", "message": "m", "url": "https://x", "elicitationId": "e"}]}
    assert unstructure(structure(data, wire.ERROR_DATA_BY_CODE[-32042])) == data
