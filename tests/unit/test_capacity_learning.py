"""Capacity without a declared quota: a 429 teaches the provider key's rate (stated by its headers, else from
Retry-After), the pacer paces to it, it creeps up while no 429 comes, and rate or quota limits never open the
breaker. Pure state machines: tables and properties, no database."""

import itertools
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from routing.capacity import (
    Breaker,
    CallRequest,
    CallSucceeded,
    CapacityPolicy,
    CapacityState,
    HealthEvidence,
    RateLimited,
    RateStated,
    Verdict,
    Window,
    admit,
    is_capacity_wait,
    step,
)
from routing.decider import HealthState
from routing.rate_limits import requests_per_minute

T0 = datetime(2026, 11, 29, 12, tzinfo=UTC)
P = CapacityPolicy()
# A provider key already answering 429 to a real share of its calls: the next 429 teaches a rate.
LIMITING = CapacityState(window=Window(start=T0 - timedelta(seconds=1), requests=4, limited=1))


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def slots(state: CapacityState, start: float, calls: int, declared: float | None = None) -> list[datetime]:
    """When `calls` callers arriving together at `start` may each call."""
    found = []
    for i in range(calls):
        state, admission = admit(state, at(start), CallRequest(f"r{i}", requests_per_minute=declared), P)
        assert admission.verdict is not Verdict.refused, admission
        assert admission.slot_at is not None
        found.append(admission.slot_at)
    return found


def cut_by(rate: float, retry_after_s: float) -> float:
    """A paced call came `retry_after_s` too early: the spacing widens by that much (by the pacing margin at
    least, by the decrease floor at most)."""
    spacing = P.pacing_margin * 60.0 / rate
    return rate * max(P.rate_decrease_floor, min(1 / P.pacing_margin, spacing / (spacing + retry_after_s)))


def spacing_s(found: list[datetime]) -> float:
    return min((b - a).total_seconds() for a, b in itertools.pairwise(found))


# --- what a 429 teaches ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, event, learned, stated",
    [
        ("the headers state the limit: taken as is", RateLimited("r", retry_after_s=0.5, limit_rpm=60), 60.0, True),
        ("Retry-After only: one call per Retry-After (a token bucket's refill)", RateLimited("r", 2.0), 30.0, False),
        ("a sub-second Retry-After", RateLimited("r", 0.98), 60 / 0.98, False),
        ("nothing said (an agent relayed it): no rate", RateLimited("r"), None, False),
    ],
)
def test_a_first_429_teaches_a_rate(name, event, learned, stated):
    after = step(LIMITING, T0, event, P)
    assert after.learned_rpm == (pytest.approx(learned) if learned else None), name
    assert after.rate_stated is stated
    assert after.breaker(T0) is Breaker.closed


def test_the_pacer_spaces_callers_by_the_learned_rate_and_the_retry_after_floor_holds_them_first():
    taught = step(LIMITING, T0, RateLimited("r", retry_after_s=1.0, limit_rpm=60), P)
    found = slots(taught, 0.2, 10)
    assert found[0] >= at(1.0)  # nobody calls before the Retry-After
    assert spacing_s(found) == pytest.approx(P.pacing_margin * 60 / 60)


def test_a_declared_quota_wins_over_a_learned_rate():
    taught = step(LIMITING, T0, RateLimited("r", limit_rpm=600), P)
    assert spacing_s(slots(taught, 0, 5, declared=30)) == pytest.approx(P.pacing_margin * 2.0)


def test_no_429_no_pacing():
    assert spacing_s(slots(CapacityState(), 0, 5)) == 0


def test_a_burst_of_429s_is_one_signal_and_a_later_429_cuts_the_rate_by_how_early_it_came():
    taught = step(LIMITING, T0, RateLimited("r", 1.0), P)
    same_burst = step(taught, at(0.1), RateLimited("r2", 1.0), P)
    assert same_burst.learned_rpm == taught.learned_rpm
    later = step(taught, at(30), RateLimited("r3", 0.2), P)
    grown = taught.rate_at(at(30), P)
    assert grown is not None and later.learned_rpm == pytest.approx(cut_by(grown, 0.2))
    no_hint = step(taught, at(30), RateLimited("r4"), P)
    assert no_hint.learned_rpm == taught.learned_rpm  # a 429 that says nothing about when changes no rate


