"""The shared breaker, probe lease, retry budget and pacer as pure state machines: tables of
(state, now, event) → state and (state, now, request) → admission, no database."""

import itertools
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from routing.capacity import (
    Admission,
    Breaker,
    CallFailed,
    CallRequest,
    CallSucceeded,
    CapacityPolicy,
    CapacityState,
    HealthEvidence,
    ProbeLease,
    Verdict,
    Window,
    admit,
    opens,
    step,
)
from routing.decider import HealthState

T0 = datetime(2026, 11, 29, 12, tzinfo=UTC)
P = CapacityPolicy(min_volume=4, failure_ratio=0.5, failure_streak=10, probe_lease_s=120, budget_floor=3)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def window(requests: int = 0, failures: int = 0, retries: int = 0, start: float = -10) -> Window:
    return Window(start=at(start), requests=requests, retries=retries, failures=failures)


CLOSED = CapacityState()
OPEN = CapacityState(health=HealthState.degraded, retry_at=at(30), window=window(4, 2))
HALF_OPEN = replace(OPEN, retry_at=at(-1))
PROBING = replace(HALF_OPEN, probe=ProbeLease("probe-run", at(60)))
FAIL = CallFailed(code="provider_unavailable", run_id="r9")


# --- the breaker: (state, now, event) → state ------------------------------------------------------------
@pytest.mark.parametrize(
    "name, state, event, opened, health, retry_at, backoff",
    [
        (
            "below min volume: all failed, not judged",
            replace(CLOSED, window=window(3, 2)),
            FAIL,
            False,
            "healthy",
            None,
            0,
        ),
        (
            "min volume and ratio reached: opens",
            replace(CLOSED, window=window(4, 1)),
            FAIL,
            True,
            "degraded",
            at(30),
            0,
        ),
        ("volume but ratio not reached", replace(CLOSED, window=window(10, 3)), FAIL, False, "healthy", None, 0),
        (
            "ten failures in a row open it",
            replace(CLOSED, window=window(1), failure_streak=9),
            FAIL,
            True,
            "degraded",
            at(30),
            0,
        ),
        (
            "capacity signals are not breakage",
            replace(CLOSED, window=window(4, 3)),
            CallFailed(code="rate_limited", run_id="r9"),
            False,
            "healthy",
            None,
            0,
        ),
        ("already open: counted, not re-opened", OPEN, FAIL, False, "degraded", at(30), 0),
        ("the probe failed: open again a step longer", PROBING, FAIL, True, "degraded", at(60), 1),
        ("the probe succeeded: closed", PROBING, CallSucceeded(run_id="probe-run"), False, "healthy", None, 0),
    ],
)
def test_breaker_transitions(name, state, event, opened, health, retry_at, backoff):
    if isinstance(event, CallFailed):
        assert opens(state, T0, event, P) is opened, name
    after = step(state, T0, event, P)
    assert (after.health.value, after.retry_at, after.backoff_step) == (health, retry_at, backoff), name
    if opened:
        assert after.breaker(T0) is Breaker.open and after.probe is None
        assert (after.last_code, after.changed_at) == (event.code, T0)


def test_failures_count_in_the_window_and_the_streak_and_a_success_resets_the_streak():
    after = step(replace(CLOSED, window=window(3, 1)), T0, FAIL, P)
    assert (after.window.failures, after.failure_streak) == (2, 1)
    assert step(CLOSED, T0, CallFailed(code="content_policy", run_id="r"), P) is CLOSED
    assert step(replace(OPEN, failure_streak=4), T0, CallSucceeded(run_id="r"), P).failure_streak == 0


@pytest.mark.parametrize(
    "name, state, evidence, health, backoff",
    [
        ("a short retry never closes a cooling breaker", OPEN, HealthState.short_retry, "degraded", 0),
        ("after the cooling time it is recorded", HALF_OPEN, HealthState.short_retry, "short_retry", 0),
        ("the same verdict again climbs a step", replace(OPEN, backoff_step=2), HealthState.degraded, "degraded", 3),
        ("user action is recorded as it is", CLOSED, HealthState.user_action_required, "user_action_required", 0),
    ],
)
def test_run_evidence(name, state, evidence, health, backoff):
    after = step(state, T0, HealthEvidence(state=evidence, retry_at=at(45), code="provider_unavailable", run_id="r"))
    assert (after.health.value, after.backoff_step) == (health, backoff), name


