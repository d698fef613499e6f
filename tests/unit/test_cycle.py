"""The route cycle: where each decision leads, and the fail-or-park choice when nothing is eligible."""

from datetime import UTC, datetime, timedelta

import pytest

from routing.classifier import Classification
from routing.codes import ErrorCode
from routing.cycle import RouteCycle, StepKind
from routing.decider import Decision, DecisionKind, ParkReason
from routing.run import Ineligible
from routing.selection import SelectionSource
from testkit.factories import candidate, classification, plan

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def cycle(*providers: str, pinned: bool = False, ineligible: list[Ineligible] | None = None) -> RouteCycle:
    return RouteCycle(plan=plan(*providers, max_attempts=4, pinned=pinned, ineligible=ineligible or []))


def decision(kind: DecisionKind, **kw: object) -> Decision:
    return Decision(kind=kind, code=ErrorCode.rate_limited, reason="r", **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kind", "extra", "step", "excluded", "retries", "waits"),
    [
        (DecisionKind.short_retry, {"delay_s": 1.5}, StepKind.retry_same_route, [], 1, 0),
        (DecisionKind.fallback, {}, StepKind.next_candidate, ["a"], 0, 0),
        (DecisionKind.fail, {}, StepKind.fail, [], 0, 0),
        (DecisionKind.wait, {"delay_s": 60.0}, StepKind.park, [], 0, 1),
        (DecisionKind.park, {"park_reason": ParkReason.blocked_provider_action_required}, StepKind.park, [], 0, 0),
    ],
)
def test_each_decision_leads_to_one_step(kind, extra, step, excluded, retries, waits):
    c = cycle("a", "b")
    c.state_for_failure(c.plan.candidates[0])
    out = c.after(decision(kind, **extra), c.plan.candidates[0])
    assert (out.kind, c.excluded, c.route_retries, c.waits) == (step, excluded, retries, waits)


def test_a_wait_parks_for_capacity_with_the_decided_delay_and_names_the_provider():
    c = cycle("a")
    out = c.after(decision(DecisionKind.wait, delay_s=60.0), c.plan.candidates[0])
    assert (out.park_reason, out.delay_s) == (ParkReason.waiting_for_provider_capacity, 60.0)
    assert out.why.startswith("a: ")


def test_fallback_moves_to_the_next_candidate_and_marks_it_automatic():
    c = cycle("a", "b")
    first = c.next_candidate()
    assert first is not None and c.source_of(first) is SelectionSource.default
    c.after(decision(DecisionKind.fallback), first)
    nxt = c.next_candidate()
    assert nxt is not None and nxt.provider == "b" and c.source_of(nxt) is SelectionSource.auto


def test_a_user_chosen_route_stays_the_users_after_a_fallback():
    c = cycle("a")
    c.excluded.append("x")
    assert c.source_of(candidate("a", source=SelectionSource.user)) is SelectionSource.user


def test_the_decider_is_told_failed_attempts_retries_and_whether_another_route_is_left():
    c = cycle("a", "b")
    a, b = c.plan.candidates
    assert c.state_for_failure(a).model_dump(include={"attempts", "other_candidate_eligible"}) == {
        "attempts": 1, "other_candidate_eligible": True}  # fmt: skip
    c.after(decision(DecisionKind.fallback), a)
    state = c.state_for_failure(b)
    assert (state.attempts, state.other_candidate_eligible) == (2, False)


def test_nothing_eligible_because_the_model_is_gone_everywhere_fails():
    gone = [Ineligible(provider=p, reason="gone", code=ErrorCode.model_unavailable.value) for p in ("a", "b")]
    out = cycle(ineligible=gone).nothing_eligible(NOW)
    assert (out.kind, out.code, out.provider) == (StepKind.fail, ErrorCode.model_unavailable, "b")


def test_nothing_eligible_with_a_known_reset_parks_until_the_earliest_reset():
    cooling = [Ineligible(provider="a", reason="quota", retry_at=NOW + timedelta(seconds=90)),
               Ineligible(provider="b", reason="quota", retry_at=NOW + timedelta(seconds=30))]  # fmt: skip
    out = cycle(ineligible=cooling).nothing_eligible(NOW)
    assert (out.kind, out.park_reason, out.delay_s) == (StepKind.park, ParkReason.waiting_for_provider_capacity, 30)


@pytest.mark.parametrize(
    ("pinned", "reason"),
    [(True, ParkReason.awaiting_user_decision), (False, ParkReason.blocked_provider_action_required)],
)
def test_nothing_eligible_without_a_reset_parks_for_the_user(pinned, reason):
    blocked = [Ineligible(provider="a", reason="auth", code=ErrorCode.auth_required.value)]
    out = cycle(pinned=pinned, ineligible=blocked).nothing_eligible(NOW)
    assert (out.kind, out.park_reason, out.delay_s, out.why) == (StepKind.park, reason, None, "a: auth")