def test_a_429_never_leaves_the_rate_above_what_its_retry_after_implies():
    taught = step(LIMITING, T0, RateLimited("r", 0.01), P)  # a caller who arrived just before a refill
    corrected = step(taught, at(0.005), RateLimited("r2", 1.0), P)
    assert corrected.learned_rpm == pytest.approx(60.0)


def test_a_learned_rate_creeps_up_without_writes_and_a_stated_one_does_not():
    taught = step(LIMITING, T0, RateLimited("r", 1.0), P)
    assert taught.rate_at(at(60), P) == pytest.approx(60 * (1 + P.rate_growth_per_minute))
    stated = step(LIMITING, T0, RateStated(60), P)
    assert stated.rate_at(at(600), P) == 60


def test_an_answers_stated_limit_replaces_a_learned_rate_and_repeating_it_changes_nothing():
    taught = step(LIMITING, T0, RateLimited("r", 1.0), P)
    stated = step(taught, at(5), RateStated(120), P)
    assert (stated.learned_rpm, stated.rate_stated) == (120, True)
    assert step(stated, at(6), RateStated(120), P) is stated


# --- capacity never opens the breaker ------------------------------------------------------------------
@pytest.mark.parametrize("code", ["rate_limited", "quota_limited"])
def test_a_capacity_verdict_is_a_floor_not_an_open_breaker(code):
    evidence = HealthEvidence(state=HealthState.degraded, retry_at=at(300), code=code, run_id="r")
    after = step(CapacityState(), T0, evidence, P)
    assert after.breaker(at(1)) is Breaker.closed
    assert (after.health, after.retry_at) == (HealthState.short_retry, at(300))
    _, admission = admit(after, at(1), CallRequest("r2"), P)
    assert admission.rule == "pacing.backlog"  # waits for the reset, never "breaker.open"


def test_an_outage_verdict_still_opens_the_breaker():
    evidence = HealthEvidence(state=HealthState.degraded, retry_at=at(30), code="provider_unavailable", run_id="r")
    assert step(CapacityState(), T0, evidence, P).breaker(at(1)) is Breaker.open


def test_a_429_during_an_open_breaker_leaves_the_breaker_alone():
    open_ = CapacityState(health=HealthState.degraded, retry_at=at(30))
    after = step(open_, at(1), RateLimited("r", 5.0), P)
    assert (after.health, after.retry_at) == (open_.health, open_.retry_at)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(0, 30),
            st.one_of(st.none(), st.floats(0.01, 120)),
            st.one_of(st.none(), st.floats(1, 10_000)),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_any_run_of_429s_keeps_the_breaker_closed_and_a_positive_rate(events):
    state, now = LIMITING, T0
    for gap, retry_after, limit in events:
        now += timedelta(seconds=gap)
        state = step(state, now, RateLimited("r", retry_after, limit), P)
        assert state.breaker(now) is Breaker.closed
        assert state.learned_rpm is None or state.learned_rpm >= P.min_learned_rpm
        taught = state.limited_at == now
        if taught and retry_after is not None and limit is None:  # never faster than its Retry-After implies …
            implied = max(60 / retry_after, 0.5 * state.window.requests, P.min_learned_rpm)
            assert state.learned_rpm <= implied + 1e-9


# --- which failures are only "not now" ------------------------------------------------------------------
@pytest.mark.parametrize(
    "code, rule, capacity",
    [
        ("rate_limited", "body.rate_limit", True),
        ("quota_limited", "neutral.quota", True),
        ("circuit_open", "pacing.backlog", True),
        ("circuit_open", "breaker.open", False),
        ("circuit_open", "budget.retries_exhausted", False),
        ("provider_unavailable", "http.status.503", False),
        ("provider_overloaded", "http.status.529", False),
    ],
)
def test_capacity_waits(code, rule, capacity):
    assert is_capacity_wait(code, rule) is capacity


# --- the headers ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "headers, rpm",
    [
        # https://platform.openai.com/docs/guides/rate-limits (Rate limits in headers)
        ({"x-ratelimit-limit-requests": "60", "x-ratelimit-remaining-requests": "59"}, 60.0),
        # https://docs.anthropic.com/en/api/rate-limits (Response headers)
        (
            {"anthropic-ratelimit-requests-limit": "50", "anthropic-ratelimit-requests-reset": "2026-11-29T12:00:00Z"},
            50.0,
        ),
        ({"X-RateLimit-Limit-Requests": " 3500 "}, 3500.0),
        ({"x-ratelimit-limit-tokens": "40000"}, None),  # a token limit is not a request limit
        ({"x-ratelimit-limit-requests": "unlimited"}, None),
        ({"x-ratelimit-limit-requests": "0"}, None),
        ({}, None),
    ],
)
def test_the_stated_request_limit(headers, rpm):
    assert requests_per_minute(headers) == rpm


