"""OfficeRunWorkflow: resolve the route → for each turn an attempt on the next candidate → on failure the pure
decider (retry, fall back down the workspace order, wait or park, fail with an actionable message) and the pure
route cycle give the next step. The workflow only sequences activities and keeps state."""

import asyncio
import contextlib
from datetime import datetime, timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.workflow import ContinueAsNewError

with workflow.unsafe.imports_passed_through():
    from contracts import search_attributes as sa
    from contracts import stubs
    from contracts.activities import AttemptRecord, RouteRequest, SessionOutput
    from contracts.carried import CarriedState
    from contracts.failures import run_failed
    from contracts.gate import GRANTED_SIGNAL
    from routing.backlog import GateGrant, ScopeKind, gate_id
    from routing.budget import RunLimits
    from routing.classifier import Classification
    from routing.codes import ErrorCode
    from routing.conversation import Conversation, Say, SayAccepted, say_problem
    from routing.cycle import RouteCycle, Step, StepKind
    from routing.decider import AWAITING_A_PERSON, LAUNCH_STALLED_RULE, Decision, ParkReason, RoutingContext, decide
    from routing.messages import actionable_message, launch_stalled_message, worker_lost_message
    from routing.notify import NotifyEvent
    from routing.questions import QuestionRecord
    from routing.route import Substitute
    from routing.run import AttemptOutcome, Candidate, RoutePlan, RunRequest, RunStatus, RunView
    from routing.selection import Pins, UserDecision
    from workflows import continuation
    from workflows.budget import RunBudget
    from workflows.gate import RunGates
    from workflows.notify import Notifier
    from workflows.patches import (
        capacity_uncounted,
        launch_stalls_counted,
        launch_stalls_end_alone,
        unreadable_failure_parks,
    )
    from workflows.progress import CurrentDetails, short_retry
    from workflows.questions import PermissionQuestions
    from workflows.relink import carry_over
    from workflows.scheduled import named, run_id_problem
    from workflows.turns import AgentTurns

# Deprecated: runs recorded before it opened the transcript and started sessions in separate activities.
LEAN_SESSION = "lean-session-turn-v1"
STATE_RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_interval=timedelta(seconds=30))
LOCAL = timedelta(seconds=30)
ENDED = (RunStatus.completed, RunStatus.failed, RunStatus.cancelled)


