"""The routing decider: one classified failure in, exactly one decision out. Pure and table-testable."""

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel

from routing.backoff import ladder_step, retry_delay
from routing.classifier import Classification, is_guess
from routing.codes import ErrorClass, ErrorCode


class RoutingContext(StrEnum):
    office = "office"  # the workspace provider order is the user's consent to re-dispatch
    interactive = "interactive"  # no such consent: never switch provider automatically


class DecisionKind(StrEnum):
    short_retry = "short_retry"
    wait = "wait"
    fallback = "fallback"
    park = "park"
    fail = "fail"


class ParkReason(StrEnum):
    waiting_for_provider_capacity = "waiting_for_provider_capacity"
    blocked_provider_action_required = "blocked_provider_action_required"
    awaiting_user_decision = "awaiting_user_decision"  # a pinned route failed; only the user may widen it
    budget_exhausted = "budget_exhausted"  # a run or workspace budget: raise it, or wait for its window's reset
    unreadable_failure = "unreadable_failure"  # no rule read the failure: a person retries, substitutes or cancels


# Parks a person's decision ends (`office runs decide`: retry, substitute a provider for this run, or cancel).
AWAITING_A_PERSON = frozenset({ParkReason.awaiting_user_decision, ParkReason.unreadable_failure})


class HealthState(StrEnum):
    healthy = "healthy"
    short_retry = "short_retry"
    degraded = "degraded"
    user_action_required = "user_action_required"


class HealthEffect(BaseModel):
    """Evidence about the provider (never a preference): what to record in provider health."""

    state: HealthState
    model_scoped: bool = False
    retry_after_s: float | None = None


class ShortRetryRules(BaseModel):
    max_short_retries: int = 2  # per route, per run
    # A longer reset hint is a wait or a fallback, not a short retry. One minute: a per-minute window (the
    # commonest provider limit) always resets within it, so waiting beats moving the run elsewhere.
    short_retry_max_wait_s: float = 60.0
    base_s: float = 1.0
    cap_s: float = 20.0
    # A lost worker is retried on the same route with its own backoff, bounded per run: generous, since the
    # provider is not at fault, but a fleet that keeps losing the run's workers ends it with a clear message.
    max_worker_losses: int = 20
    worker_base_s: float = 1.0
    worker_cap_s: float = 30.0
    # An agent that did not answer `initialize` in time is first the worker's (a loaded machine); one that keeps not
    # starting on the same route is the agent's or its profile's (a command that is no ACP agent, one that hangs):
    # the run moves on without blaming the provider where another is eligible, and otherwise ends with a message
    # that names the profile.
    max_launch_stalls: int = 2


# An unreadable failure (a blip in words no rule knows, or a real fault) never moves the run by itself: it waits this
# long for a person to retry, substitute or cancel, then fails as it would have at once. A day: overnight is covered.
UNREADABLE_FAILURE_WAIT_S = 24 * 3600.0


class RunState(BaseModel):
    attempts: int  # failed attempts so far in this run, including this one
    max_attempts: int
    same_route_retries: int = 0  # short retries already spent on this route
    waits: int = 0  # durable waits already taken in this run
    other_candidate_eligible: bool = False  # within the pin, when the run is pinned
    pinned: bool = False  # the user pinned provider or model: never fall back outside the pin
    worker_losses: int = 0  # attempts of this run whose worker was lost, including this one
    launch_stalls: int = 0  # attempts on this route whose agent never answered `initialize`, including this one
    # How long an office run whose failure nobody could read waits for a person before it fails (the workspace's
    # `unreadable_failure_wait`); 0: it fails at once.
    unreadable_wait_s: float = UNREADABLE_FAILURE_WAIT_S


class Decision(BaseModel):
    kind: DecisionKind
    code: ErrorCode
    reason: str
    delay_s: float | None = None
    park_reason: ParkReason | None = None
    health: HealthEffect | None = None


# The rule of the office's own finding that an agent did not answer `initialize` in time (activities.executors.acp).
LAUNCH_STALLED_RULE = "agent.launch_stalled"


class Situation(StrEnum):
    """Where the run stands when it fails: the column of the decision table."""

    elsewhere = "elsewhere"  # office run, another provider eligible (within the pin, if pinned)
    alone = "alone"  # office run, nothing else eligible
    interactive = "interactive"  # no consent to switch provider