def test_replan_makes_every_route_eligible_again_and_resets_route_retries():
    c = cycle("a", "b")
    c.after(decision(DecisionKind.fallback), c.plan.candidates[0])
    c.after(decision(DecisionKind.short_retry), c.plan.candidates[1])
    c.replan(cycle("a", "b").plan)
    assert (c.excluded, c.route_retries) == ([], 0)


# --- capacity waits never count toward the attempt cap --------------------------------------------------
@pytest.mark.parametrize(
    "code, rule, counted",
    [
        ("rate_limited", "body.rate_limit", False),
        ("quota_limited", "neutral.quota", False),
        ("circuit_open", "pacing.backlog", False),
        ("circuit_open", "breaker.open", True),
        ("circuit_open", "budget.retries_exhausted", True),
        ("provider_unavailable", "http.status.503", True),
    ],
)
def test_only_real_failures_count_toward_the_attempt_cap(code, rule, counted):
    c = cycle("a", "b")
    for n in range(1, 20):
        state = c.state_for_failure(candidate("a"), classification(code, rule=rule))
        assert state.attempts == (n if counted else 0)


def test_a_run_recorded_before_the_change_counts_capacity_waits_and_the_gate_is_asked_only_for_them():
    asked: list[str] = []

    def gate() -> bool:
        asked.append("asked")
        return False

    c = cycle("a")
    assert c.state_for_failure(candidate("a"), classification("provider_unavailable"), gate).attempts == 1
    assert asked == []  # a real failure never asks (a happy or failing run records no marker)
    assert c.state_for_failure(candidate("a"), classification("rate_limited"), gate).attempts == 2
    assert asked == ["asked"]


def test_a_retry_after_a_rate_limit_is_paced_not_budgeted():
    c = cycle("a")
    c.state_for_failure(candidate("a"), classification("rate_limited"))
    c.after(decision(DecisionKind.short_retry, delay_s=1.0), candidate("a"))
    assert not c.spends_retry_budget()
    c.state_for_failure(candidate("a"), classification("provider_unavailable"))
    c.after(decision(DecisionKind.short_retry, delay_s=1.0), candidate("a"))
    assert c.spends_retry_budget()


def lost() -> Classification:
    return classification(ErrorCode.worker_lost, rule="worker.heartbeat_timeout")


def test_a_lost_worker_costs_the_provider_nothing_and_is_counted_apart():
    """Not an attempt against the cap, not a short retry of the route, and its re-send is not a budgeted retry."""
    c = cycle("a", "b")
    a = c.plan.candidates[0]
    transient = classification(ErrorCode.timeout, confidence=0.9)
    c.state_for_failure(a, transient)
    c.after(decision(DecisionKind.short_retry, delay_s=1.0), a)
    assert (c.failed, c.route_retries, c.spends_retry_budget()) == (1, 1, True)
    for n in (1, 2, 3):
        state = c.state_for_failure(a, lost())
        step = c.after(Decision(kind=DecisionKind.short_retry, code=ErrorCode.worker_lost, reason="r", delay_s=2.0), a)
        assert (step.kind, step.delay_s) == (StepKind.retry_same_route, 2.0)
        assert (state.attempts, state.worker_losses, state.same_route_retries) == (1, n, 1)
        assert (c.failed, c.worker_losses, c.route_retries, c.excluded) == (1, n, 1, [])
        assert not c.spends_retry_budget()
    c.state_for_failure(a, transient)  # the provider's own failure again: a budgeted retry, as before
    c.after(decision(DecisionKind.short_retry, delay_s=1.0), a)
    assert (c.failed, c.worker_losses, c.spends_retry_budget()) == (2, 3, True)


def test_launch_stalls_are_counted_per_route_and_turn_and_move_the_run_on_after_the_decider_says():
    """The decider is told how often this route's agent did not start: the count grows with each stall, starts over
    on the next route and in the next turn, and a stall also counts as a lost worker (never a failed attempt)."""
    from routing.decider import LAUNCH_STALLED_RULE, decide
    from routing.decider import RoutingContext as C

    c = cycle("a", "b")
    a, b = c.plan.candidates
    stall = classification(ErrorCode.worker_lost, rule=LAUNCH_STALLED_RULE)
    seen = []
    for _ in range(3):
        state = c.state_for_failure(a, stall)
        step = c.after(decide(stall, C.office, state, 0.5), a)
        seen.append((state.launch_stalls, state.worker_losses, state.attempts, step.kind))
    assert seen == [
        (1, 1, 0, StepKind.retry_same_route),
        (2, 2, 0, StepKind.retry_same_route),
        (3, 3, 0, StepKind.next_candidate),  # the agent, not a worker: the next provider, the same as before
    ]
    assert c.state_for_failure(b, stall).launch_stalls == 1  # the next route's agent starts its own count
    c.begin_turn()
    assert c.state_for_failure(b, stall).launch_stalls == 1  # and so does the next turn
    c.replan(c.plan)
    assert c.state_for_failure(b, stall).launch_stalls == 1  # and a route plan made again after a park
    # A run whose stall was decided before stalls were counted keeps deciding it that way (the patch gate).
    assert c.state_for_failure(b, stall, stalls_counted=lambda: False).launch_stalls == 1
