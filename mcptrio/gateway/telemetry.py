"""The upstream request as a CLIENT span, child of the caller's SERVER span (``app/telemetry.py``),
its trace context put in the upstream request's ``_meta`` (SEP-414) so the upstream's own span is
its child in turn.  Nothing without the app's telemetry on."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

_OFF = contextlib.nullcontext()


def upstream_span(
    telemetry: Any, upstream: str, method: str, target: str | None, meta: dict[str, Any]
) -> contextlib.AbstractContextManager[None]:
    """Around one upstream request; ``meta`` gets the span's ``traceparent`` (and ``tracestate``)."""
    if telemetry is None or not telemetry.configured():
        return _OFF
    return _span(telemetry, upstream, method, target, meta)


@contextlib.contextmanager
def _span(telemetry: Any, upstream: str, method: str, target: str | None, meta: dict[str, Any]) -> Iterator[None]:
    from opentelemetry import propagate
    from opentelemetry.trace import SpanKind, Status, StatusCode

    attributes = {"mcp.method.name": method, "mcptrio.upstream": upstream}
    if target is not None:
        attributes["gen_ai.tool.name" if method == "tools/call" else "mcp.target"] = target
    name = f"{method} {target}" if target is not None else method
    with telemetry.tracer.start_as_current_span(name, kind=SpanKind.CLIENT, attributes=attributes) as span:
        carrier: dict[str, str] = {}
        propagate.inject(carrier)
        meta.update(carrier)
        try:
            yield
        except Exception as exc:
            span.set_status(Status(StatusCode.ERROR, str(exc)))
            span.set_attribute("error.type", type(exc).__name__)
            raise
