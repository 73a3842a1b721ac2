"""What an operator sees of the gateway: the upstream call as a CLIENT span, child of the caller's
SERVER span, whose trace context reaches the upstream; the access log naming the upstream."""

from __future__ import annotations

import logging

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

import mcptrio
import mcptrio.client
from mcptrio.app.telemetry import Telemetry
from mcptrio.gateway import Upstream

from .test_gateway import UPSTREAM, tools_named


async def test_the_upstream_call_is_a_client_span_whose_context_reaches_the_upstream():
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    app = mcptrio.App("gateway", telemetry=Telemetry(tracer_provider=provider))
    app.proxy(Upstream("up", command=UPSTREAM))
    async with mcptrio.client.connect(app, era="modern") as client:
        await tools_named(client, "up_traceparent")
        sent = (await client.call_tool("up_traceparent")).content[0].text
    finished = spans.get_finished_spans()
    server = [s for s in finished if s.kind == SpanKind.SERVER and s.name == "tools/call up_traceparent"]
    upstream = [s for s in finished if s.kind == SpanKind.CLIENT and s.name == "tools/call traceparent"]
    assert len(server) == 1 and len(upstream) == 1
    assert upstream[0].parent.span_id == server[0].context.span_id
    assert upstream[0].attributes["mcptrio.upstream"] == "up"
    context = upstream[0].context
    assert sent.rsplit("-", 1)[0] == f"00-{context.trace_id:032x}-{context.span_id:016x}"  # (then its flags)


async def test_the_access_log_names_the_upstream(caplog):
    caplog.set_level(logging.INFO, "mcptrio.access")
    app = mcptrio.App("gateway", access_log=True)
    app.proxy(Upstream("up", command=UPSTREAM))

    @app.tool()
    async def own() -> str:
        return "own"

    async with mcptrio.client.connect(app, era="legacy") as client:
        await tools_named(client, "up_echo")
        await client.call_tool("up_echo", {"text": "x"})
        await client.call_tool("own")
    fields = {
        r.fields["name"]: r.fields for r in caplog.records if getattr(r, "fields", {}).get("method") == "tools/call"
    }
    assert fields["up_echo"]["upstream"] == "up"
    assert "upstream" not in fields["own"]
