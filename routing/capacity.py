"""Capacity protection of one provider key, as pure state machines (no I/O, no clock: `now` is an argument).

- The circuit breaker: closed → open when a request window with at least `min_volume` requests has at least
  `failure_ratio` failures (or after `failure_streak` failures in a row) → half-open once the cooling time is
  over, with exactly one probe lease → closed by the probe's success, re-opened a ladder step longer by its
  failure.
- The probe lease: one holder, valid until it expires; an expired lease passes to the next caller.
- The retry budget: retries may be a share of the window's requests, with a floor; first calls always pass.
- The pacer: with a quota, calls get slots spaced by it (a little wider), and a Retry-After floor on the
  provider key holds every caller back until then.
- The learned rate: with no declared quota, a 429 teaches one (the rate-limit headers' stated limit, else the
  Retry-After spacing, cut multiplicatively on repeated 429s); it creeps up with time while no 429 comes
  (AIMD without a write per success), and the pacer paces to it. 429s and quota limits never open the breaker.

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
from routing.invariants import present


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
    rate_decrease_floor: float = 0.85  # a 429 cuts a learned rate by the spacing it implies, never below this share
    limited_share: float = 0.1  # 429s teach a rate only once they are this share of the window's calls …
    limited_min: int = 2  # … and at least this many: one conversation's 429 is not the provider's rate
    rate_growth_per_minute: float = 0.05  # … and every minute without one lets it grow by this share
    min_learned_rpm: float = 1.0
    held_spacing_s: float = 1.0  # callers a 429's floor holds before any rate is known go this far apart …
    held_max_retry_after_s: float = 5.0  # … when its Retry-After is a token bucket's (longer: a window's reset)


DEFAULT_POLICY = CapacityPolicy()

# Capacity signals: the provider asks callers to slow down. They pace the provider key and make runs wait; they
# never open the breaker and never count toward a run's attempt cap.
CAPACITY_SIGNALS = frozenset({ErrorCode.rate_limited.value, ErrorCode.quota_limited.value})


# Capacity signals slow a provider down; they do not count as it being broken.
NOT_BREAKER_FAILURES = frozenset(
    {
        ErrorCode.rate_limited,
        ErrorCode.quota_limited,
        ErrorCode.circuit_open,
        ErrorCode.content_policy,
        ErrorCode.context_length_exceeded,
        ErrorCode.invalid_request,
        ErrorCode.answer_too_large,  # the office's own limit on what it keeps, not the provider failing
    }
)


def counts_toward_breaker(code: str | None) -> bool:
    return code is not None and code not in {c.value for c in NOT_BREAKER_FAILURES}


def is_capacity_wait(code: str, rule: str | None) -> bool:
    """A failure that only says "not now": the provider's rate or quota limit, or our own pacer's backlog.
    Such attempts make a run wait or move on; only real failures count toward its attempt cap."""
    return code in CAPACITY_SIGNALS or (code == ErrorCode.circuit_open.value and (rule or "").startswith("pacing."))


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
    limited: int = 0  # calls answered 429 (or a quota limit)

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
    learned_rpm: float | None = None  # the request rate a 429 taught (no quota declared), as of `learned_at`
    learned_at: datetime | None = None
    rate_stated: bool = False  # the provider's headers stated `learned_rpm`: it does not grow
    limited_at: datetime | None = None  # the last 429: pacing slots given before it are void

    def rate_at(self, now: datetime, policy: "CapacityPolicy") -> float | None:
        """The learned rate now: it grows by `rate_growth_per_minute` per minute since it was last set, so a
        provider that stopped limiting is paced ever more loosely without a write per success."""
        if self.learned_rpm is None or self.rate_stated:
            return self.learned_rpm
        minutes = max(0.0, (now - (self.learned_at or now)).total_seconds() / 60.0)
        return float(self.learned_rpm * (1.0 + policy.rate_growth_per_minute) ** minutes)

    def floor(self, now: datetime) -> datetime | None:
        """The Retry-After floor that holds every caller of this provider key now, if one does."""
        if self.health is HealthState.short_retry and self.retry_at is not None and self.retry_at > now:
            return self.retry_at
        return None

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
    """A run's decision about the provider (the decider's health effect), recorded as evidence. It reaches the
    store after the decision, later than the failing call's own note: `observed_at` (when the failure it is about
    was seen; None: unknown) tells it from news that came meanwhile."""

    state: HealthState
    retry_at: datetime | None
    code: str | None
    run_id: str | None
    observed_at: datetime | None = None


@dataclass(frozen=True)
class RateLimited:
    """The provider answered 429 (or a quota limit): `retry_after_s` its Retry-After, `limit_rpm` the request
    limit its rate-limit headers state. Noted by the failing call at once, like `CallFailed`."""

    run_id: str
    retry_after_s: float | None = None
    limit_rpm: float | None = None
    admitted_at: datetime | None = None  # when the call that got the 429 was admitted


@dataclass(frozen=True)
class RateStated:
    """An answer's rate-limit headers stated the provider's request limit per minute."""

    limit_rpm: float


Event = CallFailed | CallSucceeded | HealthEvidence | RateLimited | RateStated


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
    if isinstance(event, RateLimited):
        return _rate_limited(state, now, event, policy)
    if isinstance(event, RateStated):
        if state.learned_rpm == event.limit_rpm and state.rate_stated:
            return state
        return replace(state, learned_rpm=event.limit_rpm, learned_at=now, rate_stated=True)
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


def learned_from(state: CapacityState, now: datetime, event: RateLimited, policy: CapacityPolicy) -> float:
    """The rate after a 429 that says something (the caller passes only those). A stated limit is taken as is.
    Otherwise the Retry-After spacing (one call per Retry-After: a token bucket's refill) or half the window's
    calls per minute, whichever is higher. A rate already learned never stays above that, and is cut only by a
    call admitted at it (a 429 of a call paced at an older rate says nothing about this one; without the
    admission time, at most once per spacing), as `cut_rate` says."""
    if event.limit_rpm or event.retry_after_s is None:
        return event.limit_rpm or state.learned_rpm or policy.min_learned_rpm
    hinted = 60.0 / max(event.retry_after_s, 0.01)
    current = state.rate_at(now, policy)
    if current is None:  # the first: one call per Retry-After, or half the window's calls were too many
        return max(policy.min_learned_rpm, hinted, 0.5 * state.window.requests)
    if event.admitted_at is not None:
        stale = state.learned_at is not None and event.admitted_at < state.learned_at
    else:
        stale = state.learned_at is not None and (now - state.learned_at).total_seconds() < 60.0 / current
    cut = current if stale else cut_rate(current, event.retry_after_s, policy)
    return max(policy.min_learned_rpm, min(cut, hinted))


def cut_rate(current: float, retry_after_s: float, policy: CapacityPolicy) -> float:
    """A fresh 429 of a call paced at `current`: widen the spacing by the Retry-After (the call came that much
    too early), but by at least the pacing margin (a Retry-After of almost nothing means the spacing was right at
    the limit: without the margin back every other call is refused) and never cut below `rate_decrease_floor` of
    it (a Retry-After of nearly a whole spacing is as likely two calls arriving together as a rate twice too high;
    several 429s tell them apart)."""
    spacing = policy.pacing_margin * 60.0 / current
    share = min(1.0 / policy.pacing_margin, spacing / (spacing + retry_after_s))
    return current * max(policy.rate_decrease_floor, share)


def _rate_limited(state: CapacityState, now: datetime, event: RateLimited, policy: CapacityPolicy) -> CapacityState:
    """A 429 never opens the breaker: it sets the provider key's Retry-After floor and, once 429s are a real
    share of the window's calls (or the headers state the limit), teaches the rate and voids the pacing slots
    given so far (their callers ask again when their slot comes, and are paced anew). A few 429s among many
    answers are single requests' bad luck: pacing the whole key to them would throttle a healthy provider."""
    window = state.window.rolled(now, policy)
    window = replace(window, limited=window.limited + 1)
    learned = replace(state, window=window)
    # While the key is limiting (a rate learned or cut within the window), each fresh 429 is feedback on that rate:
    # the share test is for a key that has not limited lately. (The pacer counts a call in the window when it gives
    # the slot, up to `max_wait_s` ahead, so a backlog of paced callers would otherwise hide every later 429.)
    limiting = state.limited_at is not None and (now - state.limited_at).total_seconds() <= policy.budget_window_s
    share = (limiting and state.learned_rpm is not None) or window.limited >= max(
        policy.limited_min, policy.limited_share * window.requests
    )
    floor = now + timedelta(seconds=event.retry_after_s or 0.0)
    # A 429 that says nothing about when (no Retry-After, no stated limit: an agent relaying it dropped them)
    # teaches no rate: the decider's jittered short retries handle it, as for any transient failure.
    if event.limit_rpm is not None or (share and event.retry_after_s is not None):
        rate, current = learned_from(learned, now, event, policy), state.rate_at(now, policy)
        # A 429 that changes nothing (of a call paced at an older rate, its Retry-After no lower bound) leaves the
        # rate and its time alone: moving `learned_at` would make the next 429 stale too, and none would ever cut.
        if event.limit_rpm is not None or current is None or rate < current:
            learned = replace(
                learned,
                learned_rpm=rate,
                learned_at=now,
                rate_stated=event.limit_rpm is not None,
                limited_at=now,
                next_slot_at=min(state.next_slot_at, floor) if state.next_slot_at else None,
            )
    if event.retry_after_s is None or state.breaker(now) is not Breaker.closed:
        return learned
    if state.health is HealthState.short_retry and state.retry_at is not None and state.retry_at >= floor:
        return learned
    return replace(learned, health=HealthState.short_retry, retry_at=floor, last_code=ErrorCode.rate_limited.value,
                   last_run_id=event.run_id, changed_at=now)  # fmt: skip


def _evidence(state: CapacityState, now: datetime, event: HealthEvidence) -> CapacityState:
    """Evidence never closes an open breaker: a short retry reported while it cools is ignored; only a
    success or the cooling time closes it. Repeating a non-healthy verdict climbs its backoff step. A capacity
    signal never opens it either: a quota's cooling time is a Retry-After floor, not a breaker.
    Nor does evidence lift a Retry-After floor the provider announced (another run's 503, or a shorter
    Retry-After, says nothing about when this key may be called again), or overrule a newer answer: evidence
    about a failure seen before the provider's last success is stale (the failing call noted its 429's
    floor at once; the answer since lifted it)."""
    if _stale(state, event):
        return state
    if event.code in CAPACITY_SIGNALS and event.state is HealthState.degraded:
        event = replace(event, state=HealthState.short_retry)
    cooling = state.health is HealthState.degraded and (state.retry_at is None or state.retry_at > now)
    if cooling and event.state is HealthState.short_retry:
        return state
    floor = state.floor(now)
    if (
        floor is not None
        and event.state is HealthState.short_retry
        and (event.retry_at is None or event.retry_at <= floor)
    ):
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


def _stale(state: CapacityState, event: HealthEvidence) -> bool:
    """The provider answered (a run's success made it healthy: `last_run_id` says who) after the failure this
    evidence is about was seen. A row that was only created healthy has no such answer."""
    if event.observed_at is None or event.state is HealthState.healthy or state.health is not HealthState.healthy:
        return False
    return state.last_run_id is not None and state.changed_at is not None and state.changed_at > event.observed_at


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
    learned_rpm: float | None = None  # the provider key's learned rate as stored (the caller notes a new one)

    @property
    def allowed(self) -> bool:
        return self.verdict is not Verdict.refused

    @classmethod
    def refused(cls, rule: str, retry_after_s: float) -> "Admission":
        return cls(verdict=Verdict.refused, rule=rule, retry_after_s=retry_after_s)

    @classmethod
    def at(cls, now: datetime, slot: datetime, probe: bool, state: "CapacityState | None" = None) -> "Admission":
        wait = (slot - now).total_seconds()
        verdict = Verdict.wait if wait > 0 else Verdict.admitted
        learned = state.learned_rpm if state else None
        return cls(verdict=verdict, slot_at=slot, wait_s=wait, probe=probe, learned_rpm=learned)


@dataclass(frozen=True)
class CallRequest:
    run_id: str
    is_retry: bool = False
    requests_per_minute: float | None = None  # the provider key's declared quota: calls are paced by it
    reserved_at: datetime | None = None  # asking again when the slot given then has come: still valid?


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


def held_rate(state: CapacityState, now: datetime, policy: CapacityPolicy = DEFAULT_POLICY) -> float | None:
    """While a 429's Retry-After floor holds callers and no rate is known yet (one 429 teaches none), they are
    released `held_spacing_s` apart, not all at once when it passes: a herd released together at a token
    bucket's refill is refused all but one (docs/benchmarks.md). Not by the Retry-After: a short one
    says only that the next token is near, not how far apart the tokens are. Only for a token bucket's short
    Retry-After (`held_max_retry_after_s`): a longer one is a window's reset, which refills at once. The cost on a
    fast provider that refused one call: the callers that came during that short floor go a second apart."""
    floor = state.floor(now)
    if floor is None or state.last_code != ErrorCode.rate_limited.value or state.changed_at is None:
        return None
    if (floor - state.changed_at).total_seconds() > policy.held_max_retry_after_s:
        return None  # a window's reset (or a quota's): it refills all at once, and released callers may all go
    return 60.0 / policy.held_spacing_s


def admit(
    state: CapacityState, now: datetime, request: CallRequest, policy: CapacityPolicy = DEFAULT_POLICY
) -> tuple[CapacityState, Admission]:
    """Retry budget, then breaker and probe lease, then when the call may go: the provider key's Retry-After
    floor and, with a quota (declared, else learned), the pacer's next slot. An admitted call counts in the
    window (and as a retry)."""
    if request.reserved_at is not None and state.breaker(now) is Breaker.closed:
        # A Retry-After floor set after the slot was given holds this caller too.
        floored_since = (
            state.floor(now) is not None and state.changed_at is not None and state.changed_at > request.reserved_at
        )
        if (state.limited_at is None or state.limited_at <= request.reserved_at) and not floored_since:
            return state, Admission.at(now, now, False, state)  # the slot stands: call now
        request = replace(request, is_retry=False)  # paced anew: the first ask spent the budget already
    before, window = state, state.window.rolled(now, policy)
    state = replace(state, window=window)  # refusals by the budget or the breaker keep the rolled window
    window_start = present(window.start, "a rolled window has a start")
    if request.is_retry and not retry_allowed(window, policy):
        left = policy.budget_window_s - (now - window_start).total_seconds()
        return state, Admission.refused("budget.retries_exhausted", max(1.0, left))
    breaker, probe = state.breaker(now), False
    if breaker is Breaker.open:
        retry_at = present(state.retry_at, "an open breaker has a retry time")
        return state, Admission.refused("breaker.open", (retry_at - now).total_seconds())
    admitted = state
    if breaker is Breaker.half_open:
        lease = claim_probe(state.probe, now, request.run_id, policy)
        if lease is None:
            held = present(state.probe, "a half-open breaker refuses a probe only while another holds it")
            expires_in = (held.expires - now).total_seconds()
            return state, Admission.refused("breaker.probe_in_flight", max(1.0, expires_in))
        admitted, probe = replace(state, probe=lease), True
    slot = state.floor(now) or now  # Retry-After is a floor for every caller of this provider key
    quota = request.requests_per_minute or state.rate_at(now, policy) or held_rate(state, now, policy)
    if quota:
        slot, next_slot = pace(state.next_slot_at, slot, quota, policy)
        admitted = replace(admitted, next_slot_at=next_slot)
    if (slot - now).total_seconds() > policy.max_wait_s:
        # Too far off to wait out in the call: nothing changes (no slot taken, no probe claimed, no window roll).
        return before, Admission.refused("pacing.backlog", (slot - now).total_seconds())
    admitted = replace(
        admitted,
        window=replace(window, requests=window.requests + 1, retries=window.retries + (1 if request.is_retry else 0)),
    )
    return admitted, Admission.at(now, slot, probe, state)