# --- admission: (state, now, request) → admission -------------------------------------------------------
def refused(rule: str, retry_after_s: float) -> Admission:
    return Admission.refused(rule, retry_after_s)


def go(wait_s: float = 0.0, probe: bool = False) -> Admission:
    return Admission.at(T0, at(wait_s), probe)


RPM_60 = 60.0 * P.pacing_margin / 60  # seconds between paced slots at 60 requests a minute
BUDGET_SPENT = replace(CLOSED, window=window(10, retries=3))


@pytest.mark.parametrize(
    "name, state, request_, expected",
    [
        ("closed: call now", CLOSED, CallRequest("r1"), go()),
        ("open: refused until the cooling time is over", OPEN, CallRequest("r1"), refused("breaker.open", 30)),
        ("half-open: the first caller is the probe", HALF_OPEN, CallRequest("r1"), go(probe=True)),
        ("half-open: one probe at a time", PROBING, CallRequest("r2"), refused("breaker.probe_in_flight", 60)),
        ("the probe holder may ask again", PROBING, CallRequest("probe-run"), go(probe=True)),
        (
            "an expired lease goes to the next caller",
            replace(HALF_OPEN, probe=ProbeLease("dead-run", at(-0.5))),
            CallRequest("r2"),
            go(probe=True),
        ),
        (
            "budget spent: retries refused until the window ends",
            BUDGET_SPENT,
            CallRequest("r1", is_retry=True),
            refused("budget.retries_exhausted", 50),
        ),
        ("budget spent: first calls still go", BUDGET_SPENT, CallRequest("r1"), go()),
        (
            "budget of an old window is forgotten",
            replace(BUDGET_SPENT, window=window(10, retries=3, start=-61)),
            CallRequest("r1", is_retry=True),
            go(),
        ),
        (
            "budget grows with the window's requests",
            replace(CLOSED, window=window(50, retries=4)),
            CallRequest("r1", is_retry=True),
            go(),
        ),
        (
            "Retry-After is a floor for every caller",
            CapacityState(health=HealthState.short_retry, retry_at=at(5)),
            CallRequest("r1"),
            go(wait_s=5),
        ),
        ("pacer: the next slot", replace(CLOSED, next_slot_at=at(2)), CallRequest("r1", requests_per_minute=60), go(2)),
        (
            "pacer under a Retry-After: the later of the two",
            CapacityState(health=HealthState.short_retry, retry_at=at(5), next_slot_at=at(2)),
            CallRequest("r1", requests_per_minute=60),
            go(5),
        ),
        (
            "pacer backlog too long to wait out",
            replace(CLOSED, next_slot_at=at(200)),
            CallRequest("r1", requests_per_minute=60),
            refused("pacing.backlog", 200),
        ),
    ],
)
def test_admission(name, state, request_, expected):
    _, admission = admit(state, T0, request_, P)
    assert admission == expected, name
    assert admission.allowed is (expected.verdict is not Verdict.refused)


def test_an_admitted_call_counts_in_the_window_and_takes_its_slot():
    after, admission = admit(replace(CLOSED, next_slot_at=at(2)), T0, CallRequest("r1", True, 60), P)
    assert (admission.verdict, admission.slot_at) == (Verdict.wait, at(2))
    assert (after.window.requests, after.window.retries, after.next_slot_at) == (1, 1, at(2 + RPM_60))


def test_the_probe_lease_is_held_for_the_policy_lease_time():
    after, _ = admit(HALF_OPEN, T0, CallRequest("r1"), P)
    assert after.probe == ProbeLease("r1", at(120))
    assert after.breaker(T0) is Breaker.half_open


@pytest.mark.parametrize(
    "state", [OPEN, PROBING, BUDGET_SPENT], ids=["breaker.open", "probe_in_flight", "budget.retries_exhausted"]
)
def test_refusals_take_no_slot_and_count_no_request(state):
    request_ = CallRequest("r2", is_retry=True, requests_per_minute=60)
    after, admission = admit(replace(state, next_slot_at=at(3)), T0, request_, P)
    assert not admission.allowed
    assert (after.window.requests, after.window.retries, after.next_slot_at) == (
        state.window.requests,
        state.window.retries,
        at(3),
    )


