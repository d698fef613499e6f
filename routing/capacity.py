"""Capacity protection of one provider key, as pure state machines (no I/O, no clock: `now` is an argument).

- The circuit breaker: closed → open when a request window with at least `min_volume` requests has at least
  `failure_ratio` failures (or after `failure_streak` failures in a row) → half-open once the cooling time is
  over, with exactly one probe lease → closed by the probe's success, re-opened a ladder step longer by its
  failure.
- The probe lease: one holder, valid until it expires; an expired lease passes to the next caller.
- The retry budget: retries may be a share of the window's requests, with a floor; first calls always pass.
- The pacer: with a quota, calls get slots spaced by it (a little wider), and a Retry-After floor on the
  provider key holds every caller back until then.

Two shapes: `step(state, now, event) → state` for what happened, `admit(state, now, request) → (state,
admission)` before a call. The store locks the provider key's row, loads a `CapacityState`, calls these and
saves the result in one transaction, so every worker shares one breaker, budget and pacer per provider key.
"""

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from routing.backoff import ladder_step
from routing.codes import ErrorCode
from routing.decider import HealthState


class CapacityPolicy(BaseModel):
    """The numbers of the breaker, the retry budget and the pacer."""

    min_volume: int = 5  # the breaker judges a window only after this many requests …
    failure_ratio: float = 0.5  # … and opens when at least this share of them failed
    failure_streak: int = 10  # or after this many failures in a row, whatever the window says
    probe_lease_s: float = 120.0  # one half-open probe at a time, for at most this long
    budget_window_s: float = 60.0  # per-provider request window (the breaker's ratio and the retry budget)
    budget_ratio: float = 0.1  # retries may be this share of the window's requests …
    budget_floor: int = 3  # … but at least this many
    pacing_margin: float = 1.05  # space paced calls a little wider than the quota: arrival times jitter
    max_wait_s: float = 120.0  # a Retry-After floor or pacing slot up to this far is waited out in the call


DEFAULT_POLICY = CapacityPolicy()

# Capacity signals slow a provider down; they do not count as it being broken.
NOT_BREAKER_FAILURES = frozenset(
    {
        ErrorCode.rate_limited,
        ErrorCode.quota_limited,
        ErrorCode.circuit_open,
        ErrorCode.content_policy,
        ErrorCode.context_length_exceeded,
        ErrorCode.invalid_request,
    }
)


def counts_toward_breaker(code: str | None) -> bool:
    return code is not None and code not in {c.value for c in NOT_BREAKER_FAILURES}


# --- state ------------------------------------------------------------------------------------------


class Breaker(StrEnum):
    closed = "closed"
    open = "open"
    half_open = "half_open"


@dataclass(frozen=True)
class ProbeLease:
    """The one half-open probe: `holder` (a run id) may call until `expires`."""

    holder: str
    expires: datetime

    def live(self, now: datetime) -> bool:
        return self.expires >= now


@dataclass(frozen=True)
class Window:
    """The shared request window: the breaker's failure ratio and the retry budget are judged over it."""

    start: datetime | None = None
    requests: int = 0
    retries: int = 0
    failures: int = 0

    def rolled(self, now: datetime, policy: CapacityPolicy) -> "Window":
        """A window older than the policy's length starts over at `now`."""
        if self.start is None or (now - self.start).total_seconds() > policy.budget_window_s:
            return Window(start=now)
        return self


@dataclass(frozen=True)
class CapacityState:
    """One provider key's shared state (the provider-wide health row). `health` is also the run decisions'
    evidence (short_retry with a Retry-After, user_action_required); `degraded` is the breaker being open
    (until `retry_at`) or half-open (after it)."""

    health: HealthState = HealthState.healthy
    retry_at: datetime | None = None
    backoff_step: int = 0
    failure_streak: int = 0
    probe: ProbeLease | None = None
    window: Window = Window()
    next_slot_at: datetime | None = None
    last_code: str | None = None
    last_run_id: str | None = None
    changed_at: datetime | None = None  # when the health verdict was last written

    def breaker(self, now: datetime) -> Breaker:
        if self.health is not HealthState.degraded:
            return Breaker.closed
        if self.retry_at is not None and self.retry_at > now:
            return Breaker.open
        return Breaker.half_open