def waited(step: Step) -> str:
    """How long a park for a person lasted, as a person says it."""
    seconds = round(step.delay_s or 0)
    for unit, size in (("h", 3600), ("min", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds // size} {unit}"
    return f"{seconds} s"


@workflow.defn
class OfficeRunWorkflow:
    def __init__(self) -> None:
        self._view = RunView(run_id="", status=RunStatus.running, workspace="", agent="")
        self._resume = False
        self._decision: UserDecision | None = None
        self._providers: list[str] = []  # the workspace's providers, as the last route resolved named them
        self._published: dict[str, object] = {}
        self._details = CurrentDetails()  # what the Temporal UI shows as the run's current step
        self._turns = AgentTurns(view=lambda: self._view, details=self._details)
        self._notify = Notifier(view=lambda: self._view)  # the workspace's webhooks (workflows/notify.py)
        self._budget = RunBudget(view=lambda: self._view, publish=self._publish, on_park=self._budget_parked)
        self._questions = PermissionQuestions(
            lambda: self._view, lambda: self._turns.asking, self._publish, on_waiting=self._question_waiting
        )
        self._gates = RunGates(view=lambda: self._view, publish=self._publish)  # ceilings (workflows/gate.py)
        self._talk = Conversation()  # the turns begun and those waiting (the prompt, follow-ups, `say`)
        self._open = True  # the run takes more turns; False from the moment it ends

    # --- what users see -------------------------------------------------------------------------
    @workflow.query
    def status(self) -> RunView | None:
        return self._view if self._view.run_id else None

    @workflow.signal
    def resume(self) -> None:
        """The user fixed credentials, plan or capacity: a parked run re-resolves its route (or checks its
        budgets again)."""
        self._resume = True
        self._budget.wake()

    @workflow.signal
    def set_budget(self, limits: RunLimits) -> None:
        """`office runs resume --max-cost-usd/--max-tokens`: the run's own limits, raised (or lowered)."""
        self._budget.raise_to(limits)

    @workflow.signal(name=GRANTED_SIGNAL)
    def gate_granted(self, grant: GateGrant) -> None:
        """A ceiling's gate gave this queued run its slot."""
        self._gates.granted(grant)

    @workflow.update
    def user_decision(self, decision: UserDecision) -> RunView | None:
        """A run waiting for a person (a pinned route failed, or nobody could read its failure): approve a one-time
        substitute, retry the route, or cancel. The choice lives in this run only; nothing is written to
        preferences."""
        self._decision, self._resume = decision, True
        return self._view

    @user_decision.validator
    def _validate_decision(self, decision: UserDecision) -> None:
        if self._view.park_reason not in AWAITING_A_PERSON:
            raise ValueError("this run is not awaiting a decision")
        if decision.action == "substitute" and not decision.provider:
            raise ValueError("a substitute needs a provider")
        if decision.action == "substitute" and self._providers and decision.provider not in self._providers:
            raise ValueError(  # refused here: accepted, it would end the run as a configuration error
                f"provider {decision.provider!r} is not in workspace {self._view.workspace!r}: one of "
                f"{', '.join(self._providers)}"
            )

    @workflow.update
    def say(self, said: Say) -> SayAccepted:
        """A further turn, run after those waiting; answered on return of the update is only its acceptance."""
        turn = self._talk.queue(said.text)
        return SayAccepted(turn=turn, ahead=len(self._talk.pending) - 1)

    @say.validator
    def _validate_say(self, said: Say) -> None:
        if not self._open or self._view.status in ENDED:
            raise ValueError(f"run {workflow.info().workflow_id} has ended ({self._view.status.value}): it takes no "
                             f"more turns")  # fmt: skip
        if problem := say_problem(said.text, self._talk.pending):
            raise ValueError(problem)

    async def _question_waiting(self, question: QuestionRecord) -> None:
        """The agent's request waits for `office runs answer`: the UI says so and the webhooks hear of it."""
        what = " ".join([question.kind, *question.paths, question.command or ""]).strip()
        self._details.step(f"waiting for a person: permission to {what} (`office runs answer {self._view.run_id}`)")
        await self._notify(NotifyEvent.awaiting_permission)

    async def _budget_parked(self) -> None:
        """A run that may not spend holds no live agent session while it waits, and says so to its webhooks."""
        await self._turns.close()
        self._details.step(f"parked ({ParkReason.budget_exhausted.value}): {self._view.message}")
        await self._notify(NotifyEvent.budget)

    def _publish(self) -> None:
        if updates := sa.changed(self._view, self._published):
            workflow.upsert_search_attributes(updates)

    # --- the process ----------------------------------------------------------------------------
    @workflow.run
    async def run(self, req: RunRequest) -> RunView:
        req = named(req)  # a scheduled run's id is its workflow id
        self._budget.start(req)
        self._view = RunView(run_id=req.run_id, status=RunStatus.running, workspace=req.workspace, agent=req.agent,
                             continues=req.continues)  # fmt: skip
        carried = self._carried(req)
        if carried is not None:  # this run continued as new: it goes on where it was
            self._view = carried.view
            self._turns.restore(carried.turns)
            self._gates.restore(carried.gates)  # the slots it holds stay its own across the boundary
            self._notify.events, self._notify.sent = carried.notify_events, carried.notify_sent
            self._questions.restore(carried.grants)
        workflow.deprecate_patch(LEAN_SESSION)
        started_with = workflow.info().typed_search_attributes  # indexed at start: not upserted again
        self._published = {k.name: v for k in sa.ALL if (v := started_with.get(k)) is not None}
        self._publish()
        self._questions.install()  # `office runs answer`: permission questions a person answers
        cancelled = continuing = False
        try:
            return await self._run(req, carried)
        except ContinueAsNewError:
            continuing = True  # the live agent session goes on in the continued run
            raise
        except asyncio.CancelledError:
            cancelled = True  # the cancelled turn reaps its own agent: no new commands now
            self._view.status, self._view.message = RunStatus.cancelled, "cancelled by the user"
            self._view.park_reason = None
            self._publish()
            raise
        finally:
            self._open = False
            if not cancelled and not continuing:
                await self._turns.close()  # a finished or failed run's live agent session ends with it
                if self._view.status in (RunStatus.completed, RunStatus.failed):
                    await self._notify(NotifyEvent(self._view.status.value))
            if not continuing:
                await self._gates.leave()  # its slots (or its places in a backlog) go to the next runs

    def _carried(self, req: RunRequest) -> CarriedState | None:
        """The state this run continued with: only a run Temporal continued as new has one (a client's start
        that sets `carried` is refused, never trusted), and it must be a whole CarriedState."""
        if req.carried is None:
            return None
        if workflow.info().continued_run_id is None:
            raise self._failed(ErrorCode.invalid_input, "carried: set only by a run continuing as new; leave it out")
        try:
            return CarriedState.model_validate(req.carried)
        except ValueError as err:
            raise self._failed(ErrorCode.invalid_input, f"carried: not the state of a continued run ({err})") from None

    async def _run(self, req: RunRequest, carried: CarriedState | None) -> RunView:
        view, run_id = self._view, workflow.info().workflow_id
        if req.run_id != run_id:  # the store keys the run's transcript and attempts by this id
            raise self._failed(
                ErrorCode.invalid_input, f"run_id {req.run_id!r} differs from the workflow id {run_id!r}"
            )
        if problem := run_id_problem(run_id):  # an id Temporal gave a scheduled run
            raise self._failed(ErrorCode.invalid_input, problem)
        said_early = self._talk.pending  # `say` updates delivered before the run began
        if req.asked_gate is not None and carried is None:  # its grant may have woken it: before any await
            if req.asked_gate != gate_id(ScopeKind.workspace, req.workspace):
                raise self._failed(ErrorCode.invalid_input, "asked_gate: only its own workspace's gate; leave it out")
            self._gates.asked_at_submission(req.asked_gate)
        if carried is None:
            plan = await self._resolve(req)
            if await self._gates.enter(req, plan):  # over a ceiling it waited, queued: the route as it is now
                plan = await self._resolve(req)
            cycle = RouteCycle(plan=plan)
            view.requested_model = req.pin_model or cycle.plan.agent.model
            self._publish()
            begun = await carry_over(req, self._turns, self._failed)  # a retry or continuation of an ended run
            texts = [req.prompt, *req.follow_ups]  # the turns it carries were answered by the run it continues
            self._talk = Conversation(begun=begun, pending=[*texts[begun:], *said_early])
        else:
            cycle = carried.cycle
            self._talk = carried.conversation.model_copy(
                update={"pending": [*carried.conversation.pending, *said_early]}
            )
        self._publish()
        ran = 0  # turns run in this history: a continued run runs at least one before it continues again
        while await self._turn_waiting(cycle.plan.idle_timeout_s):
            bound = cycle.plan.history_bound
            if ran and continuation.due(bound, lambda: len(self._continued(req, cycle).model_dump_json())):
                await self._continue_as_new(req, cycle)
            turn, text = self._talk.next_turn() or (0, "")
            ran += 1
            if await self._turn_then_cancelled(req, cycle, turn, text):
                return view
        view.status = RunStatus.completed
        self._publish()
        self._details.step("")  # over: the details keep only the branch
        return view

    async def _turn_waiting(self, idle_timeout_s: float) -> bool:
        """True when a turn waits to run; with none, an answered run stays open (idle) for `say` as long as the
        workspace's idle_timeout says. False (the run completes) once nothing came: from then on `say` is refused."""
        if not self._talk.pending and idle_timeout_s > 0:
            self._view.status = RunStatus.idle
            self._publish()
            with contextlib.suppress(asyncio.TimeoutError):
                await workflow.wait_condition(
                    lambda: bool(self._talk.pending),
                    timeout=timedelta(seconds=idle_timeout_s),
                    timeout_summary="idle: open for `office runs say`",
                )
            if self._talk.pending:
                self._view.status = RunStatus.running
                self._publish()
        self._open = bool(self._talk.pending)
        return self._open

    def _continued(self, req: RunRequest, cycle: RouteCycle) -> RunRequest:
        """The input of this run's continuation: the request, its state carried (the follow-ups not yet run are
        the conversation's pending turns now: carried once, there)."""
        view = self._view.carried()
        view.continued += 1
        carried = CarriedState(
            view=view, conversation=self._talk, cycle=cycle, turns=self._turns.state(), grants=self._questions.grants,
            notify_events=self._notify.events, notify_sent=self._notify.sent, gates=self._gates.state(),
        )  # fmt: skip
        limits = self._budget.limits  # as `office runs resume --max-cost-usd` may have raised them
        return req.model_copy(
            update={
                "follow_ups": [],
                "carried": carried.model_dump(mode="json"),
                "continues": None,  # carried over once, by the first history: the view keeps the link
                "max_cost_usd": limits.max_cost_usd,
                "max_tokens": limits.max_tokens,
            }
        )

    async def _continue_as_new(self, req: RunRequest, cycle: RouteCycle) -> None:
        """The same run (its id, view, conversation, route and live session) in a new history."""
        await workflow.wait_condition(workflow.all_handlers_finished)
        workflow.continue_as_new(self._continued(req, cycle))

    async def _turn_then_cancelled(self, req: RunRequest, cycle: RouteCycle, turn: int, text: str) -> bool:
        """One turn: attempts down the route until one answers; True when the user cancelled it while parked."""
        view = self._view
        cycle.begin_turn()
        while True:
            cand, failure = cycle.next_candidate(), None
            if cand is None:
                step = cycle.nothing_eligible(workflow.now())
            else:
                await self._budget.hold(req, cycle.plan, cand)  # parks while the run may not spend
                seq, started_at = cycle.begin_attempt(), workflow.now()
                view.provider = cand.provider
                self._publish()
                await self._gates.on_provider(req, cand)  # a provider's seats, when it has a ceiling
                outcome = await self._turns.attempt(req, cycle, cand, seq, turn, text)
                if isinstance(outcome, SessionOutput):  # the turn's activity recorded its own success
                    view.effective_model = outcome.reported_model or view.effective_model
                    usage, cost = outcome.usage, outcome.cost_usd
                    view.attempts.append(cycle.attempt_view(seq, cand, view.effective_model, None, None, usage, cost))
                    view.note_usage(usage, cost)
                    view.attempts[-1].sandbox = "none" if self._turns.unsandboxed else None
                    view.note_answer(turn, outcome.text, outcome.chars)
                    view.error_code = None
                    return False
                failure = outcome
                state = cycle.state_for_failure(cand, outcome, capacity_uncounted, launch_stalls_counted)
                decision = decide(
                    failure, RoutingContext.office, state, workflow.random().random(),
                    stalls_end_alone=launch_stalls_end_alone, unreadable_parks=unreadable_failure_parks,
                )  # fmt: skip
                view.error_code = failure.code.value
                await self._record_failure(req, seq, cand, cycle, failure, decision, started_at)
                self._publish()
                step = cycle.after(decision, cand)
            match step.kind:
                case StepKind.retry_same_route:
                    await short_retry(view, self._details, step.delay_s or 0)
                case StepKind.next_candidate:
                    view.fallback_count += 1
                case StepKind.fail:
                    raise self._failed(step.code or ErrorCode.unknown, self._message(step, failure, cand))
                case StepKind.park:
                    unanswered = self._message(step, failure, cand) if failure else ""
                    if await self._park_then_cancelled(req, step, cycle, unanswered):
                        return True

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
        self._notify.events, self._providers = plan.notify, plan.providers
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

    async def _park_then_cancelled(self, req: RunRequest, step: Step, cycle: RouteCycle, unanswered: str) -> bool:
        """Parked runs never spin: they wait on a durable timer (capacity), the `resume` signal or the
        `user_decision` update; then the route is resolved again. True when the user cancelled instead. A run
        waiting for a person's decision on an unreadable failure fails with `unanswered` once nobody decided in time."""
        view = self._view
        reason = step.park_reason or ParkReason.waiting_for_provider_capacity
        why = step.why
        if reason is ParkReason.unreadable_failure:  # what the person reads, on the view and in the webhook
            ends = workflow.now() + timedelta(seconds=step.delay_s or 0)
            why += f"; it fails at {ends:%Y-%m-%d %H:%M} UTC unless someone decides (`office runs decide {req.run_id}`)"
        view.status, view.park_reason, view.message, self._resume = RunStatus.parked, reason, why, False
        self._publish()
        waiting = "waiting for a person" if reason in AWAITING_A_PERSON else "parked"
        self._details.step(f"{waiting} ({reason.value}): {why}")
        await self._notify(NotifyEvent.parked)
        timeout = timedelta(seconds=step.delay_s) if step.delay_s else None
        with contextlib.suppress(asyncio.TimeoutError):
            await workflow.wait_condition(lambda: self._resume, timeout=timeout, timeout_summary=f"parked: {reason}")
        if reason is ParkReason.unreadable_failure and not self._resume:  # fail closed, as it would have at once
            raise self._failed(step.code or ErrorCode.unknown, f"{unanswered} (nobody decided within {waited(step)})")
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
        # `resume` says what needed action was fixed; a retry of a failure nobody could read fixed nothing
        unblocked = self._resume and not (reason is ParkReason.unreadable_failure and choice is not None)
        cycle.replan(await self._resolve(req, retry_blocked=unblocked, sub=sub))
        return False

    def _message(self, step: Step, failure: Classification | None, cand: Candidate | None) -> str:
        view, code = self._view, step.code or ErrorCode.unknown
        if code is ErrorCode.invalid_configuration and failure:  # names the workspace setting to change
            return failure.excerpt
        if code is ErrorCode.worker_lost and failure and cand and failure.rule == LAUNCH_STALLED_RULE:
            return launch_stalled_message(cand.provider, cand.execution_profile, failure.excerpt)
        if code is ErrorCode.worker_lost:  # names the workers, never the provider
            return worker_lost_message([a.excerpt or "" for a in view.attempts if a.error_code == code.value])
        provider = cand.provider if cand else step.provider or view.provider
        model = cand.requested_model if cand else view.requested_model
        return actionable_message(code, provider, model, view.agent, failure.excerpt if failure else "")

    def _failed(self, code: ErrorCode, message: str) -> ApplicationError:
        """Every way a run fails ends here: status, code and message in the view and the search attributes."""
        view = self._view
        view.status, view.error_code, view.message, view.park_reason = RunStatus.failed, code.value, message, None
        self._publish()
        self._details.step(f"failed ({code.value})")
        return run_failed(code, message, view.model_dump(mode="json"))