def test_replace_keeps_the_learned_rate_through_unrelated_events():
    taught = step(LIMITING, T0, RateLimited("r", 1.0), P)
    evidence = HealthEvidence(state=HealthState.short_retry, retry_at=at(2), code="provider_unavailable", run_id="r")
    assert replace(step(taught, at(1), evidence, P)).learned_rpm == taught.learned_rpm


# --- pacing slots given before a 429 are void -----------------------------------------------------------
def test_a_slot_given_before_a_429_is_void_and_the_caller_is_paced_anew():
    paced = step(LIMITING, T0, RateLimited("r", limit_rpm=120), P)
    state, _ = admit(paced, at(1), CallRequest("a"), P)
    state, second = admit(state, at(1), CallRequest("b"), P)
    assert second.wait_s > 0
    state = step(state, at(1.2), RateLimited("a", 2.0, admitted_at=at(1)), P)  # the rate was too high
    _, again = admit(state, at(1.5), CallRequest("b", reserved_at=at(1)), P)
    assert again.verdict is Verdict.wait and again.slot_at is not None and again.slot_at >= at(3.2)


def test_a_slot_given_after_the_last_429_stands():
    paced = step(LIMITING, T0, RateLimited("r", 1.0), P)
    state, given = admit(paced, at(2), CallRequest("a"), P)
    _, again = admit(state, at(2) + timedelta(seconds=given.wait_s), CallRequest("a", reserved_at=at(2)), P)
    assert again.verdict is Verdict.admitted and again.wait_s == 0


def test_a_429_of_a_call_paced_at_an_older_rate_does_not_cut_the_new_one():
    taught = step(LIMITING, T0, RateLimited("r", 1.0), P)
    stale = step(taught, at(10), RateLimited("r2", 0.5, admitted_at=at(-5)), P)
    assert stale.rate_at(at(10), P) == pytest.approx(taught.rate_at(at(10), P))
    assert (stale.learned_at, stale.limited_at) == (taught.learned_at, taught.limited_at)  # nothing moved: …
    still_fresh = step(stale, at(11), RateLimited("r4", 0.5, admitted_at=at(5)), P)  # … a later call still cuts
    assert still_fresh.learned_rpm == pytest.approx(cut_by(taught.rate_at(at(11), P), 0.5))
    fresh = step(taught, at(10), RateLimited("r3", 0.5, admitted_at=at(5)), P)
    assert fresh.learned_rpm == pytest.approx(cut_by(taught.rate_at(at(10), P), 0.5))


def test_a_few_429s_among_many_answers_teach_no_rate_but_hold_callers_for_their_retry_after():
    busy = CapacityState(window=Window(start=T0 - timedelta(seconds=30), requests=200, limited=3))
    after = step(busy, T0, RateLimited("r", retry_after_s=2.0), P)
    assert after.learned_rpm is None  # one conversation's 429 is not the provider's rate
    assert (after.health, after.retry_at) == (HealthState.short_retry, at(2.0))
    assert spacing_s(slots(after, 3, 5)) == 0  # not paced
    stated = step(busy, T0, RateLimited("r", limit_rpm=600), P)
    assert stated.learned_rpm == 600  # the headers' word is taken at once


def test_once_a_rate_is_learned_a_fresh_429_cuts_it_however_many_calls_the_pacer_has_slotted():
    """The pacer counts a call in the window when it gives its slot (up to two minutes ahead): 100 callers
    slotted at once made the window 100 requests, so the share test hid the 429s of a rate a little too high
    (a 429 every other call, seen in the bench) for 20 s."""
    taught = step(LIMITING, T0, RateLimited("r", 1.0), P)
    slotted = replace(taught, window=replace(taught.window, requests=116, limited=5))
    rate = slotted.rate_at(at(5), P)
    assert rate is not None
    cut = step(slotted, at(5), RateLimited("r2", 0.02, admitted_at=at(4)), P)
    assert cut.learned_rpm == pytest.approx(cut_by(rate, 0.02))
    assert cut.learned_rpm < rate


