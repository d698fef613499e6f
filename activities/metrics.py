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
refusals = _meter.create_counter(
    "office.capacity_refusals",
    description="Provider calls not made: breaker open, probe in flight, retry budget spent, pacing backlog; by rule",
)
breaker_opened = _meter.create_counter(
    "office.breaker_opened", description="Shared provider breakers opened by a failing call, by error code"
)
tokens = _meter.create_counter(
    "office.tokens",
    unit="{token}",
    description="Tokens providers and agents reported for attempts, by provider, model and kind "
    "(input: uncached input, cache_read, cache_write, output)",
)
cost = _meter.create_counter(
    "office.cost", unit="USD", description="What attempts cost (where the model has a price), by provider and model"
)
store_waits = _meter.create_counter(
    "office.store_waits",
    description="Bookkeeping calls that found the store unavailable and waited for it (never a provider failure)",
)
