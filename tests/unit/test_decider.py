"""Every code × context cell of the routing decider, plus retry bounds, backoff and fail-closed rules."""

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from routing.backoff import full_jitter, retry_delay
from routing.capacity import counts_toward_breaker
from routing.classifier import Classification
from routing.codes import ErrorCode, Phase, class_of
from routing.decider import (
    DECISIONS,
    LAUNCH_STALLED_RULE,
    HealthState,
    ParkReason,
    Row,
    RunState,
    ShortRetryRules,
    Situation,
    decide,
)
from routing.decider import (
    DecisionKind as D,
)
from routing.decider import (
    RoutingContext as C,
)

F, W, S, P, X = D.fallback, D.wait, D.short_retry, D.park, D.fail

# code: (office + another provider eligible, office + nothing else, interactive)
TABLE = {
    ErrorCode.auth_required: (F, P, X),
    ErrorCode.missing_credentials: (F, P, X),
    ErrorCode.subscription_required: (F, P, X),
    ErrorCode.provider_not_configured: (F, P, X),
    ErrorCode.model_unavailable: (F, X, X),
    ErrorCode.quota_limited: (F, P, X),  # no reset hint: needs plan/billing action
    ErrorCode.rate_limited: (S, S, S),
    ErrorCode.provider_overloaded: (S, S, S),
    ErrorCode.provider_unavailable: (S, S, S),
    ErrorCode.model_capacity: (S, S, S),
    ErrorCode.network_unavailable: (S, S, S),
    ErrorCode.timeout: (S, S, S),
    ErrorCode.stream_truncated: (S, S, S),
    ErrorCode.circuit_open: (F, W, X),
    ErrorCode.content_policy: (X, X, X),
    ErrorCode.context_length_exceeded: (X, X, X),
    ErrorCode.invalid_request: (X, X, X),
    ErrorCode.unknown: (P, P, X),  # an office run waits for a person; nobody deciding in time fails it
    ErrorCode.invalid_configuration: (X, X, X),
    ErrorCode.invalid_input: (X, X, X),
    ErrorCode.worker_lost: (S, S, S),  # the same route on a live worker, in every context
    ErrorCode.answer_too_large: (X, X, X),  # the office's own limit: never retried, never routed around
}


def failure(code: ErrorCode, retry_after_s: float | None = None) -> Classification:
    return Classification(
        code=code,
        error_class=class_of(code),
        confidence=0.9,
        phase=Phase.after_start,
        rule="test",
        retry_after_s=retry_after_s,
    )


def state(others: bool, retries: int = 0, attempts: int = 1, waits: int = 0, lost: int = 1) -> RunState:
    return RunState(
        attempts=attempts,
        max_attempts=8,
        same_route_retries=retries,
        waits=waits,
        other_candidate_eligible=others,
        worker_losses=lost,
    )


def test_table_covers_every_code():
    assert set(TABLE) == set(ErrorCode)


def test_the_decision_table_has_one_cell_for_every_row_in_every_situation():
    assert set(DECISIONS) == {(r, s) for r in Row for s in Situation}
    for (r, s), cell in DECISIONS.items():
        assert (cell.kind is P) == (cell.park is not None), (r, s)
        if cell.kind is F:  # only an office run with another provider eligible ever switches
            assert s is Situation.elsewhere and r not in (Row.terminal, Row.unclassified, Row.unreadable), (r, s)


@pytest.mark.parametrize("code", list(ErrorCode))
def test_every_code_in_every_context(code):
    with_others, alone, interactive = TABLE[code]
    assert decide(failure(code), C.office, state(True), 0.5).kind is with_others
    assert decide(failure(code), C.office, state(False), 0.5).kind is alone
    assert decide(failure(code), C.interactive, state(True), 0.5).kind is interactive


def test_circuit_open_never_short_retries_and_waits_at_least_its_hint():
    d = decide(failure(ErrorCode.circuit_open, retry_after_s=12), C.office, state(False), 0.5)
    assert d.kind is W and d.delay_s >= 12 and d.health is None


