"""OfficeRunWorkflow: resolve the route → for each turn an attempt on the next candidate → on failure the pure
decider (retry, fall back down the workspace order, wait or park, fail with an actionable message) and the pure
route cycle give the next step. The workflow only sequences activities and keeps state."""

import asyncio
import contextlib
from datetime import datetime, timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from contracts import search_attributes as sa
    from contracts import stubs
    from contracts.activities import AttemptRecord, RouteRequest, SessionOutput
    from contracts.failures import run_failed
    from contracts.gate import GRANTED_SIGNAL
    from routing.backlog import GateGrant
    from routing.classifier import Classification
    from routing.codes import ErrorCode
    from routing.cycle import RouteCycle, Step, StepKind
    from routing.decider import Decision, ParkReason, RoutingContext, decide
    from routing.messages import actionable_message, worker_lost_message
    from routing.route import Substitute
    from routing.run import AttemptOutcome, Candidate, RoutePlan, RunRequest, RunStatus, RunView
    from routing.selection import Pins, UserDecision
    from workflows.gate import RunGates
    from workflows.patches import capacity_uncounted
    from workflows.turns import AgentTurns

# Deprecated: runs recorded before it opened the transcript and started sessions in separate activities.
LEAN_SESSION = "lean-session-turn-v1"
STATE_RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_interval=timedelta(seconds=30))
LOCAL = timedelta(seconds=30)


