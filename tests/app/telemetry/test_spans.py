"""OpenTelemetry with the real SDK and in-memory exporters: spans, parents, links, errors, histograms."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
import trio
from opentelemetry import baggage
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode
from trio_websocket import open_websocket_url

import mcptrio
from mcptrio import McpError, ToolError
from mcptrio.app.telemetry import Telemetry
from mcptrio.testing import open_client

from ...transports.http.client import (
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

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_SPAN = "00f067aa0ba902b7"
TRACEPARENT = f"00-{TRACE_ID}-{PARENT_SPAN}-01"


class Otel:
    """An SDK tracer and meter provider of the test's own, read back in memory."""

    def __init__(self) -> None:
        self.spans = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.spans))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])

    def telemetry(self) -> Telemetry:
        return Telemetry(tracer_provider=self.tracer_provider, meter_provider=self.meter_provider)

    def server_spans(self) -> list[Any]:
        return [s for s in self.spans.get_finished_spans() if s.kind == SpanKind.SERVER]

    def histogram(self, name: str) -> list[Any]:
        """The data points of the histogram ``name``."""
        data = self.reader.get_metrics_data()
        points = []
        for resource in data.resource_metrics if data else []:
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name == name:
                        assert metric.unit == "s"
                        points.extend(metric.data.data_points)
        return points


@pytest.fixture
def otel() -> Otel:
    return Otel()


def make_app(otel: Otel, background: list[trio.Nursery] | None = None) -> mcptrio.App:
    app = mcptrio.App("otel-test", telemetry=otel.telemetry())
    tracer = otel.tracer_provider.get_tracer("plugin")

    @app.tool()
    async def echo(text: str) -> str:
        return text

    @app.tool()
    async def refuse() -> str:
        raise ToolError("no, thank you")

    @app.tool()
    async def invalid() -> str:
        raise McpError(-32602, "that will not do")

    @app.tool()
    async def nap(seconds: float) -> str:
        await trio.sleep(seconds)
        return "rested"

    @app.tool()
    async def who() -> str:
        return baggage.get_baggage("user") or "nobody"

    @app.tool()
    async def spawn() -> str:
        """Starts work in a long-lived nursery (not the request's) that makes a span of its own."""
        done = trio.Event()

        async def work() -> None:
            with tracer.start_as_current_span("background work"):
                await trio.sleep(0)
            done.set()

        assert background
        background[0].start_soon(work)
        await done.wait()
        return "spawned"

    @app.prompt()
    async def greet(name: str) -> str:
        return f"Hello, {name}"

    @app.resource("memo://one")
    async def memo() -> str:
        return "one"

    return app


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_one_server_span_per_request_with_the_semantic_convention_attributes(otel, era):
    async with open_client(make_app(otel), era=era) as client:
        await client.call_tool("echo", {"text": "hi"})
        await client.request("prompts/get", {"name": "greet", "arguments": {"name": "Ada"}})
        await client.request("resources/read", {"uri": "memo://one"})
        await client.request("tools/list")
    spans = otel.server_spans()
    assert [s.name for s in spans] == ["tools/call echo", "prompts/get greet", "resources/read", "tools/list"]
    tool, prompt, resource, listing = (dict(s.attributes) for s in spans)
    version = "2025-11-25" if era == "legacy" else "2026-07-28"
    assert tool["mcp.method.name"] == "tools/call" and tool["gen_ai.tool.name"] == "echo"
    assert tool["gen_ai.operation.name"] == "execute_tool"
    assert tool["mcp.protocol.version"] == version
    assert isinstance(tool["jsonrpc.request.id"], str) and tool["jsonrpc.request.id"]
    assert prompt["gen_ai.prompt.name"] == "greet" and "gen_ai.operation.name" not in prompt
    assert resource["mcp.resource.uri"] == "memo://one"
    assert listing["mcp.method.name"] == "tools/list"
    assert all("error.type" not in a for a in (tool, prompt, resource, listing))
    assert all(s.status.status_code != StatusCode.ERROR for s in spans)
    # the arguments never become attributes
    assert "hi" not in json.dumps([dict(s.attributes) for s in spans])


async def test_the_parent_comes_from_meta_traceparent_and_baggage_reaches_the_handler(otel):
    meta = {"traceparent": TRACEPARENT, "tracestate": "rojo=00f067aa0ba902b7", "baggage": "user=alice"}
    async with open_client(make_app(otel)) as client:
        result = await client.request("tools/call", {"name": "who", "arguments": {}, "_meta": meta})
    assert result["content"][0]["text"] == "alice"
    (span,) = otel.server_spans()
    assert format(span.context.trace_id, "032x") == TRACE_ID
    assert span.parent is not None and span.parent.is_remote
    assert format(span.parent.span_id, "016x") == PARENT_SPAN
    assert span.context.trace_state.get("rojo") == "00f067aa0ba902b7"