@pytest.mark.parametrize("code", [c for c, row in TABLE.items() if row[0] is S and c is not ErrorCode.worker_lost])
def test_transient_after_short_retries_falls_back_or_waits(code):
    exhausted = ShortRetryRules().max_short_retries
    assert decide(failure(code), C.office, state(True, retries=exhausted), 0.5).kind is F
    waited = decide(failure(code), C.office, state(False, retries=exhausted), 0.5)
    assert waited.kind is W and waited.delay_s and waited.delay_s > 0
    assert decide(failure(code), C.interactive, state(True, retries=exhausted), 0.5).kind is X


def test_long_retry_after_is_not_a_short_retry():
    d = decide(failure(ErrorCode.rate_limited, retry_after_s=120), C.office, state(True), 0.5)
    assert d.kind is F and d.health.state is HealthState.short_retry and d.health.retry_after_s == 120
    d = decide(failure(ErrorCode.rate_limited, retry_after_s=120), C.office, state(False), 0.5)
    assert d.kind is W and d.delay_s >= 120


def test_retry_after_is_a_floor_for_short_retries():
    for rand in (0.0, 0.3, 0.99):
        d = decide(failure(ErrorCode.rate_limited, retry_after_s=7), C.office, state(False), rand)
        assert d.kind is S and d.delay_s >= 7


@pytest.mark.parametrize("hint,kind", [(1, S), (47.4, S), (60, S), (61, F), (7200, F), (86400, F)])
def test_the_reset_time_chooses_between_short_retry_and_fallback(hint, kind):
    """Up to a minute (one per-minute window) waits on the same route; a daily limit is never short-retried."""
    assert ShortRetryRules().short_retry_max_wait_s == 60
    assert decide(failure(ErrorCode.rate_limited, retry_after_s=hint), C.office, state(True), 0.5).kind is kind


def test_a_quota_falls_back_whatever_its_reset_and_waits_for_it_when_alone():
    for hint in (5, 22, 3600, 86400):
        assert decide(failure(ErrorCode.quota_limited, retry_after_s=hint), C.office, state(True), 0.5).kind is F
        alone = decide(failure(ErrorCode.quota_limited, retry_after_s=hint), C.office, state(False), 0.5)
        assert (alone.kind, alone.delay_s) == (W, hint)


def test_quota_waits_until_reset_when_nothing_else_is_eligible():
    d = decide(failure(ErrorCode.quota_limited, retry_after_s=3600), C.office, state(False), 0.5)
    assert d.kind is W and d.delay_s == 3600
    assert decide(failure(ErrorCode.quota_limited, retry_after_s=3600), C.office, state(True), 0.5).kind is F


def test_parks_name_their_reason_and_health_effects_are_scoped():
    d = decide(failure(ErrorCode.auth_required), C.office, state(False), 0.5)
    assert d.park_reason is ParkReason.blocked_provider_action_required
    assert d.health.state is HealthState.user_action_required and not d.health.model_scoped
    d = decide(failure(ErrorCode.model_unavailable), C.office, state(True), 0.5)
    assert d.health.model_scoped


def test_attempt_cap_fails_even_when_fallback_is_possible():
    d = decide(failure(ErrorCode.auth_required), C.office, state(True, attempts=8), 0.5)
    assert d.kind is X and "cap" in d.reason


@pytest.mark.parametrize("others", [True, False])
@pytest.mark.parametrize("pinned", [True, False])
def test_an_unreadable_failure_waits_the_workspaces_time_for_a_person_and_never_moves_the_run(others, pinned):
    waiting = RunState(attempts=1, max_attempts=8, other_candidate_eligible=others, pinned=pinned, unreadable_wait_s=90)
    d = decide(failure(ErrorCode.unknown), C.office, waiting, 0.5)
    assert (d.kind, d.park_reason, d.delay_s, d.health) == (P, ParkReason.unreadable_failure, 90, None)
    at_cap = waiting.model_copy(update={"attempts": 8})  # a person may still retry a run that spent its attempts
    assert decide(failure(ErrorCode.unknown), C.office, at_cap, 0.5).park_reason is ParkReason.unreadable_failure