@workflow.defn
class OfficeRunWorkflow:
    def __init__(self) -> None:
        self._view = RunView(run_id="", status=RunStatus.running, workspace="", agent="")
        self._resume = False
        self._decision: UserDecision | None = None
        self._published: dict[str, object] = {}
        self._turns = AgentTurns(view=lambda: self._view)
        self._gates = RunGates(view=lambda: self._view, publish=self._publish)  # ceilings (workflows/gate.py)

    # --- what users see -------------------------------------------------------------------------
    @workflow.query
    def status(self) -> RunView | None:
        return self._view if self._view.run_id else None

    @workflow.signal
    def resume(self) -> None:
        """The user fixed credentials, plan or capacity: a parked run re-resolves its route."""
        self._resume = True

    @workflow.signal(name=GRANTED_SIGNAL)
    def gate_granted(self, grant: GateGrant) -> None:
        """A ceiling's gate gave this queued run its slot."""
        self._gates.granted(grant)

    @workflow.update
    def user_decision(self, decision: UserDecision) -> RunView | None:
        """A parked pinned run: approve a one-time substitute, retry the pinned route, or cancel.
        The choice lives in this run only; nothing is written to preferences."""
        self._decision, self._resume = decision, True
        return self._view

    @user_decision.validator
    def _validate_decision(self, decision: UserDecision) -> None:
        if self._view.park_reason != ParkReason.awaiting_user_decision:
            raise ValueError("this run is not awaiting a decision")
        if decision.action == "substitute" and not decision.provider:
            raise ValueError("a substitute needs a provider")

    def _publish(self) -> None:
        if updates := sa.changed(self._view, self._published):
            workflow.upsert_search_attributes(updates)

    # --- the process ----------------------------------------------------------------------------
    @workflow.run
    async def run(self, req: RunRequest) -> RunView:
        self._view = RunView(run_id=req.run_id, status=RunStatus.running, workspace=req.workspace, agent=req.agent)
        workflow.deprecate_patch(LEAN_SESSION)
        started_with = workflow.info().typed_search_attributes  # indexed at start: not upserted again
        self._published = {k.name: v for k in sa.ALL if (v := started_with.get(k)) is not None}
        self._publish()
        cancelled = False
        try:
            return await self._run(req)
        except asyncio.CancelledError:
            cancelled = True  # the cancelled turn reaps its own agent: no new commands now
            self._view.status, self._view.message = RunStatus.cancelled, "cancelled by the user"
            self._publish()
            raise
        finally:
            if not cancelled:
                await self._turns.close()  # a finished or failed run's live agent session ends with it
            await self._gates.leave()  # its slots (or its places in a backlog) go to the next runs

    async def _run(self, req: RunRequest) -> RunView:
        view, run_id = self._view, workflow.info().workflow_id
        if req.run_id != run_id:  # the store keys the run's transcript and attempts by this id
            raise self._failed(
                ErrorCode.invalid_input, f"run_id {req.run_id!r} differs from the workflow id {run_id!r}"
            )
        plan = await self._resolve(req)
        if await self._gates.enter(req, plan):  # over a ceiling it waited, queued: the route as it is now
            plan = await self._resolve(req)
        cycle = RouteCycle(plan=plan)
        view.requested_model = req.pin_model or cycle.plan.agent.model
        self._publish()
        for turn, text in enumerate([req.prompt, *req.follow_ups]):
            cycle.begin_turn()
            while True:
                cand, failure = cycle.next_candidate(), None
                if cand is None:
                    step = cycle.nothing_eligible(workflow.now())
                else:
                    seq, started_at = cycle.begin_attempt(), workflow.now()
                    view.provider = cand.provider
                    self._publish()
                    await self._gates.on_provider(req, cand)  # a provider's seats, when it has a ceiling
                    outcome = await self._turns.attempt(req, cycle, cand, seq, turn, text)
                    if isinstance(outcome, SessionOutput):  # the turn's activity recorded its own success
                        view.effective_model = outcome.reported_model or view.effective_model
                        usage, cost = outcome.usage, outcome.cost_usd
                        view.attempts.append(
                            cycle.attempt_view(seq, cand, view.effective_model, None, None, usage, cost)
                        )
                        view.note_usage(usage, cost)
                        view.attempts[-1].sandbox = "none" if self._turns.unsandboxed else None
                        view.output, view.error_code = outcome.text, None
                        break
                    failure, state = outcome, cycle.state_for_failure(cand, outcome, capacity_uncounted)
                    decision = decide(failure, RoutingContext.office, state, workflow.random().random())
                    view.error_code = failure.code.value
                    await self._record_failure(req, seq, cand, cycle, failure, decision, started_at)
                    self._publish()
                    step = cycle.after(decision, cand)
                match step.kind:
                    case StepKind.retry_same_route:
                        await workflow.sleep(timedelta(seconds=step.delay_s or 0))
                    case StepKind.next_candidate:
                        view.fallback_count += 1
                    case StepKind.fail:
                        raise self._failed(step.code or ErrorCode.unknown, self._message(step, failure, cand))
                    case StepKind.park:
                        if await self._park_then_cancelled(req, step, cycle):
                            return view
        view.status = RunStatus.completed
        self._publish()
        return view

    async def _resolve(self, req: RunRequest, retry_blocked: bool = False, sub: Substitute | None = None) -> RoutePlan:
        pins = Pins(providers=req.pin_providers, model=req.pin_model)
        try:  # store outages are retried until the store is back; only bad settings come out of it
            plan = await workflow.execute_local_activity(
                stubs.resolve_route,
                RouteRequest(run_id=req.run_id, workspace=req.workspace, agent=req.agent, tier=req.tier,
                             retry_blocked=retry_blocked, substitute=sub, pins=pins),
                start_to_close_timeout=LOCAL, retry_policy=STATE_RETRY,
            )  # fmt: skip
        except (ActivityError, ApplicationError) as err:  # a local activity's failure may arrive unwrapped
            cause = err.cause if isinstance(err, ActivityError) else err
            raise self._failed(ErrorCode.invalid_configuration, getattr(cause, "message", str(cause))) from err
        return plan

    async def _record_failure(
        self, req: RunRequest, seq: int, cand: Candidate, cycle: RouteCycle, failure: Classification,
        decision: Decision, started_at: datetime,
    ) -> None:  # fmt: skip
        usage, cost = self._turns.spent  # what the failed call used, when its executor knew
        model = self._view.effective_model
        self._view.attempts.append(cycle.attempt_view(seq, cand, model, failure, decision, usage, cost))
        self._view.attempts[-1].sandbox = "none" if self._turns.unsandboxed else None
        self._view.note_usage(usage, cost)
        await workflow.execute_local_activity(
            stubs.record_attempt,
            AttemptRecord(run_id=req.run_id, seq=seq, candidate=cand, effective_model=model,
                          outcome=AttemptOutcome.failed, failure=failure, decision=decision, started_at=started_at,
                          finished_at=workflow.now(), workspace=req.workspace, agent=req.agent, usage=usage,
                          cost_usd=cost),
            start_to_close_timeout=LOCAL, retry_policy=STATE_RETRY,
        )  # fmt: skip

    async def _park_then_cancelled(self, req: RunRequest, step: Step, cycle: RouteCycle) -> bool:
        """Parked runs never spin: they wait on a durable timer (capacity), the `resume` signal or the
        `user_decision` update; then the route is resolved again. True when the user cancelled instead."""
        view = self._view
        reason = step.park_reason or ParkReason.waiting_for_provider_capacity
        view.status, view.park_reason, view.message, self._resume = RunStatus.parked, reason, step.why, False
        self._publish()
        timeout = timedelta(seconds=step.delay_s) if step.delay_s else None
        with contextlib.suppress(asyncio.TimeoutError):
            await workflow.wait_condition(lambda: self._resume, timeout=timeout, timeout_summary=f"parked: {reason}")
        view.status, view.park_reason, view.message = RunStatus.running, None, None
        self._publish()
        choice, self._decision = self._decision, None
        if choice is not None and choice.action == "cancel":
            view.status, view.message = RunStatus.cancelled, f"cancelled by {choice.actor} while parked"
            self._publish()
            return True
        sub = None
        if choice is not None and choice.action == "substitute" and choice.provider:
            sub = Substitute(provider=choice.provider, model=choice.model)
        cycle.replan(await self._resolve(req, retry_blocked=self._resume, sub=sub))
        return False

    def _message(self, step: Step, failure: Classification | None, cand: Candidate | None) -> str:
        view, code = self._view, step.code or ErrorCode.unknown
        if code is ErrorCode.invalid_configuration and failure:  # names the workspace setting to change
            return failure.excerpt
        if code is ErrorCode.worker_lost:  # names the workers, never the provider
            return worker_lost_message([a.excerpt or "" for a in view.attempts if a.error_code == code.value])
        provider = cand.provider if cand else step.provider or view.provider
        model = cand.requested_model if cand else view.requested_model
        return actionable_message(code, provider, model, view.agent, failure.excerpt if failure else "")

    def _failed(self, code: ErrorCode, message: str) -> ApplicationError:
        """Every way a run fails ends here: status, code and message in the view and the search attributes."""
        view = self._view
        view.status, view.error_code, view.message = RunStatus.failed, code.value, message
        self._publish()
        return run_failed(code, message, view.model_dump(mode="json"))
