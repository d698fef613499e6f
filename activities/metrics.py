"""Run metrics, counted in activities right after an idempotent write succeeded (so retries and replays
never count twice). Instruments come from the global meter provider that office.telemetry configures."""

from opentelemetry import metrics

_meter = metrics.get_meter("office")
runs = _meter.create_counter("office.runs", description="Office runs that ended, by outcome")
fallbacks = _meter.create_counter("office.fallbacks", description="Fallbacks to the next provider, by error code")
retries = _meter.create_counter("office.retries", description="Short retries on the same route, by error code")
parks = _meter.create_counter("office.parks", description="Runs parked or waiting, by reason")
warnings = _meter.create_counter(
    "office.model_selection_warnings", description="Model-selection warnings persisted, by reason"
)