class Row(StrEnum):
    """What failed, refined by what the run has left: the row of the decision table."""

    infrastructure = "infrastructure"  # the office's own worker was lost; retries left
    workers_exhausted = "workers_exhausted"  # the run lost more workers than it allows
    agent_stalls = "agent_stalls"  # the route's agent keeps not starting: its profile's, not the provider's
    terminal = "terminal"
    unclassified = "unclassified"  # nobody could read it, and nobody is waited for
    unreadable = "unreadable"  # nobody could read it: an office run waits for a person
    cap_reached = "cap_reached"  # the run spent its attempts
    user_action = "user_action"
    model = "model"
    quota_with_reset = "quota_with_reset"
    quota_no_reset = "quota_no_reset"
    circuit_open = "circuit_open"
    transient = "transient"  # short retries left on this route and any reset is within one
    transient_persists = "transient_persists"  # short retries spent, or the reset is too far for one


class Delay(StrEnum):
    """Which arithmetic gives the decision's delay (the only part of a decision that stays code)."""

    none = "none"
    worker_backoff = "worker_backoff"  # the worker's own jittered backoff, floored by any hint
    reset = "reset"  # exactly the reset the provider named
    breaker = "breaker"  # the breaker's hint, or a jittered first ladder step; at least a second
    backoff = "backoff"  # the route's jittered backoff, floored by the hint
    ladder = "ladder"  # a durable wait climbing the ladder, floored by the hint
    person = "person"  # the workspace's wait for a person's decision


class Health(StrEnum):
    """What the failure says about the provider (evidence, never a preference)."""

    none = "none"
    user_action = "user_action"  # the provider needs the user
    model_gone = "model_gone"  # this model on this provider needs the user
    cool = "cool"  # degraded until the reset, or a ladder step when none was named
    evidence = "evidence"  # one transient failure, with the hint it carried


@dataclass(frozen=True)
class Cell:
    kind: DecisionKind
    reason: str  # may name {losses} or {max_attempts}
    delay: Delay = Delay.none
    park: ParkReason | None = None
    health: Health = Health.none


_FAIL_TERMINAL = Cell(DecisionKind.fail, "terminal error: not retried and never routed around")
_FAIL_UNCLASSIFIED = Cell(DecisionKind.fail, "unclassified error: failing closed, no automatic provider switch")
_FAIL_CAP = Cell(DecisionKind.fail, "attempt cap reached ({max_attempts} attempts)")
_WORKER_RETRY = Cell(DecisionKind.short_retry, "worker lost; the same route on a live worker", Delay.worker_backoff)
_WORKERS_GONE = Cell(DecisionKind.fail, "worker lost {losses} times in this run")
_SHORT_RETRY = Cell(
    DecisionKind.short_retry, "transient error; short retry on the same route", Delay.backoff, health=Health.evidence
)
_BLOCKED = ParkReason.blocked_provider_action_required
_S = Situation