async def test_the_ambient_span_is_linked_when_meta_names_a_parent_and_is_the_parent_otherwise(otel):
    host = otel.tracer_provider.get_tracer("host program")
    with host.start_as_current_span("host") as ambient:
        async with open_client(make_app(otel)) as client:
            await client.request(
                "tools/call", {"name": "echo", "arguments": {"text": "a"}, "_meta": {"traceparent": TRACEPARENT}}
            )
            await client.call_tool("echo", {"text": "b"})
    linked, child = otel.server_spans()
    ambient_id = ambient.get_span_context().span_id
    assert format(linked.parent.span_id, "016x") == PARENT_SPAN
    assert [link.context.span_id for link in linked.links] == [ambient_id]
    assert child.parent.span_id == ambient_id and not child.links


async def test_a_malformed_traceparent_is_ignored(otel):
    async with open_client(make_app(otel)) as client:
        result = await client.request(
            "tools/call",
            {"name": "echo", "arguments": {"text": "x"}, "_meta": {"traceparent": "not-a-trace", "baggage": 7}},
        )
    assert result["content"][0]["text"] == "x"
    (span,) = otel.server_spans()
    assert span.parent is None and format(span.context.trace_id, "032x") != TRACE_ID


async def test_work_started_in_a_long_lived_nursery_is_a_child_of_the_request_span(otel):
    async with trio.open_nursery() as background:
        async with open_client(make_app(otel, [background])) as client:
            assert (await client.call_tool("spawn"))["content"][0]["text"] == "spawned"
    finished = otel.spans.get_finished_spans()
    (work,) = [s for s in finished if s.name == "background work"]
    (request,) = otel.server_spans()
    assert work.parent.span_id == request.context.span_id
    assert work.context.trace_id == request.context.trace_id


async def test_error_spans_carry_error_type_and_status_code(otel):
    async with open_client(make_app(otel)) as client:
        refused = await client.call_tool("refuse")
        assert refused["isError"] is True
        invalid = await client.response("tools/call", {"name": "invalid", "arguments": {}})
        assert invalid["error"]["code"] == -32602
        missing = await client.response("prompts/get", {"name": "nope"})
        assert "error" in missing
    tool_error, invalid_span, missing_span = otel.server_spans()
    assert tool_error.attributes["error.type"] == "tool_error"
    assert "rpc.response.status_code" not in tool_error.attributes
    assert tool_error.status.status_code == StatusCode.ERROR
    assert invalid_span.attributes["error.type"] == "-32602"
    assert invalid_span.attributes["rpc.response.status_code"] == "-32602"
    assert invalid_span.status.description == "that will not do"
    assert missing_span.attributes["error.type"] == str(missing["error"]["code"])


async def test_cancelled_and_timed_out_requests_are_told_apart(otel, autojump_clock):
    app = make_app(otel)
    async with open_client(app, limits=mcptrio.SessionLimits(request_timeout=0.2)) as client:
        timed_out = await client.call_tool("nap", {"seconds": 5})
        assert timed_out["isError"] is True and "timed out" in timed_out["content"][0]["text"]
        request_id, _ = await client.start_request("tools/call", {"name": "nap", "arguments": {"seconds": 0.15}})
        await trio.sleep(0.05)
        await client.notify("notifications/cancelled", {"requestId": request_id})
        await client.call_tool("echo", {"text": "after"})
    timeout, cancelled, after = otel.server_spans()
    assert timeout.attributes["error.type"] == "timeout"
    assert cancelled.attributes["error.type"] == "cancelled"
    assert "error.type" not in after.attributes


async def test_operation_and_session_duration_histograms(otel):
    async with open_client(make_app(otel)) as client:
        for _ in range(3):
            await client.call_tool("echo", {"text": "x"})
        await client.call_tool("refuse")
    operations = otel.histogram("mcp.server.operation.duration")
    by_error = {p.attributes.get("error.type"): p for p in operations}
    ok, failed = by_error[None], by_error["tool_error"]
    assert ok.count == 3 and failed.count == 1
    assert ok.attributes["mcp.method.name"] == "tools/call" and ok.attributes["gen_ai.tool.name"] == "echo"
    assert "jsonrpc.request.id" not in ok.attributes and "mcp.session.id" not in ok.attributes
    assert 0 < ok.sum < 5
    assert list(ok.explicit_bounds)[:3] == [0.01, 0.02, 0.05]
    (session,) = otel.histogram("mcp.server.session.duration")
    assert session.count == 1 and session.sum > 0
    assert session.attributes["mcp.protocol.version"] == "2025-11-25"


