"""OfficeRunWorkflow: the business process of one office run.

resolve route → for each turn: a session turn on the current candidate → on failure classify and ask the
decider: short retry, durable wait, fall back down the workspace order, park for the user, or fail with an
actionable message. The workflow sequences activities and keeps the run's state; it decides nothing itself.
"""

import asyncio
import builtins
import contextlib
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError, CancelledError, TimeoutError

with workflow.unsafe.imports_passed_through():
    from activities.acp_session import AcpActivities
    from activities.routing_state import RouteStateActivities
    from activities.session import SessionActivities
    from contracts import search_attributes as sa
    from contracts.activities import (
        AcpCloseInput,
        AcpStarted,
        AcpStartInput,
        AcpTurnInput,
        AttemptRecord,
        OpenTranscript,
        RouteRequest,
        RunSessionInput,
        SessionOutput,
        SessionStarted,
        SessionTurnInput,
        SessionTurnOutput,
        StartSessionInput,
        provider_queue,
    )
    from routing.classifier import Classification, FailureSignal, classify
    from routing.codes import ErrorCode, Phase
    from routing.config import ExecutorKind
    from routing.decider import Decision, DecisionKind, ParkReason, RoutingContext, RunState, decide
    from routing.messages import actionable_message
    from routing.route import Substitute
    from routing.run import AttemptView, Candidate, RoutePlan, RunRequest, RunStatus, RunView
    from routing.selection import Pins, UserDecision

# Histories recorded before this patch start a session and run it as two activities and open the transcript
# in a separate step; new runs use one session-turn activity per turn (15 events for a happy path, not 24).
LEAN_SESSION = "lean-session-turn-v1"
# ACP agents keep a live process: the session starts on any worker, its turns go to that worker's own queue.
ACP_LIVE_SESSION = "acp-live-session-v1"
WORKER_PICKUP = timedelta(seconds=30)  # a turn for a dead worker's session fails this soon, then re-dispatches
NO_RETRY = RetryPolicy(maximum_attempts=1)  # provider calls: the decider is the only retry layer
STATE_RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_interval=timedelta(seconds=30))
LOCAL = timedelta(seconds=30)


def provider_call(cand: Candidate, margin_s: float) -> dict:
    """Options of every activity that talks to a provider or agent: its timeout, a heartbeat that shows a
    lost worker, and no retry policy (the decider is the only retry layer)."""
    return dict(
        start_to_close_timeout=timedelta(seconds=cand.profile.timeout_s + margin_s),
        heartbeat_timeout=timedelta(seconds=cand.profile.heartbeat_timeout_s),
        retry_policy=NO_RETRY,
    )


