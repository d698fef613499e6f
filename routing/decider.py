"""The routing decider: one classified failure in, exactly one decision out. Pure and table-testable."""

from enum import StrEnum

from pydantic import BaseModel

from routing.backoff import ladder_step, retry_delay
from routing.classifier import Classification
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


class RunState(BaseModel):
    attempts: int  # failed attempts so far in this run, including this one
    max_attempts: int
    same_route_retries: int = 0  # short retries already spent on this route
    waits: int = 0  # durable waits already taken in this run
    other_candidate_eligible: bool = False  # within the pin, when the run is pinned
    pinned: bool = False  # the user pinned provider or model: never fall back outside the pin
    worker_losses: int = 0  # attempts of this run whose worker was lost, including this one


class Decision(BaseModel):
    kind: DecisionKind
    code: ErrorCode
    reason: str
    delay_s: float | None = None
    park_reason: ParkReason | None = None
    health: HealthEffect | None = None


_USER_ACTION = HealthEffect(state=HealthState.user_action_required)


def decide(
    failure: Classification,
    context: RoutingContext,
    state: RunState,
    rand: float,
    policy: ShortRetryRules = ShortRetryRules(),
) -> Decision:
    """`rand` in [0, 1) comes from the caller (workflow.random() in a workflow) so this stays pure."""
    decision = _decide(failure, context, state, rand, policy)
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
    failure: Classification, context: RoutingContext, state: RunState, rand: float, policy: ShortRetryRules
) -> Decision:
    code, cls = failure.code, failure.error_class
    can_fall_back = context is RoutingContext.office and state.other_candidate_eligible
    cap_reached = state.attempts >= state.max_attempts

    def make(kind: DecisionKind, reason: str, **kw: object) -> Decision:
        return Decision(kind=kind, code=code, reason=reason, **kw)  # type: ignore[arg-type]

    if cls is ErrorClass.infrastructure:  # never the provider's: no health effect, no fallback
        if state.worker_losses > policy.max_worker_losses:
            return make(DecisionKind.fail, f"worker lost {state.worker_losses} times in this run")
        delay = retry_delay(
            max(0, state.worker_losses - 1), rand, failure.retry_after_s, policy.worker_base_s, policy.worker_cap_s
        )
        return make(DecisionKind.short_retry, "worker lost; the same route on a live worker", delay_s=delay)
    if cls is ErrorClass.terminal:
        return make(DecisionKind.fail, "terminal error: not retried and never routed around")
    if cls is ErrorClass.unclassified:
        return make(DecisionKind.fail, "unclassified error: failing closed, no automatic provider switch")
    if cap_reached:
        return make(DecisionKind.fail, f"attempt cap reached ({state.max_attempts} attempts)")

    if cls is ErrorClass.user_action:
        if can_fall_back:
            return make(
                DecisionKind.fallback,
                "provider needs user action; next provider in the workspace order",
                health=_USER_ACTION,
            )
        if context is RoutingContext.office:
            return make(
                DecisionKind.park,
                "no other provider eligible; needs user action on this provider",
                park_reason=ParkReason.blocked_provider_action_required,
                health=_USER_ACTION,
            )
        return make(DecisionKind.fail, "provider needs user action", health=_USER_ACTION)

    if cls is ErrorClass.model:
        effect = HealthEffect(state=HealthState.user_action_required, model_scoped=True)
        if can_fall_back:
            return make(DecisionKind.fallback, "model unavailable on this provider; next provider", health=effect)
        return make(DecisionKind.fail, "model unavailable and no other provider eligible", health=effect)

    if cls is ErrorClass.quota:
        # With no reset hint, keep the provider cool for a ladder step rather than hammering it.
        effect = HealthEffect(state=HealthState.degraded, retry_after_s=failure.retry_after_s or ladder_step(2))
        if can_fall_back:
            return make(DecisionKind.fallback, "quota exhausted; next provider now", health=effect)
        if failure.retry_after_s is not None:
            return make(
                DecisionKind.wait,
                "quota exhausted everywhere; waiting for the reset",
                delay_s=failure.retry_after_s,
                health=effect,
            )
        if context is RoutingContext.office:
            return make(
                DecisionKind.park,
                "quota exhausted with no reset time; needs plan or billing action",
                park_reason=ParkReason.blocked_provider_action_required,
                health=effect,
            )
        return make(DecisionKind.fail, "quota exhausted with no reset time", health=effect)

    if code is ErrorCode.circuit_open:  # never queue on an open or cooling provider: move on, or wait for it
        if can_fall_back:
            return make(DecisionKind.fallback, "provider breaker open or retry budget spent; next provider")
        delay = max(failure.retry_after_s or 0.0, ladder_step(0) * rand)
        if context is RoutingContext.office:
            return make(
                DecisionKind.wait,
                "provider breaker open and nothing else eligible; durable wait",
                delay_s=max(delay, 1.0),
            )
        return make(DecisionKind.fail, "provider breaker open")

    # transient
    hint = failure.retry_after_s
    short_enough = hint is None or hint <= policy.short_retry_max_wait_s
    if state.same_route_retries < policy.max_short_retries and short_enough:
        delay = retry_delay(state.same_route_retries, rand, hint, policy.base_s, policy.cap_s)
        return make(
            DecisionKind.short_retry,
            "transient error; short retry on the same route",
            delay_s=delay,
            health=HealthEffect(state=HealthState.short_retry, retry_after_s=hint),
        )
    # One run's bad luck is evidence, not a verdict: the shared breaker decides whether the provider is down.
    evidence = HealthEffect(state=HealthState.short_retry, retry_after_s=hint)
    if can_fall_back:
        return make(
            DecisionKind.fallback, "transient error persists; falling back to the next provider", health=evidence
        )
    delay = max(hint or 0.0, retry_delay(state.waits, rand, None, ladder_step(state.waits), ladder_step(state.waits)))
    if context is RoutingContext.office:
        return make(
            DecisionKind.wait,
            "transient error persists and nothing else is eligible; durable wait",
            delay_s=delay,
            health=evidence,
        )
    return make(DecisionKind.fail, "transient error persists", health=evidence)