def test_an_unreadable_failure_fails_at_once_without_a_wait_in_interactive_runs_or_in_older_histories():
    no_wait = RunState(attempts=1, max_attempts=8, other_candidate_eligible=True, unreadable_wait_s=0)
    assert decide(failure(ErrorCode.unknown), C.office, no_wait, 0.5).kind is X
    assert decide(failure(ErrorCode.unknown), C.interactive, state(True), 0.5).kind is X
    asked: list[ErrorCode] = []

    def recorded_before_the_gate(code: ErrorCode) -> Callable[[], bool]:
        return lambda: asked.append(code) or False

    old = decide(
        failure(ErrorCode.unknown),
        C.office,
        state(True),
        0.5,
        unreadable_parks=recorded_before_the_gate(ErrorCode.unknown),
    )
    assert old.kind is X and "failing closed" in old.reason and asked == [ErrorCode.unknown]
    for code in (ErrorCode.content_policy, ErrorCode.auth_required, ErrorCode.rate_limited):  # asked nowhere else
        decide(failure(code), C.office, state(True), 0.5, unreadable_parks=recorded_before_the_gate(code))
    assert asked == [ErrorCode.unknown]


def test_terminal_and_unknown_never_fall_back_even_with_candidates():
    for code in (ErrorCode.content_policy, ErrorCode.unknown):
        assert decide(failure(code), C.office, state(True), 0.5).health is None


@given(step=st.integers(0, 50), rand=st.floats(0, 1), base=st.floats(0.01, 10), cap=st.floats(0.1, 600))
def test_full_jitter_stays_within_its_ceiling(step, rand, base, cap):
    delay = full_jitter(step, rand, base, cap)
    assert 0 <= delay <= min(cap, base * 2**step) + 1e-9


@given(step=st.integers(0, 20), rand=st.floats(0, 1), floor=st.floats(0, 1000))
def test_retry_delay_never_undercuts_the_floor(step, rand, floor):
    assert retry_delay(step, rand, floor) >= floor


@given(
    code=st.sampled_from(list(ErrorCode)),
    ctx=st.sampled_from(list(C)),
    others=st.booleans(),
    retries=st.integers(0, 10),
    attempts=st.integers(1, 10),
    rand=st.floats(0, 0.999),
    hint=st.one_of(st.none(), st.floats(0, 10_000)),
)
def test_decider_is_total_and_never_switches_outside_office(code, ctx, others, retries, attempts, rand, hint):
    d = decide(
        failure(code, hint),
        ctx,
        RunState(attempts=attempts, max_attempts=8, same_route_retries=retries, other_candidate_eligible=others),
        rand,
    )
    if d.kind is F:
        assert ctx is C.office and others and code is not ErrorCode.unknown
    if d.kind in (S, W):
        assert d.delay_s is not None and d.delay_s >= (hint or 0)


@pytest.mark.parametrize(
    ("retries", "attempts", "others", "lost", "kind"),
    [
        (0, 1, True, 1, S),
        (2, 1, True, 1, S),  # the route's short retries are spent: a lost worker is still not a reason to move
        (0, 8, True, 1, S),  # the attempt cap counts the provider's failures, not the office's
        (0, 1, False, 20, S),  # the last one the run allows
        (0, 1, True, 21, X),  # past the run's limit: fail, naming the workers (never a fallback)
    ],
)
def test_a_lost_worker_retries_the_same_route_without_blaming_the_provider(retries, attempts, others, lost, kind):
    rules = ShortRetryRules()
    assert rules.max_worker_losses == 20
    d = decide(failure(ErrorCode.worker_lost), C.office, state(others, retries, attempts, lost=lost), 0.99)
    assert (d.kind, d.health, d.park_reason) == (kind, None, None)
    if kind is S:
        assert 0 <= d.delay_s <= min(rules.worker_cap_s, rules.worker_base_s * 2 ** (lost - 1))
    else:
        assert "worker lost 21 times" in d.reason


@given(lost=st.integers(1, 20), rand=st.floats(0, 0.999))
def test_a_lost_worker_backs_off_within_its_cap(lost, rand):
    d = decide(failure(ErrorCode.worker_lost), C.office, state(True, lost=lost), rand)
    assert d.kind is S and 0 <= d.delay_s <= ShortRetryRules().worker_cap_s


@pytest.mark.parametrize("pinned", [False, True])
def test_an_answer_too_large_fails_the_run_and_never_touches_the_providers_health(pinned):
    run = RunState(attempts=1, max_attempts=8, other_candidate_eligible=True, pinned=pinned)
    for context in C:
        d = decide(failure(ErrorCode.answer_too_large), context, run, 0.5)
        assert (d.kind, d.health, d.delay_s) == (X, None, None)
    assert not counts_toward_breaker(ErrorCode.answer_too_large.value)  # the shared breaker never counts it


