"""OpenTelemetry for every MCP request, after the semantic conventions for MCP.

A built-in middleware (outermost of all) opens one SERVER span per request, named
``{mcp.method.name} {target}`` (the target is the tool or prompt name; never a resource URI, which
would make span names high-cardinality), with the attributes of ``docs/gen-ai/mcp.md`` in
open-telemetry/semantic-conventions.  Its parent is the trace context the client put in
``params._meta`` (``traceparent``, ``tracestate``, ``baggage``; SEP-414); the span that was
current when the request arrived (an HTTP server span, say, or the embedding program's) is
linked, or is the parent when the client sent none.

The span is made current in the request's worker task, so everything the handler does sees it,
and so does work it starts in any nursery, however long-lived: Trio gives a new task a copy of
the context of the task that calls ``start_soon``.

Errors: ``error.type`` is the JSON-RPC error code the client gets (also in
``rpc.response.status_code``), ``tool_error`` for a tool result with ``isError``, ``timeout`` for a
request that ran out of time and ``cancelled`` for one the client cancelled or a shutdown ended.

It needs only ``opentelemetry-api`` (``pip install mcptrio[otel]``).  Configure an SDK before the
first request (``opentelemetry-instrument mcptrio serve …``, a program that sets a tracer provider
before serving, or a plugin that does so when loaded) and spans and the two histograms are
exported; with the API alone, ``App`` leaves this middleware out of the pipeline altogether
(``App.pipeline``), unless asked for it with ``telemetry=True``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import trio
from opentelemetry import context as otel_context
from opentelemetry import metrics, propagate, trace
from opentelemetry.trace import Link, SpanKind, Status, StatusCode

from ..protocol.errors import McpError
from ..protocol.methods import PROMPT, RESOURCE, TOOL
from . import outcomes

if TYPE_CHECKING:
    from ..runtime.core import SessionCore
    from .middleware import CallNext, Request

# The bucket boundaries the conventions give for both histograms, in seconds.
BUCKETS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300)

# transport name -> (network.transport, network.protocol.name)
NETWORK = {"stdio": ("pipe", None), "http": ("tcp", "http"), "sse": ("tcp", "http"), "websocket": ("tcp", "websocket")}

# The attribute naming a request's target (``protocol/methods.py``), by what the target is; the
# tool's and the prompt's name are in the span name too.
TARGET_ATTRIBUTE = {TOOL: "gen_ai.tool.name", PROMPT: "gen_ai.prompt.name", RESOURCE: "mcp.resource.uri"}
IN_SPAN_NAME = ("gen_ai.tool.name", "gen_ai.prompt.name")

# Trace context fields a client may put in params._meta.
PROPAGATED = ("traceparent", "tracestate", "baggage")

# Attributes of the operation histogram (span attributes of low cardinality).
METRIC_KEYS = (
    "mcp.method.name",
    "gen_ai.tool.name",
    "gen_ai.prompt.name",
    "gen_ai.operation.name",
    "mcp.protocol.version",
    "network.transport",
    "network.protocol.name",
    "error.type",
    "rpc.response.status_code",
)


class Telemetry:
    """The OpenTelemetry middleware and session hooks of one App."""

    def __init__(
        self,
        *,
        tracer_provider: trace.TracerProvider | None = None,
        meter_provider: metrics.MeterProvider | None = None,
    ) -> None:
        """The global providers (those ``opentelemetry-instrument`` or your program set) unless given."""
        self.tracer = trace.get_tracer("mcptrio", tracer_provider=tracer_provider)
        meter = metrics.get_meter("mcptrio", meter_provider=meter_provider)
        self.operation_duration = meter.create_histogram(
            "mcp.server.operation.duration",
            unit="s",
            explicit_bucket_boundaries_advisory=list(BUCKETS),
            description="The duration of the MCP request as observed on the server, from receipt to answer.",
        )
        self.session_duration = meter.create_histogram(
            "mcp.server.session.duration",
            unit="s",
            explicit_bucket_boundaries_advisory=list(BUCKETS),
            description="The duration of the MCP session as observed on the MCP server.",
        )
        self._opened: dict[SessionCore, float] = {}
        # With only the API installed, every span and measurement is a no-op until a program sets
        # an SDK provider: until then a request skips the work (unless it carries baggage or a
        # trace context, which the handler may still read or pass on).
        tracers, meters = trace.get_tracer_provider(), metrics.get_meter_provider()
        no_sdk = (
            tracer_provider is None
            and meter_provider is None
            and isinstance(tracers, trace.ProxyTracerProvider)
            and type(meters).__name__ == "_ProxyMeterProvider"
        )
        self._unset: tuple[Any, Any] | None = (tracers, meters) if no_sdk else None

    def configured(self) -> bool:
        """Is there an SDK to report to (given, or set by the program at any time)?"""
        unset = self._unset
        if unset is None:
            return True
        if trace.get_tracer_provider() is unset[0] and metrics.get_meter_provider() is unset[1]:
            return False
        self._unset = None
        return True

    # -- the middleware -------------------------------------------------------------------

    async def __call__(self, request: Request, call_next: CallNext) -> dict[str, Any]:
        meta: Any = request.params.get("_meta")  # (a JSON value: a dict when propagated is true)
        propagated = isinstance(meta, dict) and any(key in meta for key in PROPAGATED)
        if not propagated and not self.configured():
            return await call_next(request)
        started = time.perf_counter()
        ambient = otel_context.get_current()
        parent = ambient
        links: tuple[Link, ...] = ()
        if propagated:
            carrier = {key: meta[key] for key in PROPAGATED if isinstance(meta.get(key), str)}
            parent = propagate.extract(carrier, context=ambient)
            remote = trace.get_current_span(parent).get_span_context()
            here = trace.get_current_span(ambient).get_span_context()
            if remote.is_valid and here.is_valid:
                links = (Link(here),)
        attributes = self._attributes(request)
        span = self.tracer.start_span(self._span_name(request, attributes), parent, SpanKind.SERVER, attributes, links)
        token = otel_context.attach(trace.set_span_in_context(span, parent))
        outcome: tuple[str, int | None] = (outcomes.CANCELLED, None)
        description: str | None = None
        try:
            result = await call_next(request)
            outcome = outcomes.of_result(request, result)
            return result
        except BaseException as exc:
            outcome = outcomes.of_exception(request, exc)
            if isinstance(exc, McpError):
                description = exc.message
            elif not isinstance(exc, trio.Cancelled):  # a built-in middleware's own failure
                span.record_exception(exc)
                description = type(exc).__name__
            raise
        finally:
            error = outcomes.error_type(*outcome)
            if error is not None:
                span.set_status(Status(StatusCode.ERROR, description or error))
                span.set_attribute("error.type", error)
                attributes["error.type"] = error
                if outcome[1] is not None:
                    span.set_attribute("rpc.response.status_code", str(outcome[1]))
                    attributes["rpc.response.status_code"] = str(outcome[1])
            span.end()
            otel_context.detach(token)
            self.operation_duration.record(
                time.perf_counter() - started, {key: attributes[key] for key in METRIC_KEYS if key in attributes}
            )

    @staticmethod
    def _attributes(request: Request) -> dict[str, Any]:
        context = request.context
        attributes: dict[str, Any] = {
            "mcp.method.name": context.method,
            "jsonrpc.request.id": str(context.request_id),
            "mcp.protocol.version": context.protocol_version,
        }
        target = context.incoming.spec.target
        if target is not None and target in TARGET_ATTRIBUTE:
            value = request.params.get(target.param)
            if isinstance(value, str):
                attributes[TARGET_ATTRIBUTE[target]] = value
        if context.method == "tools/call":
            attributes["gen_ai.operation.name"] = "execute_tool"
        if context.session_id is not None:
            attributes["mcp.session.id"] = context.session_id
        _network(attributes, context.transport)
        return attributes

    @staticmethod
    def _span_name(request: Request, attributes: dict[str, Any]) -> str:
        for key in IN_SPAN_NAME:
            if key in attributes:
                return f"{request.method} {attributes[key]}"
        return request.method

    # -- session hooks --------------------------------------------------------------------

    def opened(self, session: SessionCore) -> None:
        if self.configured():
            self._opened[session] = time.perf_counter()

    def closed(self, session: SessionCore) -> None:
        started = self._opened.pop(session, None)
        if started is None:
            return
        attributes: dict[str, Any] = {}
        version = session.protocol.legacy_version
        if version is not None:
            attributes["mcp.protocol.version"] = version
        _network(attributes, session.transport)
        self.session_duration.record(time.perf_counter() - started, attributes)


def _network(attributes: dict[str, Any], transport: str) -> None:
    network = NETWORK.get(transport)
    if network is not None:
        attributes["network.transport"] = network[0]
        if network[1] is not None:
            attributes["network.protocol.name"] = network[1]