@pytest.mark.parametrize("retry_after_s", [0.25, 1.0, 5.0])
def test_callers_a_429s_floor_holds_before_any_rate_is_known_are_released_one_by_one(retry_after_s):
    """One 429 teaches no rate but holds every caller until its Retry-After: released together, a herd of 75
    calls met a token bucket's one token in the bench. They go a second apart, whatever the Retry-After (a
    short one paced them four a second at a one-a-second bucket)."""
    quiet = CapacityState(window=Window(start=T0 - timedelta(seconds=1), requests=20))
    held = step(quiet, T0, RateLimited("r", retry_after_s), P)
    assert held.learned_rpm is None
    found = slots(held, 0.1, 10)
    assert found[0] == at(retry_after_s)
    assert spacing_s(found) == pytest.approx(P.pacing_margin * P.held_spacing_s)
    assert spacing_s(slots(held, retry_after_s + 0.1, 5)) == 0  # once the floor has passed: not paced


def test_a_windows_reset_releases_the_callers_it_held_together():
    """A Retry-After longer than a token bucket's (a per-minute window's reset, a quota's) refills at once: the
    callers it held go when it passes, as before; pacing them a second apart would only slow a fast provider."""
    quiet = CapacityState(window=Window(start=T0 - timedelta(seconds=1), requests=20))
    held = step(quiet, T0, RateLimited("r", 20.0), P)
    found = slots(held, 0.1, 10)
    assert set(found) == {at(20.0)}


def test_a_rate_learned_long_ago_is_not_cut_by_one_429_among_many_answers():
    """Only a key that limited within the window takes every 429 as feedback on its rate. One 429 an hour later,
    among 200 answers, is one conversation's bad luck: cut by its Retry-After cap it would pace the key at 30/min
    for an hour (review finding)."""
    taught = step(LIMITING, T0, RateLimited("r", 1.0), P)
    later = at(3600)
    busy = replace(taught, window=Window(start=later - timedelta(seconds=30), requests=200, limited=0))
    one = step(busy, later, RateLimited("r2", 2.0, admitted_at=later - timedelta(seconds=1)), P)
    assert one.rate_at(later, P) == pytest.approx(taught.rate_at(later, P))
    assert (one.health, one.retry_at) == (HealthState.short_retry, later + timedelta(seconds=2))  # still a floor
    limiting = replace(busy, limited_at=later - timedelta(seconds=30))
    cut = step(limiting, later, RateLimited("r3", 2.0, admitted_at=later - timedelta(seconds=1)), P)
    assert cut.rate_at(later, P) < taught.rate_at(later, P)


def test_a_slot_given_before_a_newer_floor_waits_for_that_floor():
    """A caller re-asking at its slot is held by a Retry-After floor set after its slot was given (by another
    run's decision: no 429 voided the slots), not let through it."""
    taught = step(LIMITING, T0, RateLimited("r", 1.0), P)
    state, first = admit(taught, at(2), CallRequest("a"), P)
    assert first.slot_at is not None
    decided = HealthEvidence(HealthState.short_retry, at(12.5), "rate_limited", "other")
    floored = step(state, at(2.5), decided, P)
    assert (floored.retry_at, floored.limited_at) == (at(12.5), state.limited_at)
    _, again = admit(floored, at(3), CallRequest("a", reserved_at=at(2)), P)
    assert again.slot_at is not None and again.slot_at >= at(12.5)


# --- a Retry-After floor lasts until it passes or the provider answers ------------------------------------
# The failing call notes a 429 at once (RateLimited: the key's Retry-After floor); the runs' decisions reach the
# store later, as evidence. Evidence must neither lift a floor the provider announced nor put back one that a
# later answer lifted.
FLOORED = step(CapacityState(), T0, RateLimited("r", retry_after_s=20.0), P)


@pytest.mark.parametrize(
    "name, code, retry_at",
    [
        ("another run's 503 (no reset of its own)", "provider_unavailable", None),
        ("another run's timeout", "timeout", None),
        ("a shorter Retry-After seen by another run", "rate_limited", 5.0),
    ],
)
def test_evidence_never_lifts_a_retry_after_floor_the_provider_announced(name, code, retry_at):
    evidence = HealthEvidence(HealthState.short_retry, at(retry_at) if retry_at else None, code, "other")
    after = step(FLOORED, at(1), evidence, P)
    _, admission = admit(after, at(2), CallRequest("next"), P)
    assert admission.slot_at == at(20), name  # nobody calls inside the announced Retry-After
    assert (after.health, after.retry_at, after.last_code) == (HealthState.short_retry, at(20), "rate_limited")


