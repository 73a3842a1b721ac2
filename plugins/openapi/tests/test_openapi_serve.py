"""``mcptrio serve --plugins openapi`` configured by a ``[plugins.openapi]`` table, called by the official
SDK client (``mcp`` 2.3.0) over Streamable HTTP in both eras; and the plugin's options and documents
refused at start in one line with exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import trio
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.interop._support import serve_http

SERVE = [sys.executable, "-m", "mcptrio.cli", "serve", "--plugins", "openapi"]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_sdk_client_over_http(shop: str, tmp_path: Path, mode: str) -> None:
    config = tmp_path / "mcptrio.toml"
    config.write_text(f'[plugins.openapi]\nspec = "{shop}/openapi.json"\ntimeout = 5\n')
    async with serve_http(plugins="openapi", args=["--config", str(config)]) as server:
        with trio.fail_after(30):
            async with Client(streamable_http_client(server.url), mode=mode) as client:
                assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
                tools = {tool.name: tool for tool in (await client.list_tools()).tools}
                assert len(tools) == 12
                for name, arguments in [
                    ("list_items", {"limit": 1}),
                    ("get_item", {"item_id": 1}),
                    ("set_tags", {"item_id": 2, "body": ["x", "y"]}),
                    ("stats", {}),
                    ("create_item", {"name": "cup", "color": "green", "dimensions": {"width": 1, "height": 1}}),
                ]:
                    result = await client.call_tool(name, arguments)
                    assert not result.is_error, (name, result.content)
                    jsonschema.validate(result.structured_content, tools[name].output_schema)
                    if name == "get_item":
                        assert result.structured_content["name"] == "kite"
                missing = await client.call_tool("get_item", {"item_id": 404})
                assert missing.is_error and missing.content[0].text.startswith("HTTP 404 Not Found")


def refused(tmp_path: Path, table: str, *args: str) -> str:
    """The one line ``mcptrio serve`` refuses the config with (exit status 2)."""
    config = tmp_path / "mcptrio.toml"
    config.write_text(table)
    done = subprocess.run(
        [*SERVE, "--config", str(config), *args], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert lines[0].startswith("mcptrio: error: ")
    return lines[0].removeprefix("mcptrio: error: ")


def write(tmp_path: Path, document: dict) -> Path:
    path = tmp_path / "api.json"
    path.write_text(json.dumps({"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, **document}))
    return path


def test_options_refused_in_one_line(tmp_path: Path) -> None:
    assert refused(tmp_path, "").startswith("plugins.openapi.spec is required: the OpenAPI document")
    doc = write(tmp_path, {"paths": {}, "servers": [{"url": "http://127.0.0.1:9"}]})
    assert refused(tmp_path, '[plugins.openapi]\nspec = "api.json"\nnope = 1\n') == (
        "unknown plugin option(s): plugins.openapi.nope"
    )
    assert refused(tmp_path, '[plugins.openapi]\nspec = "api.json"\ntimeout = "soon"\n') == (
        "plugins.openapi.timeout must be a positive number of seconds, got 'soon'"
    )
    assert refused(tmp_path, f'[plugins.openapi]\nspec = "{doc}"\n', "--plugin-option", "openapi.timeout=-1") == (
        "plugins.openapi.timeout must be a positive number of seconds, got -1.0"
    )
    assert (
        refused(tmp_path, "[plugins.other]\nx = 1\n")
        == "[plugins.other]: 'other' is not among the plugins served (--plugins)"
    )
    assert (
        refused(tmp_path, "plugins = 3\n")
        == f"config {tmp_path / 'mcptrio.toml'}: plugins must hold a table per plugin ([plugins.NAME])"
    )
    routes = '[plugins.openapi]\nspec = "api.json"\n[[plugins.openapi.route_maps]]\nkind = "page"\n'
    assert (
        refused(tmp_path, routes)
        == "plugins.openapi.route_maps[0].kind must be one of tool, resource, exclude, got 'page'"
    )


def test_a_plugin_without_options_refuses_them(tmp_path: Path) -> None:
    config = tmp_path / "mcptrio.toml"
    config.write_text("[plugins.filesystem]\nroot = '/'\n")
    done = subprocess.run(
        [sys.executable, "-m", "mcptrio.cli", "serve", "--plugins", "filesystem", "--config", str(config)],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip() == "mcptrio: error: [plugins.filesystem]: the plugin 'filesystem' takes no options"


def test_a_bad_document_is_one_line(tmp_path: Path) -> None:
    get = {"responses": {"200": {"description": "ok"}}}
    server = {"servers": [{"url": "http://127.0.0.1:9"}]}
    table = '[plugins.openapi]\nspec = "api.json"\n'
    write(
        tmp_path,
        {**server, "paths": {"/a": {"get": {**get, "operationId": "x"}}, "/b": {"get": {**get, "operationId": "x"}}}},
    )
    assert refused(tmp_path, table) == (
        "plugins.openapi.spec: #/paths/~1b/get: two operations are named 'x' (the other: #/paths/~1a/get); "
        "give one another operationId"
    )
    body = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Gone"}}}}
    write(tmp_path, {**server, "paths": {"/a": {"post": {**get, "requestBody": body}}}})
    assert refused(tmp_path, table) == (
        "plugins.openapi.spec: #/paths/~1a/post/requestBody/content/application/json: "
        "cannot resolve $ref '#/components/schemas/Gone'"
    )
    matrix = {"name": "id", "in": "path", "required": True, "style": "matrix", "schema": {"type": "string"}}
    write(tmp_path, {**server, "paths": {"/a/{id}": {"get": {**get, "parameters": [matrix]}}}})
    assert refused(tmp_path, table) == (
        "plugins.openapi.spec: #/paths/~1a~1{id}/get/parameters/0: parameter 'id' in path: "
        "style 'matrix' cannot be mapped"
    )
    (tmp_path / "api.json").write_text('{"swagger": "2.0"}')
    assert (
        refused(tmp_path, table)
        == f"plugins.openapi.spec: {tmp_path / 'api.json'}: #/openapi must be 3.0.x or 3.1.x, got swagger 2.0"
    )
    (tmp_path / "api.json").write_text("{ not: [json")
    assert "is neither JSON nor YAML" in refused(tmp_path, table)


def test_skip_invalid_serves_the_rest_with_a_warning(tmp_path: Path) -> None:
    get = {"responses": {"200": {"description": "ok"}}}
    matrix = {"name": "id", "in": "path", "required": True, "style": "matrix", "schema": {"type": "string"}}
    write(tmp_path, {"servers": [{"url": "http://127.0.0.1:9"}],
                     "paths": {"/a/{id}": {"get": {**get, "parameters": [matrix]}}, "/b": {"get": get}}})  # fmt: skip
    config = tmp_path / "mcptrio.toml"
    config.write_text('[plugins.openapi]\nspec = "api.json"\nskip_invalid = true\n')
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    listing = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}) + "\n"
    done = subprocess.run([*SERVE, "--config", str(config)], input=listing, capture_output=True, text=True, timeout=60)
    assert "skipped: #/paths/~1a~1{id}/get/parameters/0: parameter 'id' in path: style 'matrix'" in done.stderr
    tools = json.loads(done.stdout.splitlines()[0])["result"]["tools"]
    assert [tool["name"] for tool in tools] == ["get_b"]
