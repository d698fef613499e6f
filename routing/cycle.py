"""The route cycle of one run: which candidate is next, what the decider is told, and where a decision leads.

Pure and deterministic (the workflow passes in `now`), so every step of the office run's loop is table-testable:
the workflow only executes the `Step` this returns.
"""

from collections.abc import Callable
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, Field

from routing.capacity import is_capacity_wait
from routing.classifier import Classification
from routing.codes import ErrorClass, ErrorCode
from routing.decider import LAUNCH_STALLED_RULE, Decision, DecisionKind, ParkReason, RunState
from routing.run import AttemptOutcome, AttemptView, Candidate, RoutePlan
from routing.selection import SelectionSource
from routing.usage import Usage


class StepKind(StrEnum):
    retry_same_route = "retry_same_route"  # sleep the delay, then the same candidate again
    next_candidate = "next_candidate"  # the failed route is excluded for this plan
    park = "park"  # wait for the user or the capacity timer, then re-resolve the route
    fail = "fail"  # end the run with an actionable message


class Step(BaseModel):
    kind: StepKind
    delay_s: float | None = None
    park_reason: ParkReason | None = None
    why: str = ""
    code: ErrorCode | None = None  # fail, or a park that may end in one: the code of the message
    provider: str | None = None  # fail without a candidate: the provider the message names