def test_a_longer_retry_after_extends_the_floor_and_evidence_after_it_is_recorded_as_it_is():
    longer = step(FLOORED, at(1), HealthEvidence(HealthState.short_retry, at(40), "rate_limited", "other"), P)
    assert longer.retry_at == at(40)
    later = step(FLOORED, at(21), HealthEvidence(HealthState.short_retry, None, "timeout", "other"), P)
    assert (later.retry_at, later.last_code) == (None, "timeout")


def test_a_failures_evidence_observed_before_the_providers_last_answer_is_stale():
    answered = step(FLOORED, at(0.1), CallSucceeded("another conversation"), P)
    late = HealthEvidence(HealthState.short_retry, at(20.2), "rate_limited", "r", observed_at=T0)
    after = step(answered, at(0.2), late, P)
    assert after is answered  # the floor the answer lifted stays lifted
    _, admission = admit(after, at(0.3), CallRequest("next"), P)
    assert admission.verdict is Verdict.admitted and admission.wait_s == 0


@pytest.mark.parametrize(
    "name, state, observed",
    [
        ("observed after the answer", step(FLOORED, at(0.1), CallSucceeded("x"), P), 0.15),
        ("observation time unknown", step(FLOORED, at(0.1), CallSucceeded("x"), P), None),
        ("a fresh row, never answered", CapacityState(changed_at=at(0.1)), 0.0),
    ],
)
def test_evidence_not_older_than_an_answer_is_recorded(name, state, observed):
    observed_at = at(observed) if observed is not None else None
    evidence = HealthEvidence(HealthState.user_action_required, None, "auth_required", "r", observed_at=observed_at)
    assert step(state, at(0.2), evidence, P).health is HealthState.user_action_required, name


def test_a_collision_costs_a_learned_rate_a_little_not_half():
    """Two callers' calls arriving together (a pacing slot and a caller admitted before the rate was learned,
    or a busy worker's delay): the second gets a Retry-After of nearly a whole spacing. Cutting by the
    spacing that implies halved the rate, and one bench arm ran at half speed to its end for one collision."""
    taught = step(LIMITING, T0, RateLimited("r", 1.0), P)
    rate = taught.rate_at(at(2), P)
    assert rate is not None
    collided = step(taught, at(2), RateLimited("r2", 0.99, admitted_at=at(1)), P)
    assert collided.learned_rpm == pytest.approx(rate * P.rate_decrease_floor)
    assert collided.learned_rpm > 0.8 * rate


@pytest.mark.parametrize("limit_rpm", [30.0, 45.0, 60.0])
def test_a_rate_learned_too_high_comes_down_to_the_providers_within_a_few_calls(limit_rpm):
    """A token bucket (burst 1) answering callers paced at a rate learned too high (a Retry-After that said
    little): each 429 of a paced call cuts it at most by the decrease floor, so a rate twice the limit needs
    several 429s; they come every other call, so it is down within ~15 calls and stays there."""
    state = replace(step(LIMITING, T0, RateLimited("r", 60.0 / (2 * limit_rpm)), P), next_slot_at=None)
    assert state.learned_rpm == pytest.approx(2 * limit_rpm)
    tokens, refilled, now, served = 1.0, 0.0, 1.0, []
    for i in range(40):
        state, admission = admit(state, at(now), CallRequest(f"c{i}"), P)
        assert admission.slot_at is not None
        now = max(now, (admission.slot_at - T0).total_seconds())
        tokens, refilled = min(1.0, tokens + (now - refilled) * limit_rpm / 60.0), now
        if tokens >= 1.0 - 1e-5:  # a call at the Retry-After floor, to the microsecond the floor keeps
            tokens = max(0.0, tokens - 1.0)
            served.append(i)
        else:
            retry_after = (1.0 - tokens) * 60.0 / limit_rpm
            state = step(state, at(now), RateLimited(f"c{i}", retry_after, admitted_at=at(now)), P)
    assert all(i in served for i in range(15, 40))  # down by the 15th call: every later call is served …
    assert 0.85 * limit_rpm <= state.rate_at(at(now), P) <= 1.1 * limit_rpm  # … near the limit, not far below it
