"""Documents turned into tools, without an API: OpenAPI 3.0's dialect as JSON Schema, recursive
schemas kept under $defs, readOnly and writeOnly, name clashes between locations, and where each
argument goes in the HTTP request (styles, forms, text bodies, an operation's own server)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from mcptrio_openapi import DocumentError, OpenApiSettings, load
from mcptrio_openapi.calls import Caller
from mcptrio_openapi.credentials import Credentials

OK = {"200": {"description": "ok"}}


def document(paths: dict[str, Any], schemas: dict[str, Any] | None = None, version: str = "3.0.3") -> dict[str, Any]:
    return {
        "openapi": version,
        "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://api.example/{stage}", "variables": {"stage": {"default": "v1"}}}],
        "paths": paths,
        "components": {"schemas": schemas or {}},
    }


def tools(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: entry.definition() for name, entry in load(OpenApiSettings(doc)).registry.tools.items()}


def answer(schema: dict[str, Any]) -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def test_openapi_3_0_dialect_becomes_json_schema() -> None:
    schemas = {
        "Price": {
            "type": "object",
            "properties": {
                "amount": {"type": "number", "minimum": 0, "exclusiveMinimum": True, "example": 3},
                "note": {"type": "string", "nullable": True, "x-internal": "yes"},
                "kind": {"type": "string", "enum": ["a", "b"], "nullable": True},
            },
        }
    }
    doc = document(
        {"/p": {"get": {"operationId": "price", "responses": answer({"$ref": "#/components/schemas/Price"})}}}, schemas
    )
    output = tools(doc)["price"]["outputSchema"]
    assert output["properties"] == {
        "amount": {"type": "number", "exclusiveMinimum": 0},
        "note": {"type": ["string", "null"]},
        "kind": {"type": ["string", "null"], "enum": ["a", "b", None]},
    }
    jsonschema.Draft202012Validator.check_schema(output)


def test_recursive_schemas_are_kept_once_under_defs() -> None:
    schemas = {
        "Node": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
            },
        }
    }
    node = {"$ref": "#/components/schemas/Node"}
    body = {"content": {"application/json": {"schema": node}}}
    doc = document(
        {"/tree": {"put": {"operationId": "put_tree", "requestBody": body, "responses": answer(node)}}}, schemas
    )
    tool = tools(doc)["put_tree"]
    assert tool["inputSchema"]["properties"]["body"] == {"$ref": "#/$defs/Node"}
    assert tool["inputSchema"]["$defs"]["Node"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    assert tool["outputSchema"]["properties"]["result"] == {"$ref": "#/$defs/Node"}
    tree = {"name": "a", "children": [{"name": "b", "children": []}]}
    jsonschema.validate({"body": tree}, tool["inputSchema"])
    jsonschema.validate({"result": tree}, tool["outputSchema"])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"body": {"name": "a", "children": [{"name": 3}]}}, tool["inputSchema"])


def test_read_only_and_write_only_and_clashing_names() -> None:
    user = {
        "type": "object",
        "required": ["id", "password", "name"],
        "properties": {
            "id": {"type": "integer", "readOnly": True},
            "password": {"type": "string", "writeOnly": True},
            "name": {"type": "string"},
        },
    }
    parameters = [
        {"name": "name", "in": "query", "schema": {"type": "string"}},
        {"name": "name", "in": "header", "schema": {"type": "string"}},
    ]
    body = {"required": True, "content": {"application/json": {"schema": user}}}
    doc = document({"/users": {"post": {"parameters": parameters, "requestBody": body, "responses": answer(user)}}})
    tool = tools(doc)["post_users"]  # (no operationId: the method and the path)
    schema = tool["inputSchema"]
    assert set(schema["properties"]) == {"name", "name__header", "body"}  # (a body field clashes: one body)
    assert schema["properties"]["body"]["required"] == ["password", "name"]
    assert "id" not in schema["properties"]["body"]["properties"]
    assert tool["outputSchema"]["required"] == ["id", "name"] and "password" not in tool["outputSchema"]["properties"]


def request_of(doc: dict[str, Any], name: str, arguments: dict[str, Any]) -> Any:
    served = load(OpenApiSettings(doc))
    caller = Caller(served.base_url, Credentials(query={"key": "k"}), 5.0, 1000)
    operation = next(op for op in _operations(doc) if op.name == name)
    return caller.request(operation, arguments)


def _operations(doc: dict[str, Any]) -> list[Any]:
    from mcptrio_openapi.document import refs
    from mcptrio_openapi.operations import read_operations

    return read_operations(doc, refs(doc, "urn:test"))[0]


def test_arguments_go_where_the_document_says() -> None:
    parameters = [
        {"name": "id", "in": "path", "required": True, "schema": {"type": "array", "items": {"type": "integer"}}},
        {"name": "tags", "in": "query", "schema": {"type": "array", "items": {"type": "string"}}},
        {"name": "ids", "in": "query", "style": "pipeDelimited", "explode": False, "schema": {"type": "array"}},
        {"name": "filter", "in": "query", "style": "deepObject", "schema": {"type": "object"}},
        {"name": "q", "in": "query", "content": {"application/json": {"schema": {"type": "object"}}}},
        {"name": "X-Flag", "in": "header", "schema": {"type": "boolean"}},
        {"name": "session", "in": "cookie", "schema": {"type": "string"}},
    ]
    form = {"content": {"application/x-www-form-urlencoded": {"schema": {"type": "object", "properties": {"a": {}}}}}}
    doc = document(
        {
            "/things/{id}": {
                "post": {"operationId": "op", "parameters": parameters, "requestBody": form, "responses": OK}
            }
        }
    )
    arguments = {
        "id": [1, 2],
        "tags": ["x", "y"],
        "ids": [3, 4],
        "filter": {"color": "red"},
        "q": {"a": 1},
        "X-Flag": True,
        "session": "s",
        "a": "b c",
    }
    request = request_of(doc, "op", arguments)
    assert request.url.raw_path.startswith(b"/v1/things/1,2?")
    assert request.url.params.multi_items() == [
        ("key", "k"), ("tags", "x"), ("tags", "y"), ("ids", "3|4"), ("filter[color]", "red"), ("q", '{"a": 1}')
    ]  # fmt: skip
    assert request.headers["x-flag"] == "true" and request.headers["cookie"] == "session=s"
    assert request.read() == b"a=b+c"


def test_text_bodies_and_an_operations_own_server() -> None:
    text = {"content": {"text/plain": {"schema": {"type": "string"}}}}
    own = {"servers": [{"url": "https://uploads.example"}]}
    doc = document({"/notes": {"post": {"operationId": "note", "requestBody": text, "responses": OK, **own}}})
    request = request_of(doc, "note", {"body": "hello"})
    assert str(request.url) == "https://uploads.example/notes?key=k"
    assert request.headers["content-type"] == "text/plain" and request.read() == b"hello"


def test_a_body_that_cannot_be_mapped_names_where() -> None:
    multipart = {"content": {"multipart/form-data": {"schema": {"type": "object"}}}}
    doc = document({"/f": {"post": {"operationId": "up", "requestBody": multipart, "responses": OK}}})
    with pytest.raises(DocumentError) as refused:
        load(OpenApiSettings(doc))
    assert str(refused.value) == (
        "#/paths/~1f/post/requestBody: request body multipart/form-data cannot be mapped "
        "(JSON, a form, text or bytes can)"
    )
    served = load(OpenApiSettings(json.loads(json.dumps(doc)), skip_invalid=True))
    assert served.skipped == [str(refused.value)] and served.registry.tools == {}


@pytest.mark.parametrize("version", ["3.0.3", "3.1.0"])
def test_a_document_the_openapi_schema_refuses_names_where(version: str, caplog: pytest.LogCaptureFixture) -> None:
    doc = document(
        {"/a": {"get": {"operationId": "a", "responses": OK}}, "/b": {"get": {"operationId": "b", "responses": OK}}},
        version=version,
    )
    doc["info"] = {"title": "no version"}  # (info.version is required)
    doc["paths"]["/a"]["get"]["parameters"] = [{"name": "q", "in": "nowhere", "schema": {"type": "string"}}]
    with pytest.raises(DocumentError) as refused:
        load(OpenApiSettings(doc))
    message = str(refused.value)
    assert message.startswith("not a valid OpenAPI document: document: #/info: ") and "version" in message
    assert "\n" not in message
    served = load(OpenApiSettings(json.loads(json.dumps(doc)), skip_invalid=True))
    assert list(served.registry.tools) == ["b"] and served.skipped[0].startswith("#/paths/~1a/get/parameters/0")
    warned = [r.getMessage() for r in caplog.records if "skip_invalid" in r.getMessage()]
    assert any("#/info" in line for line in warned) and any("#/paths/~1a/get/parameters/0" in line for line in warned)