async def test_over_http_both_eras_spans_carry_the_session_and_network(otel):
    async with http_server(make_app(otel)) as url, new_client() as http:
        session_id = await initialize(http, url)
        legacy = await http.post(url, json=call_tool("echo", {"text": "l"}, 1), headers=legacy_headers(session_id))
        assert text_of(final_of(legacy)) == "l"
        body, headers = modern_tool("echo", {"text": "m"}, 2, meta={"traceparent": TRACEPARENT})
        modern = await http.post(url, json=body, headers=headers)
        assert text_of(final_of(modern)) == "m"
    legacy_span, modern_span = otel.server_spans()
    assert legacy_span.attributes["mcp.session.id"] == session_id
    assert "mcp.session.id" not in modern_span.attributes
    for span in (legacy_span, modern_span):
        assert span.attributes["network.transport"] == "tcp"
        assert span.attributes["network.protocol.name"] == "http"
    assert format(modern_span.context.trace_id, "032x") == TRACE_ID


async def test_over_websocket_spans_name_the_protocol(otel):
    async with ws_server(make_app(otel)) as url:
        with trio.fail_after(10):
            async with open_websocket_url(url, subprotocols=["mcp"]) as ws:
                params = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": CLIENT_INFO}
                await ws.send_message(json.dumps(rpc("initialize", params, 0)))
                await ws.get_message()
                await ws.send_message(json.dumps(notification("notifications/initialized")))
                await ws.send_message(json.dumps(call_tool("echo", {"text": "ws"}, 1)))
                assert text_of(json.loads(await ws.get_message())) == "ws"
    (span,) = otel.server_spans()
    assert span.attributes["network.protocol.name"] == "websocket"
    assert span.attributes["network.transport"] == "tcp"


async def test_telemetry_off_makes_no_spans(otel):
    app = mcptrio.App("quiet", telemetry=False)

    @app.tool()
    async def echo(text: str) -> str:
        return text

    tracer = otel.tracer_provider.get_tracer("host")
    with tracer.start_as_current_span("host"):
        async with open_client(app) as client:
            await client.call_tool("echo", {"text": "x"})
    assert app.telemetry is None
    assert otel.server_spans() == []


def test_telemetry_is_on_by_default_when_the_api_is_installed_and_costs_nothing_without_an_sdk():
    app = mcptrio.App("default")
    assert isinstance(app.telemetry, Telemetry)
    assert app.pipeline() == []  # no SDK configured in this process: no middleware at all
    assert mcptrio.App("asked", telemetry=True).pipeline() != []


async def test_with_the_api_only_baggage_still_reaches_the_handler_when_telemetry_is_asked_for():
    default = mcptrio.App("api only", telemetry=True)  # the global providers: none set in this process
    default.include(make_app(Otel()))
    async with open_client(default) as client:
        result = await client.request("tools/call", {"name": "who", "arguments": {}, "_meta": {"baggage": "user=bob"}})
        assert result["content"][0]["text"] == "bob"
        assert (await client.call_tool("echo", {"text": "plain"}))["content"][0]["text"] == "plain"


LATE_SDK = """
import sys, trio, mcptrio
if sys.argv[1] == "api first":
    from opentelemetry import trace
from mcptrio.testing import open_client

app = mcptrio.App("late")
print("telemetry:", "on" if app.telemetry is not None else "not yet")
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

@app.tool()
async def echo(text: str) -> str:
    return text

async def main():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)  # as a plugin or the host program may, after the App exists
    async with open_client(app) as client:
        await client.call_tool("echo", {"text": "after"})
    print([s.name for s in exporter.get_finished_spans()])

trio.run(main)
"""


@pytest.mark.parametrize("order", ["api first", "app first"])
async def test_an_sdk_set_after_the_app_was_made_is_reported_to(order):
    """Also when nothing had imported OpenTelemetry when the App was made (it did not either)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = await trio.run_process(
        [sys.executable, "-c", LATE_SDK, order], capture_stdout=True, capture_stderr=True, env=env
    )
    assert done.stdout.decode().split("\n")[:2] == [
        f"telemetry: {'on' if order == 'api first' else 'not yet'}",
        "['tools/call echo']",
    ], done.stderr.decode()


def test_a_program_that_never_imports_opentelemetry_does_not_load_it():
    code = (
        "import sys, mcptrio; app = mcptrio.App('plain'); app.pipeline(); "
        "print(app.telemetry, any(m.startswith('opentelemetry') for m in sys.modules))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert done.stdout.strip() == "None False", done.stderr
