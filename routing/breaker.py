"""Policy numbers for the shared circuit breaker and retry budgets (the state lives in the store)."""

from pydantic import BaseModel

from routing.codes import ErrorCode


class BreakerPolicy(BaseModel):
    min_volume: int = 5  # the breaker judges a window only after this many requests …
    failure_ratio: float = 0.5  # … and opens when at least this share of them failed
    failure_streak: int = 10  # or after this many failures in a row, whatever the window says
    probe_lease_s: float = 120.0  # one half-open probe at a time, for at most this long
    budget_window_s: float = 60.0  # per-provider retry budget window
    budget_ratio: float = 0.1  # retries may be this share of the window's requests …
    budget_floor: int = 3  # … but at least this many
    pacing_margin: float = 1.05  # space paced calls a little wider than the quota: arrival times jitter
    max_wait_s: float = 120.0  # a Retry-After floor or pacing slot up to this far is waited out in the call


# Capacity signals slow a provider down; they do not count as it being broken.
NOT_BREAKER_FAILURES = {
    ErrorCode.rate_limited,
    ErrorCode.quota_limited,
    ErrorCode.circuit_open,
    ErrorCode.content_policy,
    ErrorCode.context_length_exceeded,
    ErrorCode.invalid_request,
}


def counts_toward_breaker(code: str | None) -> bool:
    return code is not None and code not in {c.value for c in NOT_BREAKER_FAILURES}


def retry_allowed(window_requests: int, window_retries: int, policy: BreakerPolicy) -> bool:
    return window_retries < max(policy.budget_floor, int(policy.budget_ratio * window_requests))


def should_open(window_requests: int, window_failures: int, streak: int, policy: BreakerPolicy) -> bool:
    if streak >= policy.failure_streak:
        return True
    return window_requests >= policy.min_volume and window_failures >= policy.failure_ratio * window_requests