class RouteCycle(BaseModel):
    """A run's position in its route plan. `failed` counts failed attempts (the decider's attempt cap): only
    real failures (a rate or quota limit or the pacer's backlog makes the run wait or move on, never fail; a
    lost worker is counted apart, in `worker_losses`); `seq` numbers every attempt, answered or not."""

    plan: RoutePlan
    excluded: list[str] = Field(default_factory=list)
    seq: int = 0
    failed: int = 0
    waits: int = 0
    route_retries: int = 0
    worker_losses: int = 0
    launch_stalls: int = 0  # on the current route: attempts whose agent never answered `initialize`
    last_was_capacity: bool = False  # the last failure only said "not now": its retry is paced, not budgeted
    last_was_worker_loss: bool = False  # the provider did nothing wrong: its re-send is not a provider retry

    def next_candidate(self) -> Candidate | None:
        return next((c for c in self.plan.candidates if c.provider not in self.excluded), None)

    def begin_attempt(self) -> int:
        self.seq += 1
        return self.seq

    def begin_turn(self) -> None:
        self.route_retries = self.launch_stalls = 0

    def spends_retry_budget(self) -> bool:
        """A retry on the same route spends the provider key's shared retry budget, unless it follows a capacity
        signal: the pacer already spaces those calls, and budgeting them too would starve a rate-limited route;
        or a lost worker: the call is sent again because the office lost it, not because the provider failed."""
        return self.route_retries > 0 and not (self.last_was_capacity or self.last_was_worker_loss)

    def source_of(self, cand: Candidate) -> SelectionSource:
        """A default route reached only because an earlier one failed is an automatic fallback for this run."""
        return SelectionSource.auto if self.excluded and cand.source == SelectionSource.default else cand.source

    def attempt_view(
        self,
        seq: int,
        cand: Candidate,
        model: str | None,
        failure: Classification | None = None,
        decision: Decision | None = None,
        usage: Usage | None = None,
        cost_usd: float | None = None,
    ) -> AttemptView:
        """What the run shows of one attempt (call before `after`, which may exclude the route)."""
        return AttemptView(
            seq=seq,
            provider=cand.provider,
            execution_profile=cand.execution_profile,
            model=model,
            requested_model=cand.requested_model,
            source=self.source_of(cand),
            outcome=AttemptOutcome.failed if failure else AttemptOutcome.succeeded,
            error_code=failure.code.value if failure else None,
            decision=decision.kind.value if decision else None,
            reason=decision.reason if decision else None,
            rule=failure.rule if failure else None,
            catalogue=failure.catalogue if failure else None,
            excerpt=failure.excerpt if failure else None,
            retry_after_s=failure.retry_after_s if failure else None,
            usage=usage,
            cost_usd=cost_usd,
        )

    def state_for_failure(
        self,
        cand: Candidate,
        failure: Classification | None = None,
        uncounted: Callable[[], bool] = lambda: True,
        stalls_counted: Callable[[], bool] = lambda: True,
    ) -> RunState:
        """What the decider knows about the run when `cand` has just failed (counted here, unless it was only
        a capacity signal). `uncounted` is asked only for a capacity signal, `stalls_counted` only for a launch
        stall: the workflow's patch gates."""
        capacity = failure is not None and is_capacity_wait(failure.code.value, failure.rule)
        self.last_was_capacity = capacity and uncounted()
        self.last_was_worker_loss = failure is not None and failure.error_class is ErrorClass.infrastructure
        self.worker_losses += self.last_was_worker_loss
        self.launch_stalls += failure is not None and failure.rule == LAUNCH_STALLED_RULE and stalls_counted()
        self.failed += 0 if self.last_was_capacity or self.last_was_worker_loss else 1
        others = any(c.provider not in self.excluded and c.provider != cand.provider for c in self.plan.candidates)
        return RunState(
            attempts=self.failed,
            max_attempts=self.plan.max_attempts,
            same_route_retries=self.route_retries,
            waits=self.waits,
            other_candidate_eligible=others,
            pinned=self.plan.pinned,
            worker_losses=self.worker_losses,
            launch_stalls=self.launch_stalls,
            unreadable_wait_s=self.plan.unreadable_failure_wait_s,
        )

    def after(self, decision: Decision, cand: Candidate) -> Step:
        """Where the decider's answer for a failed attempt on `cand` leads."""
        match decision.kind:
            case DecisionKind.short_retry:
                self.route_retries += not self.last_was_worker_loss  # a lost worker is not the route's retry
                return Step(kind=StepKind.retry_same_route, delay_s=decision.delay_s or 0)
            case DecisionKind.fallback:
                self.excluded.append(cand.provider)
                self.route_retries = self.launch_stalls = 0
                return Step(kind=StepKind.next_candidate)
            case DecisionKind.fail:
                return Step(kind=StepKind.fail, code=decision.code)
            case DecisionKind.wait | DecisionKind.park:
                self.waits += decision.kind is DecisionKind.wait
                return Step(
                    kind=StepKind.park,
                    park_reason=decision.park_reason or ParkReason.waiting_for_provider_capacity,
                    delay_s=decision.delay_s,
                    why=f"{cand.provider}: {decision.reason}",
                    code=decision.code,
                )

    def nothing_eligible(self, now: datetime) -> Step:
        """No candidate left: fail if only the model is gone everywhere, else park until something can change
        (a capacity reset, or the user: only the user may widen a pin or fix credentials)."""
        ineligible = self.plan.ineligible
        if ineligible and all(i.code == ErrorCode.model_unavailable for i in ineligible):
            return Step(kind=StepKind.fail, code=ErrorCode.model_unavailable, provider=ineligible[-1].provider)
        why = "; ".join(f"{i.provider}: {i.reason}" for i in ineligible) or "no provider is eligible"
        retry_times = [i.retry_at for i in ineligible if i.retry_at is not None]
        if retry_times:
            delay = max(1.0, (min(retry_times) - now).total_seconds())
            return Step(
                kind=StepKind.park, park_reason=ParkReason.waiting_for_provider_capacity, delay_s=delay, why=why
            )
        reason = ParkReason.awaiting_user_decision if self.plan.pinned else ParkReason.blocked_provider_action_required
        return Step(kind=StepKind.park, park_reason=reason, why=why)

    def replan(self, plan: RoutePlan) -> None:
        """After a park: the re-resolved plan starts with every route eligible again."""
        self.plan, self.excluded, self.route_retries, self.launch_stalls = plan, [], 0, 0