# --- events: (state, now, event) → state --------------------------------------------------------------


@dataclass(frozen=True)
class CallFailed:
    """A provider call failed with a classified code (noted by the failing call at once)."""

    code: str
    run_id: str


@dataclass(frozen=True)
class CallSucceeded:
    """A provider call answered: the provider (or the model that ran) is healthy again."""

    run_id: str


@dataclass(frozen=True)
class HealthEvidence:
    """A run's decision about the provider (the decider's health effect), recorded as evidence."""

    state: HealthState
    retry_at: datetime | None
    code: str | None
    run_id: str | None


Event = CallFailed | CallSucceeded | HealthEvidence


def opens(state: CapacityState, now: datetime, event: CallFailed, policy: CapacityPolicy = DEFAULT_POLICY) -> bool:
    """Whether this failure opens the breaker: a failing half-open probe always does; otherwise the window
    (with this failure counted) must hold `min_volume` requests with `failure_ratio` of them failed, or the
    failures in a row must reach `failure_streak`. An already open breaker is not opened again."""
    if not counts_toward_breaker(event.code):
        return False
    if state.probe is not None:
        return True
    if state.health is HealthState.degraded:
        return False
    requests, failures = state.window.requests, state.window.failures + 1
    if state.failure_streak + 1 >= policy.failure_streak:
        return True
    return requests >= policy.min_volume and failures >= policy.failure_ratio * requests


def step(state: CapacityState, now: datetime, event: Event, policy: CapacityPolicy = DEFAULT_POLICY) -> CapacityState:
    """The state after `event`. Unchanged (the same object) when the event does not concern the breaker."""
    if isinstance(event, CallFailed):
        return _failed(state, now, event, policy)
    if isinstance(event, CallSucceeded):
        return replace(
            state,
            health=HealthState.healthy,
            retry_at=None,
            backoff_step=0,
            failure_streak=0,
            probe=None,
            last_run_id=event.run_id,
            changed_at=now,
        )
    return _evidence(state, now, event)


def _failed(state: CapacityState, now: datetime, event: CallFailed, policy: CapacityPolicy) -> CapacityState:
    if not counts_toward_breaker(event.code):
        return state
    opened = opens(state, now, event, policy)
    counted = replace(
        state,
        window=replace(state.window, failures=state.window.failures + 1),
        failure_streak=state.failure_streak + 1,
    )
    if not opened:
        return counted
    backoff = state.backoff_step + 1 if state.probe is not None else 0  # a failed probe cools a step longer
    return replace(
        counted,
        health=HealthState.degraded,
        retry_at=now + timedelta(seconds=ladder_step(backoff)),
        backoff_step=backoff,
        probe=None,
        last_code=event.code,
        last_run_id=event.run_id,
        changed_at=now,
    )


def _evidence(state: CapacityState, now: datetime, event: HealthEvidence) -> CapacityState:
    """Evidence never closes an open breaker: a short retry reported while it cools is ignored; only a
    success or the cooling time closes it. Repeating a non-healthy verdict climbs its backoff step."""
    cooling = state.health is HealthState.degraded and (state.retry_at is None or state.retry_at > now)
    if cooling and event.state is HealthState.short_retry:
        return state
    repeated = event.state is not HealthState.healthy and state.health is event.state
    return replace(
        state,
        health=event.state,
        retry_at=event.retry_at,
        backoff_step=state.backoff_step + 1 if repeated else 0,
        last_code=event.code,
        last_run_id=event.run_id,
        changed_at=now,
    )


# --- admission: (state, now, request) → (state, admission) -----------------------------------------------


class Verdict(StrEnum):
    admitted = "admitted"  # call now
    wait = "wait"  # call at `slot_at` (a Retry-After floor or the pacer's slot), waited out in the call
    refused = "refused"  # do not call; `rule` says why, `retry_after_s` when asking again makes sense