VERDICTS = {HealthState.user_action_required, HealthState.degraded}


@pytest.mark.parametrize("code", list(ErrorCode))
@pytest.mark.parametrize("others", [True, False])
@pytest.mark.parametrize("prefix", ["learned.", "unverified.text."], ids=["learned", "unverified"])
def test_a_learned_guess_decides_its_run_but_never_a_verdict_every_run_obeys(code, others, prefix):
    """The same code read by a rule and guessed by the second stage: the run does the same thing, but a guess marks
    the provider with one transient failure's evidence at most, never a login needed, a model gone or a cool-down."""
    ruled = decide(failure(code, retry_after_s=30), C.office, state(others), 0.5)
    guessed = decide(
        failure(code, retry_after_s=30).model_copy(update={"rule": f"{prefix}{code.value}", "confidence": 0.4}),
        C.office,
        state(others),
        0.5,
    )
    assert (guessed.kind, guessed.delay_s, guessed.park_reason) == (ruled.kind, ruled.delay_s, ruled.park_reason)
    assert guessed.health is None or guessed.health.state not in VERDICTS
    assert (guessed.health is None) == (ruled.health is None)
    if guessed.health is not None:  # evidence, with no wait of its own that every run would keep to
        assert (guessed.health.state, guessed.health.retry_after_s) == (HealthState.short_retry, None)


def test_some_code_is_a_verdict_when_a_rule_reads_it():
    """The test above would pass vacuously if no rule reading ever made a verdict."""
    made = [decide(failure(code), C.office, state(True), 0.5).health for code in ErrorCode]
    assert {h.state for h in made if h is not None} >= VERDICTS


def stalled() -> Classification:
    return failure(ErrorCode.worker_lost).model_copy(update={"rule": LAUNCH_STALLED_RULE})


@pytest.mark.parametrize(
    ("stalls", "others", "ctx", "kind"),
    [
        (1, True, C.office, S),  # a loaded worker first: the same route again
        (2, True, C.office, S),
        (3, True, C.office, F),  # the agent keeps not starting: the next provider
        (3, False, C.office, X),  # nothing else: the run ends now, its message naming the profile to check
        (3, True, C.interactive, X),  # no consent to switch: the same
        (9, True, C.office, F),
        (21, False, C.office, X),
    ],
)
def test_an_agent_that_keeps_not_starting_moves_on_without_blaming_the_provider(stalls, others, ctx, kind):
    run = state(others).model_copy(update={"launch_stalls": stalls, "worker_losses": stalls})
    d = decide(stalled(), ctx, run, 0.5)
    assert d.kind is kind and d.health is None
    # A lost worker that is not a stall keeps its generous retries whatever the stall count says.
    assert decide(failure(ErrorCode.worker_lost), ctx, run, 0.5).kind is (S if stalls <= 20 else X)


@pytest.mark.parametrize(("others", "ctx"), [(False, C.office), (True, C.interactive)])
def test_runs_recorded_before_stalls_ended_them_alone_keep_retrying_as_lost_workers(others, ctx):
    """The workflow's patch gate: asked only where an agent kept not starting with nothing else eligible; a run
    recorded before it retried such a stall as a lost worker, until its worker losses ran out."""
    asked = []

    def before_the_gate() -> bool:
        asked.append(True)
        return False

    run = state(others).model_copy(update={"launch_stalls": 3, "worker_losses": 3})
    assert decide(stalled(), ctx, run, 0.5, stalls_end_alone=before_the_gate).kind is S
    assert len(asked) == 1
    exhausted = run.model_copy(update={"worker_losses": 21})
    assert decide(stalled(), ctx, exhausted, 0.5, stalls_end_alone=before_the_gate).kind is X
    elsewhere = state(True).model_copy(update={"launch_stalls": 3, "worker_losses": 3})
    assert decide(stalled(), C.office, elsewhere, 0.5, stalls_end_alone=before_the_gate).kind is F
    for stalls in (1, 2):  # not yet the profile's: the gate is not asked
        early = run.model_copy(update={"launch_stalls": stalls, "worker_losses": stalls})
        assert decide(stalled(), ctx, early, 0.5, stalls_end_alone=before_the_gate).kind is S
    assert len(asked) == 1  # never where nothing differs: early stalls, elsewhere, worker losses run out
