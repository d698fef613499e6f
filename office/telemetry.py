"""OpenTelemetry set-up, chosen by configuration:
OFFICE_OTEL_EXPORTER = console | otlp | none. OTLP is picked when OTEL_EXPORTER_OTLP_ENDPOINT is set;
otherwise long-running processes (worker, `office dev`) default to console (on stderr) and one-shot CLI
commands to none, so `--json` output and terminals stay clean."""

import os
import sys
from pathlib import Path

from opentelemetry import metrics, trace


def chosen_exporter(default: str) -> str:
    configured = os.environ.get("OFFICE_OTEL_EXPORTER")
    if configured:
        if configured not in ("console", "otlp", "none"):
            raise ValueError(f"OFFICE_OTEL_EXPORTER={configured!r}: use console, otlp or none")
        return configured
    return "otlp" if os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") else default


def configure_telemetry(service: str, default: str = "console", console_file: Path | None = None) -> str:
    """`console_file`: where the console exporter writes (the dev stack keeps its terminal readable). The SDK is
    loaded only when something is exported: a one-shot command exporting nothing (the CLI's default) skips it."""
    exporter = chosen_exporter(default)
    if exporter == "none":
        return exporter
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import ConsoleMetricExporter, MetricExporter, PeriodicExportingMetricReader
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter

    resource = Resource.create({"service.name": service})
    if exporter == "otlp":
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        span_exporter: SpanExporter = OTLPSpanExporter()
        metric_exporter: MetricExporter = OTLPMetricExporter()
    else:
        out = console_file.open("a") if console_file else sys.stderr
        span_exporter = ConsoleSpanExporter(out=out)
        metric_exporter = ConsoleMetricExporter(out=out)
    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(BatchSpanProcessor(span_exporter))
    trace.set_tracer_provider(tracer_provider)
    reader = PeriodicExportingMetricReader(metric_exporter, export_interval_millis=60_000)
    metrics.set_meter_provider(MeterProvider(resource=resource, metric_readers=[reader]))
    return exporter


def flush_telemetry() -> None:
    for provider in (trace.get_tracer_provider(), metrics.get_meter_provider()):
        flush = getattr(provider, "force_flush", None)
        if flush is not None:
            flush()