class Admission(BaseModel):
    """The answer before a provider call."""

    model_config = ConfigDict(frozen=True)

    verdict: Verdict
    slot_at: datetime | None = None  # admitted or wait: when this call may go
    wait_s: float = 0.0  # wait: how long until `slot_at`
    probe: bool = False  # this call is the one half-open probe
    rule: str | None = None  # refused: why (budget.retries_exhausted, breaker.open, …)
    retry_after_s: float | None = None  # refused: ask again after this long

    @property
    def allowed(self) -> bool:
        return self.verdict is not Verdict.refused

    @classmethod
    def refused(cls, rule: str, retry_after_s: float) -> "Admission":
        return cls(verdict=Verdict.refused, rule=rule, retry_after_s=retry_after_s)

    @classmethod
    def at(cls, now: datetime, slot: datetime, probe: bool) -> "Admission":
        wait = (slot - now).total_seconds()
        return cls(verdict=Verdict.wait if wait > 0 else Verdict.admitted, slot_at=slot, wait_s=wait, probe=probe)


@dataclass(frozen=True)
class CallRequest:
    run_id: str
    is_retry: bool = False
    requests_per_minute: float | None = None  # the provider key's quota: calls are paced by it


def retry_allowed(window: Window, policy: CapacityPolicy = DEFAULT_POLICY) -> bool:
    """The retry budget: retries may be `budget_ratio` of the window's requests, but at least `budget_floor`."""
    return window.retries < max(policy.budget_floor, int(policy.budget_ratio * window.requests))


def claim_probe(lease: ProbeLease | None, now: datetime, run_id: str, policy: CapacityPolicy) -> ProbeLease | None:
    """The probe lease for `run_id`, or None while another caller's lease is live. The holder may renew it."""
    if lease is not None and lease.live(now) and lease.holder != run_id:
        return None
    return ProbeLease(holder=run_id, expires=now + timedelta(seconds=policy.probe_lease_s))


def pace(
    next_slot_at: datetime | None, floor: datetime, requests_per_minute: float, policy: CapacityPolicy
) -> tuple[datetime, datetime]:
    """The pacer: (this call's slot, the next free slot). Slots are never closer than the quota's spacing;
    `floor` (now, or a Retry-After that has not passed) is the earliest this call may go."""
    slot = max(floor, next_slot_at or floor)
    return slot, slot + timedelta(seconds=policy.pacing_margin * 60.0 / requests_per_minute)


def admit(
    state: CapacityState, now: datetime, request: CallRequest, policy: CapacityPolicy = DEFAULT_POLICY
) -> tuple[CapacityState, Admission]:
    """Retry budget, then breaker and probe lease, then when the call may go: the provider key's Retry-After
    floor and, with a quota, the pacer's next slot. An admitted call counts in the window (and as a retry)."""
    before, window = state, state.window.rolled(now, policy)
    state = replace(state, window=window)  # refusals by the budget or the breaker keep the rolled window
    assert window.start is not None
    if request.is_retry and not retry_allowed(window, policy):
        left = policy.budget_window_s - (now - window.start).total_seconds()
        return state, Admission.refused("budget.retries_exhausted", max(1.0, left))
    breaker, probe = state.breaker(now), False
    if breaker is Breaker.open:
        assert state.retry_at is not None
        return state, Admission.refused("breaker.open", (state.retry_at - now).total_seconds())
    admitted = state
    if breaker is Breaker.half_open:
        lease = claim_probe(state.probe, now, request.run_id, policy)
        if lease is None:
            assert state.probe is not None
            expires_in = (state.probe.expires - now).total_seconds()
            return state, Admission.refused("breaker.probe_in_flight", max(1.0, expires_in))
        admitted, probe = replace(state, probe=lease), True
    slot = now
    if state.health is HealthState.short_retry and state.retry_at is not None and state.retry_at > now:
        slot = state.retry_at  # Retry-After is a floor for every caller of this provider key
    if request.requests_per_minute:
        slot, next_slot = pace(state.next_slot_at, slot, request.requests_per_minute, policy)
        admitted = replace(admitted, next_slot_at=next_slot)
    if (slot - now).total_seconds() > policy.max_wait_s:
        # Too far off to wait out in the call: nothing changes (no slot taken, no probe claimed, no window roll).
        return before, Admission.refused("pacing.backlog", (slot - now).total_seconds())
    admitted = replace(
        admitted,
        window=replace(window, requests=window.requests + 1, retries=window.retries + (1 if request.is_retry else 0)),
    )
    return admitted, Admission.at(now, slot, probe)
