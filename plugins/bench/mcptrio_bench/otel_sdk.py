"""A plugin that configures the OpenTelemetry SDK when loaded: the benchmark's cost of exporting.

Spans go through a ``BatchSpanProcessor`` to the SDK's console exporter, and metrics through a
periodic reader to the console metric exporter, both writing to ``os.devnull``: every span and
data point is serialised as it would be for a collector, and nothing needs a collector running.
mcptrio's telemetry finds the providers set here, as it finds those ``opentelemetry-instrument``
sets.
"""

from __future__ import annotations

import os

from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import ConsoleMetricExporter, PeriodicExportingMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter

import mcptrio

_sink = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
_tracer_provider = TracerProvider()
_tracer_provider.add_span_processor(BatchSpanProcessor(ConsoleSpanExporter(out=_sink)))
trace.set_tracer_provider(_tracer_provider)
metrics.set_meter_provider(
    MeterProvider(
        metric_readers=[PeriodicExportingMetricReader(ConsoleMetricExporter(out=_sink), export_interval_millis=10_000)]
    )
)

plugin = mcptrio.Registry("bench_otel_sdk")