def test_a_pacing_backlog_changes_nothing():
    state = replace(HALF_OPEN, next_slot_at=at(500), window=window(4, 2, start=-100))  # even an old window stays
    assert admit(state, T0, CallRequest("r1", requests_per_minute=60), P) == (
        state,
        refused("pacing.backlog", 500),
    )


# --- invariants over any sequence of events ----------------------------------------------------------------
RUNS = st.sampled_from(["r1", "r2", "r3", "r4"])
CODES = st.sampled_from(["provider_unavailable", "provider_overloaded", "rate_limited", "timeout"])
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("admit"), RUNS, st.floats(0, 200), st.booleans()),
        st.tuples(st.just("fail"), RUNS, st.floats(0, 200), CODES),
        st.tuples(st.just("succeed"), RUNS, st.floats(0, 200), st.none()),
    ),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(ops=OPS, start=st.sampled_from([CLOSED, OPEN, HALF_OPEN, PROBING]))
def test_never_two_live_probe_leases(ops, start):
    """Whatever happens, a probe is handed out only when no other caller's lease is live."""
    state, now = start, T0
    outstanding = start.probe  # the lease a caller was last handed, until it is released
    for op, run, dt, arg in ops:
        now += timedelta(seconds=dt)
        if op == "admit":
            state, admission = admit(state, now, CallRequest(run, is_retry=arg), P)
            if admission.probe:
                assert outstanding is None or outstanding.holder == run or not outstanding.live(now)
                assert state.probe is not None and state.probe.holder == run
                outstanding = state.probe
        else:
            event = CallFailed(code=arg, run_id=run) if op == "fail" else CallSucceeded(run_id=run)
            state = step(state, now, event, P)
        if state.probe is None:
            outstanding = None
        if state.breaker(now) is not Breaker.half_open:
            assert not admit(state, now, CallRequest("anyone"), P)[1].probe  # probes only when half-open


@settings(max_examples=300, deadline=None)
@given(
    rpm=st.floats(1, 600),
    arrivals=st.lists(st.floats(0, 3), min_size=2, max_size=40),
    floors=st.lists(st.floats(0, 30), max_size=5),
)
def test_the_pacer_never_hands_out_two_slots_closer_than_its_spacing(rpm, arrivals, floors):
    """Slots from any arrival pattern, with Retry-After floors arriving in between, keep the quota's spacing;
    a call never goes before a Retry-After floor that was set before it."""
    spacing = P.pacing_margin * 60.0 / rpm
    state, now, slots = CLOSED, T0, []
    for i, dt in enumerate(arrivals):
        now += timedelta(seconds=dt)
        if i < len(floors):
            floor = now + timedelta(seconds=floors[i])
            state = step(state, now, HealthEvidence(HealthState.short_retry, floor, "rate_limited", "r"), P)
        state, admission = admit(state, now, CallRequest(f"r{i}", requests_per_minute=rpm), P)
        if admission.allowed:
            assert admission.slot_at is not None and admission.slot_at >= now
            if state.health is HealthState.short_retry and state.retry_at and state.retry_at > now:
                assert admission.slot_at >= state.retry_at
            slots.append(admission.slot_at)
    gaps = [(b - a).total_seconds() for a, b in itertools.pairwise(slots)]
    assert all(gap >= spacing - 1e-5 for gap in gaps)


@settings(max_examples=300, deadline=None)
@given(calls=st.lists(st.tuples(st.booleans(), st.floats(0, 20)), max_size=80))
def test_retries_stay_within_the_budget_and_first_calls_always_pass(calls):
    state, now = CLOSED, T0
    for is_retry, dt in calls:
        now += timedelta(seconds=dt)
        state, admission = admit(state, now, CallRequest("r", is_retry=is_retry), P)
        if not is_retry:
            assert admission.allowed
        assert state.window.retries <= max(P.budget_floor, int(P.budget_ratio * state.window.requests))
