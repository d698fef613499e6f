"""One trace from the client through the workflow and activities to the provider call; run metrics."""

import pytest
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from office.simulator.config import SimProvider
from routing.run import RunStatus
from testkit.runs import run_to_end

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def telemetry():
    spans = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    trace.set_tracer_provider(tracer_provider)
    reader = InMemoryMetricReader()
    metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))
    if trace.get_tracer_provider() is not tracer_provider:
        pytest.fail("another test set a global tracer provider first")
    return spans, reader


def _counter(reader: InMemoryMetricReader, name: str) -> dict[tuple, int]:
    found: dict[tuple, int] = {}
    data = reader.get_metrics_data()
    for resource in data.resource_metrics if data else []:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                if metric.name == name:
                    for point in metric.data.data_points:
                        found[tuple(sorted(point.attributes.items()))] = point.value
    return found


async def test_one_trace_connects_client_workflow_activities_and_provider_calls(stack, telemetry):
    spans, reader = telemetry
    ws, agent, p = await stack.workspace(
        {"a": SimProvider(api_key="sk-x"), "b": SimProvider(api_key="sk-sim-test")},
        credential_env="OFFICE_CRED_TEST_KEY",
    )
    tracer = trace.get_tracer("test")
    with tracer.start_as_current_span("office submit") as root:
        view = await run_to_end(stack, ws, agent)
    assert view.status is RunStatus.completed and view.fallback_count == 1
    trace_id = root.get_span_context().trace_id
    names = [s.name for s in spans.get_finished_spans() if s.context.trace_id == trace_id]
    assert "StartWorkflow:OfficeRunWorkflow" in names
    assert "RunWorkflow:OfficeRunWorkflow" in names
    assert names.count("RunActivity:session_turn") == 2  # a failed on start, b answered
    chats = [s for s in spans.get_finished_spans() if s.name == "provider.chat" and s.context.trace_id == trace_id]
    assert [s.attributes["office.provider"] for s in chats] == [p["b"]]
    listed = [
        s.attributes["office.provider"]
        for s in spans.get_finished_spans()
        if s.name == "provider.list_models" and s.context.trace_id == trace_id
    ]
    assert listed == [p["a"], p["b"]]

    fallbacks = _counter(reader, "office.fallbacks")
    assert fallbacks[(("code", "auth_required"), ("provider", p["a"]))] == 1
    assert _counter(reader, "office.runs")[(("outcome", "completed"), ("provider", p["b"]))] == 1