# Error class (refined by what the run has left) × situation → decision kind, park reason, health effect.
DECISIONS: dict[tuple[Row, Situation], Cell] = {
    **{(Row.infrastructure, s): _WORKER_RETRY for s in Situation},
    **{(Row.workers_exhausted, s): _WORKERS_GONE for s in Situation},
    (Row.agent_stalls, _S.elsewhere): Cell(
        DecisionKind.fallback, "the agent did not start {stalls} times on this route; next provider"
    ),
    # Nothing else to go to (or no consent to switch): what to check is the profile, so the run ends now with a
    # message naming it, instead of first spending every lost worker's retry it allows (each a whole launch timeout).
    (Row.agent_stalls, _S.alone): Cell(
        DecisionKind.fail, "the agent did not start {stalls} times on this route and nothing else is eligible"
    ),
    (Row.agent_stalls, _S.interactive): Cell(DecisionKind.fail, "the agent did not start {stalls} times on this route"),
    **{(Row.terminal, s): _FAIL_TERMINAL for s in Situation},
    **{(Row.unclassified, s): _FAIL_UNCLASSIFIED for s in Situation},
    # Fail closed, and lose nothing a person could still save: never switched automatically, the run waits for a
    # decision (`office runs decide`), and fails as above once nobody decided in time.
    **{
        (Row.unreadable, s): Cell(
            DecisionKind.park,
            "the failure could not be read; a person decides: retry, substitute a provider, or cancel",
            Delay.person,
            park=ParkReason.unreadable_failure,
        )
        for s in (_S.elsewhere, _S.alone)
    },
    (Row.unreadable, _S.interactive): _FAIL_UNCLASSIFIED,
    **{(Row.cap_reached, s): _FAIL_CAP for s in Situation},
    (Row.user_action, _S.elsewhere): Cell(
        DecisionKind.fallback,
        "provider needs user action; next provider in the workspace order",
        health=Health.user_action,
    ),
    (Row.user_action, _S.alone): Cell(
        DecisionKind.park,
        "no other provider eligible; needs user action on this provider",
        park=_BLOCKED,
        health=Health.user_action,
    ),
    (Row.user_action, _S.interactive): Cell(DecisionKind.fail, "provider needs user action", health=Health.user_action),
    (Row.model, _S.elsewhere): Cell(
        DecisionKind.fallback, "model unavailable on this provider; next provider", health=Health.model_gone
    ),
    (Row.model, _S.alone): Cell(
        DecisionKind.fail, "model unavailable and no other provider eligible", health=Health.model_gone
    ),
    (Row.model, _S.interactive): Cell(
        DecisionKind.fail, "model unavailable and no other provider eligible", health=Health.model_gone
    ),
    **{
        (row, _S.elsewhere): Cell(DecisionKind.fallback, "quota exhausted; next provider now", health=Health.cool)
        for row in (Row.quota_with_reset, Row.quota_no_reset)
    },
    **{
        (Row.quota_with_reset, s): Cell(
            DecisionKind.wait, "quota exhausted everywhere; waiting for the reset", Delay.reset, health=Health.cool
        )
        for s in (_S.alone, _S.interactive)
    },
    (Row.quota_no_reset, _S.alone): Cell(
        DecisionKind.park,
        "quota exhausted with no reset time; needs plan or billing action",
        park=_BLOCKED,
        health=Health.cool,
    ),
    (Row.quota_no_reset, _S.interactive): Cell(
        DecisionKind.fail, "quota exhausted with no reset time", health=Health.cool
    ),
    # never queue on an open or cooling provider: move on, or wait for it
    (Row.circuit_open, _S.elsewhere): Cell(
        DecisionKind.fallback, "provider breaker open or retry budget spent; next provider"
    ),
    (Row.circuit_open, _S.alone): Cell(
        DecisionKind.wait, "provider breaker open and nothing else eligible; durable wait", Delay.breaker
    ),
    (Row.circuit_open, _S.interactive): Cell(DecisionKind.fail, "provider breaker open"),
    **{(Row.transient, s): _SHORT_RETRY for s in Situation},
    # One run's bad luck is evidence, not a verdict: the shared breaker decides whether the provider is down.
    (Row.transient_persists, _S.elsewhere): Cell(
        DecisionKind.fallback, "transient error persists; falling back to the next provider", health=Health.evidence
    ),
    (Row.transient_persists, _S.alone): Cell(
        DecisionKind.wait,
        "transient error persists and nothing else is eligible; durable wait",
        Delay.ladder,
        health=Health.evidence,
    ),
    (Row.transient_persists, _S.interactive): Cell(
        DecisionKind.fail, "transient error persists", health=Health.evidence
    ),
}


def situation(context: RoutingContext, state: RunState) -> Situation:
    if context is not RoutingContext.office:
        return Situation.interactive
    return Situation.elsewhere if state.other_candidate_eligible else Situation.alone


_CLASS_ROWS: dict[ErrorClass, Row] = {
    ErrorClass.terminal: Row.terminal,
    ErrorClass.unclassified: Row.unclassified,
    ErrorClass.user_action: Row.user_action,
    ErrorClass.model: Row.model,
}


def row(failure: Classification, state: RunState, policy: ShortRetryRules) -> Row:
    """The failure's class, refined by what the run has left (attempts, worker losses, short retries)."""
    cls = failure.error_class
    if cls is ErrorClass.infrastructure:  # never the provider's: no health effect, no attempt cap
        if state.worker_losses > policy.max_worker_losses:
            return Row.workers_exhausted
        if failure.rule == LAUNCH_STALLED_RULE and state.launch_stalls > policy.max_launch_stalls:
            return Row.agent_stalls
        return Row.infrastructure
    if cls is ErrorClass.unclassified and state.unreadable_wait_s > 0:
        return Row.unreadable
    if cls in (ErrorClass.terminal, ErrorClass.unclassified):
        return _CLASS_ROWS[cls]
    if state.attempts >= state.max_attempts:
        return Row.cap_reached
    if cls in _CLASS_ROWS:
        return _CLASS_ROWS[cls]
    if cls is ErrorClass.quota:
        return Row.quota_no_reset if failure.retry_after_s is None else Row.quota_with_reset
    if failure.code is ErrorCode.circuit_open:
        return Row.circuit_open
    hint = failure.retry_after_s
    short_enough = hint is None or hint <= policy.short_retry_max_wait_s
    return (
        Row.transient
        if state.same_route_retries < policy.max_short_retries and short_enough
        else Row.transient_persists
    )


