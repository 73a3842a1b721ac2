"""The standard way on: ``opentelemetry-instrument mcptrio serve`` with the console exporter.

The real launcher (opentelemetry-distro) configures the SDK from ``OTEL_*`` variables before
``mcptrio`` starts; a tool call over Streamable HTTP must come out of the console exporter as a
SERVER span with its MCP attributes and the client's trace as its parent, and the histograms
too, once SIGTERM has drained the server and the SDK has flushed at exit.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from mcptrio.testing import open_process_client

from ...transports.http.client import final_of, modern_tool, new_client, text_of

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
TRACEPARENT = f"00-{TRACE_ID}-b7ad6b7169203331-01"


def json_objects(text: str) -> list[Any]:
    """Every top-level JSON value in ``text`` (the console exporters print them one after another)."""
    decoder, found, at = json.JSONDecoder(), [], 0
    while True:
        start = text.find("{", at)
        if start < 0:
            return found
        try:
            value, at = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            at = start + 1
            continue
        found.append(value)


async def test_opentelemetry_instrument_exports_the_span_of_a_tool_call(tmp_path: Path):
    launcher = BIN / "opentelemetry-instrument"
    assert launcher.exists(), "opentelemetry-distro is a test dependency: run scripts/dev.sh test"
    env = dict(
        os.environ,
        OTEL_TRACES_EXPORTER="console",
        OTEL_METRICS_EXPORTER="console",
        OTEL_LOGS_EXPORTER="none",
        OTEL_SERVICE_NAME="mcptrio-under-test",
        OTEL_METRIC_EXPORT_INTERVAL="600000",
    )
    stdout_path, stderr_path = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    command = [
        str(launcher),
        str(BIN / "mcptrio"),
        "serve",
        "--plugins",
        "bench",
        "--transport",
        "http",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
    ]
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        process = await trio.lowlevel.open_process(
            command, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env, cwd=str(ROOT)
        )
    try:
        url = None
        with trio.move_on_after(30):
            while url is None and process.poll() is None:
                found = re.search(r"serving bench at (\S+)", stderr_path.read_text(errors="replace"))
                url = found.group(1) if found else None
                await trio.sleep(0.05)
        assert url, f"server did not start; stderr:\n{stderr_path.read_text(errors='replace')}"
        async with new_client() as http:
            body, headers = modern_tool("echo", {"text": "traced"}, 7, meta={"traceparent": TRACEPARENT})
            response = await http.post(url, json=body, headers=headers)
            assert text_of(final_of(response)) == "traced"
        process.send_signal(signal.SIGTERM)
        with trio.fail_after(20):
            await process.wait()
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, stderr_path.read_text(errors="replace")
    printed = json_objects(stdout_path.read_text(errors="replace"))
    spans = [o for o in printed if o.get("name") == "tools/call echo"]
    assert len(spans) == 1, printed
    span = spans[0]
    assert span["kind"] == "SpanKind.SERVER"
    assert span["context"]["trace_id"] == f"0x{TRACE_ID}"
    assert span["parent_id"] == "0xb7ad6b7169203331"
    attributes = span["attributes"]
    assert attributes["mcp.method.name"] == "tools/call" and attributes["gen_ai.tool.name"] == "echo"
    assert attributes["network.transport"] == "tcp" and attributes["mcp.protocol.version"] == "2026-07-28"
    assert attributes["jsonrpc.request.id"] == "7"
    assert span["resource"]["attributes"]["service.name"] == "mcptrio-under-test"
    metric_names = {
        m["name"]
        for o in printed
        for r in o.get("resource_metrics", [])
        for s in r["scope_metrics"]
        for m in s["metrics"]
    }
    assert "mcp.server.operation.duration" in metric_names


@pytest.mark.parametrize("telemetry", ["on", "off"])
async def test_over_stdio_the_span_says_pipe_and_no_telemetry_turns_it_off(tmp_path: Path, telemetry: str):
    env = dict(os.environ, OTEL_TRACES_EXPORTER="console", OTEL_METRICS_EXPORTER="none", OTEL_LOGS_EXPORTER="none")
    command = [str(BIN / "opentelemetry-instrument"), str(BIN / "mcptrio"), "serve", "--plugins", "bench"]
    if telemetry == "off":
        command.append("--no-telemetry")
    stderr_path = tmp_path / "stderr.txt"
    with open(stderr_path, "wb") as err:
        async with open_process_client(command, stderr=err, env=env) as client:
            assert (await client.call_tool("echo", {"text": "piped"}))["content"][0]["text"] == "piped"
    assert client.end.process.returncode == 0
    # the console exporter writes to sys.stdout, which mcptrio keeps for messages: it lands on stderr
    spans = [o for o in json_objects(stderr_path.read_text(errors="replace")) if o.get("name") == "tools/call echo"]
    if telemetry == "off":
        assert spans == []
    else:
        (span,) = spans
        assert span["attributes"]["network.transport"] == "pipe"
        assert span["attributes"]["mcp.protocol.version"] == "2025-11-25"