@workflow.defn
class OfficeRunWorkflow:
    def __init__(self) -> None:
        self._view: RunView | None = None
        self._resume = False
        self._decision: UserDecision | None = None
        self._published: dict[str, object] = {}
        self._lean = True
        self._session: tuple[str, SessionStarted] | None = None  # (execution profile, its started session)
        self._acp: tuple[str, AcpStarted] | None = None  # (execution profile, the live agent session)

    # --- what users see -------------------------------------------------------------------------
    @workflow.query
    def status(self) -> RunView | None:
        return self._view

    @workflow.signal
    def resume(self) -> None:
        """The user fixed credentials, plan or capacity: a parked run re-resolves its route."""
        self._resume = True

    @workflow.update
    def user_decision(self, decision: UserDecision) -> RunView | None:
        """A parked pinned run: approve a one-time substitute, retry the pinned route, or cancel.
        The choice lives in this run only; nothing is written to preferences."""
        self._decision, self._resume = decision, True
        return self._view

    @user_decision.validator
    def _validate_decision(self, decision: UserDecision) -> None:
        if self._view is None or self._view.park_reason != ParkReason.awaiting_user_decision.value:
            raise ValueError("this run is not awaiting a decision")
        if decision.action == "substitute" and not decision.provider:
            raise ValueError("a substitute needs a provider")

    def _publish(self) -> None:
        """Upsert only the search attributes that changed (one history event per change set)."""
        v = self._view
        assert v is not None
        wanted: dict[str, object] = {
            sa.STATUS.name: v.status.value,
            sa.WORKSPACE.name: v.workspace,
            sa.AGENT.name: v.agent,
            sa.PROVIDER.name: v.provider,
            sa.REQUESTED_MODEL.name: v.requested_model,
            sa.EFFECTIVE_MODEL.name: v.effective_model,
            sa.FALLBACK_COUNT.name: v.fallback_count,
            sa.ERROR_CODE.name: v.error_code,
        }
        updates = []
        for key in sa.ALL:
            value = wanted[key.name]
            if value is None or self._published.get(key.name) == value:
                continue
            self._published[key.name] = value
            updates.append(key.value_set(value))  # type: ignore[arg-type]
        if updates:
            workflow.upsert_search_attributes(updates)

    # --- the process ----------------------------------------------------------------------------
    @workflow.run
    async def run(self, req: RunRequest) -> RunView:
        self._view = RunView(run_id=req.run_id, status=RunStatus.running, workspace=req.workspace, agent=req.agent)
        self._lean = workflow.patched(LEAN_SESSION)
        if self._lean:  # what the client set at start is already indexed: do not upsert it again
            started_with = workflow.info().typed_search_attributes
            self._published = {k.name: v for k in sa.ALL if (v := started_with.get(k)) is not None}
        self._publish()
        try:
            result = await self._run(req)
        except asyncio.CancelledError:  # a cancelled turn reaps its own agent (not awaited here: no new commands)
            self._view.status = RunStatus.cancelled
            self._view.message = "cancelled by the user"
            self._publish()
            raise
        except ApplicationError:  # the run failed: its agent session, if one is live, ends with it
            await self._close_acp()
            raise
        await self._close_acp()  # no-op without a live agent session
        return result

    async def _run(self, req: RunRequest) -> RunView:
        view = self._view
        assert view is not None
        if not self._lean:
            await workflow.execute_local_activity_method(
                RouteStateActivities.open_transcript,
                OpenTranscript(run_id=req.run_id, prompt=req.prompt),
                start_to_close_timeout=LOCAL,
                retry_policy=STATE_RETRY,
            )
        plan = await self._resolve(req, excluded=[])
        view.requested_model = req.pin_model or plan.agent.model
        self._publish()
        excluded: list[str] = []
        attempts = failed = waits = 0  # the attempt cap counts failed attempts: every answered turn is one too
        turns = [req.prompt, *req.follow_ups] if self._lean else [req.prompt]
        for turn, text in enumerate(turns):
            user_seq, route_retries = 2 * turn + 1, 0
            while True:
                candidate = next((c for c in plan.candidates if c.provider not in excluded), None)
                if candidate is None:  # nothing eligible (all unhealthy): fail if only the model is gone, else park
                    if plan.ineligible and all(i.code == ErrorCode.model_unavailable for i in plan.ineligible):
                        gone = plan.ineligible[-1]
                        return self._fail(ErrorCode.model_unavailable, None, provider=gone.provider)
                    await self._park_until_eligible(plan)
                else:
                    attempts += 1
                    started_at = workflow.now()
                    view.provider = candidate.provider
                    self._publish()
                    outcome = await self._attempt(req, candidate, attempts, user_seq, text, route_retries > 0)
                    source = "auto" if excluded and candidate.source == "default" else candidate.source
                    if isinstance(outcome, SessionOutput):
                        view.effective_model = outcome.reported_model or view.effective_model
                        await self._record(req, attempts, candidate, source, None, None, started_at)
                        view.output, view.error_code = outcome.text, None
                        break
                    failure, failed = outcome, failed + 1
                    others = any(
                        c.provider not in excluded and c.provider != candidate.provider for c in plan.candidates
                    )
                    decision = decide(
                        failure,
                        RoutingContext.office,
                        RunState(
                            attempts=failed if self._lean else attempts,
                            max_attempts=plan.max_attempts,
                            same_route_retries=route_retries,
                            waits=waits,
                            other_candidate_eligible=others,
                            pinned=plan.pinned,
                        ),
                        workflow.random().random(),
                    )
                    view.error_code = failure.code.value
                    await self._record(req, attempts, candidate, source, failure, decision, started_at)
                    self._publish()
                    if decision.kind is DecisionKind.short_retry:
                        route_retries += 1
                        await workflow.sleep(timedelta(seconds=decision.delay_s or 0))
                        continue
                    if decision.kind is DecisionKind.fallback:
                        excluded.append(candidate.provider)
                        route_retries = 0
                        view.fallback_count += 1
                        continue
                    if decision.kind is DecisionKind.fail:
                        return self._fail(failure.code, failure, candidate)
                    if decision.kind is DecisionKind.wait:
                        waits += 1
                    reason = decision.park_reason or ParkReason.waiting_for_provider_capacity
                    await self._park(reason, decision.delay_s, f"{candidate.provider}: {decision.reason}")
                # After a park: the user's decision, the user's resume, or the capacity timer.
                choice, self._decision = self._decision, None
                if choice is not None and choice.action == "cancel":
                    view.status, view.message = RunStatus.cancelled, f"cancelled by {choice.actor} while parked"
                    self._publish()
                    return view
                substitute = (
                    Substitute(provider=choice.provider, model=choice.model)
                    if choice is not None and choice.action == "substitute" and choice.provider
                    else None
                )
                plan = await self._resolve(req, [], retry_blocked=self._resume, substitute=substitute)
                excluded, route_retries = [], 0
        view.status = RunStatus.completed
        self._publish()
        return view

    async def _attempt(
        self, req: RunRequest, cand: Candidate, seq: int, user_seq: int, text: str, is_retry: bool
    ) -> SessionOutput | Classification:
        try:
            if self._lean and cand.profile.kind is ExecutorKind.openai:
                return await self._session_turn(req, cand, seq, user_seq, text, is_retry)
            if self._lean and cand.profile.kind is ExecutorKind.acp and workflow.patched(ACP_LIVE_SESSION):
                return await self._acp_turn(req, cand, seq, user_seq, text)
            return await self._start_then_run(req, cand, seq, user_seq)
        except _AttemptFailed as failed:
            if isinstance(failed.error.cause, CancelledError):  # the run itself is being cancelled
                raise asyncio.CancelledError() from failed.error
            return self._classify(failed.error, cand, failed.phase)

    def _note_start(self, started: SessionStarted) -> None:
        view = self._view
        assert view is not None
        view.effective_model = started.effective_model
        if started.warning and all(w.idempotency_key != started.warning.idempotency_key for w in view.warnings):
            view.warnings.append(started.warning)

    async def _session_turn(
        self, req: RunRequest, cand: Candidate, seq: int, user_seq: int, text: str, is_retry: bool
    ) -> SessionOutput:
        queue = workflow.info().task_queue
        live = self._session[1] if self._session and self._session[0] == cand.execution_profile else None
        self._session = None  # a failed turn ends the session: the next attempt starts afresh
        if cand.profile.requests_per_minute:  # the server enforces the provider's dispatch rate on its own queue
            queue = provider_queue(queue, cand.provider)
        try:
            turn: SessionTurnOutput = await workflow.execute_activity_method(
                SessionActivities.session_turn,
                SessionTurnInput(
                    run_id=req.run_id,
                    attempt_seq=seq,
                    agent=req.agent,
                    candidate=cand,
                    user_seq=user_seq,
                    user_text=text,
                    full_history=req.full_history,
                    is_retry=is_retry,
                    session=live,
                ),
                task_queue=queue,
                **provider_call(cand, margin_s=60),
                summary=f"turn {user_seq // 2 + 1} on {cand.provider} (model {cand.requested_model})",
            )
        except ActivityError as err:
            raise _AttemptFailed(err, Phase.after_start) from err
        self._note_start(turn.started)
        self._session = (cand.execution_profile, turn.started)
        return turn.output

    async def _acp_turn(self, req: RunRequest, cand: Candidate, seq: int, user_seq: int, text: str) -> SessionOutput:
        live = self._acp if self._acp and self._acp[0] == cand.execution_profile else None
        if live is None:
            await self._close_acp()  # a session on another route is over
            try:
                started: AcpStarted = await workflow.execute_activity_method(
                    AcpActivities.acp_start,
                    AcpStartInput(run_id=req.run_id, attempt_seq=seq, agent=req.agent, candidate=cand),
                    **provider_call(cand, margin_s=60),
                    summary=f"start agent session on {cand.provider} (model {cand.requested_model})",
                )
            except ActivityError as err:
                raise _AttemptFailed(err, Phase.session_start) from err
            self._note_start(started.started)
            live = (cand.execution_profile, started)
        self._acp = None  # a failed turn ends the session (the activity reaps it)
        session = live[1]
        try:
            turn: SessionTurnOutput = await workflow.execute_activity_method(
                AcpActivities.acp_turn,
                AcpTurnInput(
                    run_id=req.run_id,
                    attempt_seq=seq,
                    candidate=cand,
                    session_key=session.session_key,
                    started=session.started,
                    user_seq=user_seq,
                    user_text=text,
                    full_history=req.full_history,
                ),
                task_queue=session.worker_queue,
                schedule_to_start_timeout=WORKER_PICKUP,
                **provider_call(cand, margin_s=30),
                summary=f"turn {user_seq // 2 + 1} on {cand.provider} "
                f"({session.started.effective_model or 'agent default'})",
            )
        except ActivityError as err:
            raise _AttemptFailed(err, Phase.after_start) from err
        self._acp = live
        return turn.output

    async def _close_acp(self) -> None:
        """Best effort: if the worker is gone, its agent went with it (and an idle reaper backs this up)."""
        live, self._acp = self._acp, None
        if live is None:
            return
        with contextlib.suppress(ActivityError):
            await workflow.execute_activity_method(
                AcpActivities.acp_close,
                AcpCloseInput(session_key=live[1].session_key),
                task_queue=live[1].worker_queue,
                schedule_to_close_timeout=WORKER_PICKUP,
                retry_policy=NO_RETRY,
                summary="close agent session",
            )

    async def _start_then_run(self, req: RunRequest, cand: Candidate, seq: int, user_seq: int) -> SessionOutput:
        """Executors with a live session (and histories recorded before LEAN_SESSION): two activities."""
        try:
            started: SessionStarted = await workflow.execute_activity_method(
                SessionActivities.start_session,
                StartSessionInput(run_id=req.run_id, attempt_seq=seq, agent=req.agent, candidate=cand),
                start_to_close_timeout=timedelta(seconds=60),
                retry_policy=NO_RETRY,
                summary=f"start session on {cand.provider} (model {cand.requested_model})",
            )
        except ActivityError as err:
            raise _AttemptFailed(err, Phase.session_start) from err
        self._note_start(started)
        try:
            return await workflow.execute_activity_method(
                SessionActivities.run_session,
                RunSessionInput(
                    run_id=req.run_id,
                    attempt_seq=seq,
                    candidate=cand,
                    model=started.model_to_send,
                    transcript_upto=user_seq,
                ),
                **provider_call(cand, margin_s=30),
                summary=f"run session on {cand.provider} ({started.model_to_send or 'provider default'})",
            )
        except ActivityError as err:
            raise _AttemptFailed(err, Phase.after_start) from err

    def _classify(self, err: ActivityError, cand: Candidate, phase: Phase) -> Classification:
        cause = err.cause
        if isinstance(cause, ApplicationError) and cause.details and isinstance(cause.details[0], dict):
            try:
                return Classification.model_validate(cause.details[0])
            except ValueError:
                pass
        if isinstance(cause, TimeoutError):  # heartbeat or start-to-close: the worker or the call was lost
            signal = FailureSignal(
                phase=phase,
                provider=cand.provider,
                exception_type="ActivityTimeout",
                error_text=f"activity {cause.type.name.lower()} timeout",
            )
        else:
            signal = FailureSignal(
                phase=phase,
                provider=cand.provider,
                exception_type=getattr(cause, "type", None) or type(cause).__name__,
                error_text=str(cause),
            )
        return classify(signal, workflow.now())

    async def _resolve(
        self, req: RunRequest, excluded: list[str], retry_blocked: bool = False, substitute: Substitute | None = None
    ) -> RoutePlan:
        return await workflow.execute_local_activity_method(
            RouteStateActivities.resolve_route,
            RouteRequest(
                run_id=req.run_id,
                workspace=req.workspace,
                agent=req.agent,
                tier=req.tier,
                excluded=excluded,
                retry_blocked=retry_blocked,
                substitute=substitute,
                pins=Pins(providers=req.pin_providers, model=req.pin_model),
            ),
            start_to_close_timeout=LOCAL,
            retry_policy=STATE_RETRY,
        )

    async def _record(
        self,
        req: RunRequest,
        seq: int,
        cand: Candidate,
        source: str,
        failure: Classification | None,
        decision: Decision | None,
        started_at,
    ) -> None:
        outcome = "failed" if failure else "succeeded"
        view = self._view
        assert view is not None
        view.attempts.append(
            AttemptView(
                seq=seq,
                provider=cand.provider,
                execution_profile=cand.execution_profile,
                model=view.effective_model,
                requested_model=cand.requested_model,
                outcome=outcome,
                source=source,
                error_code=failure.code.value if failure else None,
                decision=decision.kind.value if decision else None,
                reason=decision.reason if decision else None,
                rule=failure.rule if failure else None,
                excerpt=failure.excerpt if failure else None,
                retry_after_s=failure.retry_after_s if failure else None,
            )
        )
        if (
            self._lean
            and failure is None
            and (
                cand.profile.kind is ExecutorKind.openai
                or (cand.profile.kind is ExecutorKind.acp and workflow.patched(ACP_LIVE_SESSION))
            )
        ):
            return  # the session turn recorded its own success
        await workflow.execute_local_activity_method(
            RouteStateActivities.record_attempt,
            AttemptRecord(
                run_id=req.run_id,
                seq=seq,
                candidate=cand,
                effective_model=view.effective_model,
                outcome=outcome,
                failure=failure,
                decision=decision,
                started_at=started_at,
                finished_at=workflow.now(),
            ),
            start_to_close_timeout=LOCAL,
            retry_policy=STATE_RETRY,
        )

    async def _park(self, reason: ParkReason, timeout_s: float | None, why: str) -> None:
        """Parked runs never spin: they wait on a durable timer (capacity), the `resume` signal or the
        `decide` update. Afterwards `self._resume` tells whether the user acted."""
        view = self._view
        assert view is not None
        view.status, view.park_reason, view.message, self._resume = RunStatus.parked, reason.value, why, False
        self._publish()
        with contextlib.suppress(builtins.TimeoutError):
            await workflow.wait_condition(
                lambda: self._resume,
                timeout=timedelta(seconds=timeout_s) if timeout_s else None,
                timeout_summary=f"parked: {reason.value}",
            )
        view.status, view.park_reason, view.message = RunStatus.running, None, None
        self._publish()

    async def _park_until_eligible(self, plan: RoutePlan) -> None:
        why = "; ".join(f"{i.provider}: {i.reason}" for i in plan.ineligible) or "no provider is eligible"
        retry_times = [i.retry_at for i in plan.ineligible if i.retry_at is not None]
        if retry_times:
            delay = max(1.0, (min(retry_times) - workflow.now()).total_seconds())
            await self._park(ParkReason.waiting_for_provider_capacity, delay, why)
        elif plan.pinned:  # only the user may widen a pin
            await self._park(ParkReason.awaiting_user_decision, None, why)
        else:
            await self._park(ParkReason.blocked_provider_action_required, None, why)

    def _fail(
        self,
        code: ErrorCode,
        failure: Classification | None,
        cand: Candidate | None = None,
        provider: str | None = None,
    ) -> RunView:
        view = self._view
        assert view is not None
        model = cand.requested_model if cand else view.requested_model
        view.status, view.error_code = RunStatus.failed, code.value
        view.message = actionable_message(
            code,
            cand.provider if cand else provider or view.provider,
            model,
            view.agent,
            failure.excerpt if failure else "",
        )
        self._publish()
        raise ApplicationError(
            view.message, view.model_dump(mode="json"), type=f"OfficeRunFailed.{code.value}", non_retryable=True
        )


class _AttemptFailed(Exception):
    """An attempt's activity failed; carries the phase it failed in for classification."""

    def __init__(self, error: ActivityError, phase: Phase):
        super().__init__(str(error))
        self.error, self.phase = error, phase