def _delay(how: Delay, failure: Classification, state: RunState, rand: float, policy: ShortRetryRules) -> float | None:
    hint = failure.retry_after_s
    if how is Delay.worker_backoff:
        return retry_delay(max(0, state.worker_losses - 1), rand, hint, policy.worker_base_s, policy.worker_cap_s)
    if how is Delay.person:
        return state.unreadable_wait_s
    if how is Delay.reset:
        return hint
    if how is Delay.breaker:
        return max(hint or 0.0, ladder_step(0) * rand, 1.0)
    if how is Delay.backoff:
        return retry_delay(state.same_route_retries, rand, hint, policy.base_s, policy.cap_s)
    if how is Delay.ladder:
        step = ladder_step(state.waits)
        return max(hint or 0.0, retry_delay(state.waits, rand, None, step, step))
    return None


def _health(effect: Health, failure: Classification) -> HealthEffect | None:
    if is_guess(failure) and effect is not Health.none:
        # A guess from the words (or words nobody can vouch for) decides this run's next step, never a verdict every
        # run obeys (a login needed, a model gone, a quota cooling the provider, a wait it named): it counts as one
        # transient failure's evidence, and the shared breaker decides from evidence whether the provider is down.
        return HealthEffect(state=HealthState.short_retry)
    if effect is Health.user_action:
        return HealthEffect(state=HealthState.user_action_required)
    if effect is Health.model_gone:
        return HealthEffect(state=HealthState.user_action_required, model_scoped=True)
    if effect is Health.cool:  # with no reset hint, keep the provider cool for a ladder step rather than hammer it
        return HealthEffect(state=HealthState.degraded, retry_after_s=failure.retry_after_s or ladder_step(2))
    if effect is Health.evidence:
        return HealthEffect(state=HealthState.short_retry, retry_after_s=failure.retry_after_s)
    return None


_DEFAULT_RULES = ShortRetryRules()


def decide(
    failure: Classification,
    context: RoutingContext,
    state: RunState,
    rand: float,
    policy: ShortRetryRules | None = None,
    stalls_end_alone: Callable[[], bool] = lambda: True,
    unreadable_parks: Callable[[], bool] = lambda: True,
) -> Decision:
    """`rand` in [0, 1) comes from the caller (workflow.random() in a workflow) so this stays pure.
    `stalls_end_alone` is asked only where an agent kept not starting with nothing else eligible, `unreadable_parks`
    only where an office run's failure could not be read (the workflow's patch gates): False decides as runs
    recorded before the gate did (a lost worker's retry; failing at once)."""
    decision = _decide(failure, context, state, rand, policy or _DEFAULT_RULES, stalls_end_alone, unreadable_parks)
    needs_route_change = failure.error_class in (ErrorClass.user_action, ErrorClass.model, ErrorClass.quota)
    cap_reached = state.attempts >= state.max_attempts
    if (
        state.pinned
        and context is RoutingContext.office
        and needs_route_change
        and not cap_reached
        and decision.kind in (DecisionKind.park, DecisionKind.fail)
    ):
        return decision.model_copy(
            update={
                "kind": DecisionKind.park,
                "park_reason": ParkReason.awaiting_user_decision,
                "reason": "the pinned route failed; a substitute needs the user's approval for this run",
            }
        )
    return decision


def _decide(
    failure: Classification,
    context: RoutingContext,
    state: RunState,
    rand: float,
    policy: ShortRetryRules,
    stalls_end_alone: Callable[[], bool],
    unreadable_parks: Callable[[], bool],
) -> Decision:
    refined, where = row(failure, state, policy), situation(context, state)
    cell = DECISIONS[(refined, where)]
    if refined is Row.agent_stalls and where is not Situation.elsewhere and not stalls_end_alone():
        cell = _WORKER_RETRY
    if refined is Row.unreadable and where is not Situation.interactive and not unreadable_parks():
        cell = _FAIL_UNCLASSIFIED
    return Decision(
        kind=cell.kind,
        code=failure.code,
        reason=cell.reason.format(
            losses=state.worker_losses, max_attempts=state.max_attempts, stalls=state.launch_stalls
        ),
        delay_s=_delay(cell.delay, failure, state, rand, policy),
        park_reason=cell.park,
        health=_health(cell.health, failure),
    )
