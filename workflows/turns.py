"""One attempt at a turn on one candidate, through its executor's activities, and the classification of a
failed attempt. Holds the run's live session so a follow-up turn on the same route skips the session start."""

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, CancelledError, TimeoutError, TimeoutType

with workflow.unsafe.imports_passed_through():
    from contracts import stubs
    from contracts.activities import (
        AcpCloseInput,
        AcpStarted,
        AcpStartInput,
        AcpTurnInput,
        SessionOutput,
        SessionStarted,
        SessionTurnInput,
        SessionTurnOutput,
        acp_start_queue,
        provider_queue,
    )
    from contracts.carried import TurnsState
    from contracts.failures import STORE_UNAVAILABLE, WORKER_SHUTDOWN, failure_of, is_type, spent_of
    from routing.classifier import Classification, FailureSignal, classify, worker_fault
    from routing.codes import Phase
    from routing.config import ExecutorKind
    from routing.cycle import RouteCycle
    from routing.repository import RunResult, branch_for
    from routing.run import Candidate, RunRequest, RunView
    from routing.usage import Usage
    from workflows.progress import CurrentDetails
    from workflows.questions import Asking

# ACP agents keep a live process: the session starts on any worker, its turns go to that worker's own queue.
# Deprecated: every run still open was started after it; the branch without it is gone.
ACP_LIVE_SESSION = "acp-live-session-v1"
# Agent starts go to their own queue, polled by each worker only below its live agent limit: a start beyond it
# waits there (durably, no attempt made, no timeout running). Runs recorded before it started on the shared queue.
BOUNDED_START = "acp-bounded-start-v1"
WORKER_PICKUP = timedelta(seconds=30)  # a turn for a dead worker's session fails this soon, then re-dispatches
NO_RETRY = RetryPolicy(maximum_attempts=1)  # provider calls: the decider is the only retry layer
STORE_WAIT = timedelta(seconds=5)  # then the same attempt again: infrastructure is never a provider attempt
# A heartbeat timeout, a turn no worker picked up from its worker's queue, or a worker's shutdown is a lost
# worker (infrastructure), no longer the provider's `timeout`. Runs recorded before it booked them as the latter.
WORKER_LOSS = "worker-loss-v1"
# A worker that took the task but has no such activity (a worker of another version on the queue, mid-deploy): the
# SDK fails it as NotFoundError. The office's machinery, never the provider's: a lost worker, not an unknown error.
ACTIVITY_NOT_REGISTERED = "activity-not-registered-v1"
SDK_NOT_FOUND, NOT_REGISTERED = "NotFoundError", "is not registered on this worker"
T = TypeVar("T")


def provider_call(cand: Candidate, margin_s: float) -> dict[str, Any]:
    """Options of every activity that talks to a provider or agent: its timeout, a heartbeat that shows a
    lost worker, and no retry policy (the decider is the only retry layer)."""
    return {
        "start_to_close_timeout": timedelta(seconds=cand.profile.timeout_s + margin_s),
        "heartbeat_timeout": timedelta(seconds=cand.profile.heartbeat_timeout_s),
        "retry_policy": NO_RETRY,
    }


@dataclass(frozen=True)
class TurnAttempt:
    """One attempt at one turn of a run, on one candidate: what travels from the run's loop to the activity."""

    req: RunRequest
    cand: Candidate
    seq: int  # the attempt's number in the run
    turn: int  # 0 for the prompt, then each follow-up
    text: str
    is_retry: bool  # a retry on the same route: spends the provider key's shared retry budget

    @property
    def user_seq(self) -> int:
        """The turn's user message is transcript entry user_seq; its answer goes to user_seq + 1."""
        return 2 * self.turn + 1


class AttemptFailed(Exception):
    """An attempt's activity failed; carries the phase it failed in and the queue it was sent to."""

    def __init__(self, error: ActivityError, phase: Phase, queue: str):
        super().__init__(str(error))
        self.error, self.phase, self.queue = error, phase, queue


async def guarded(phase: Phase, queue: str, call: Awaitable[T]) -> T:
    try:
        return await call
    except ActivityError as err:
        raise AttemptFailed(err, phase, queue) from err


def store_unavailable(err: ActivityError) -> bool:
    """The activity waited for the store past its bound: not the provider's, so never classified or counted."""
    return is_type(err.cause, STORE_UNAVAILABLE)


def worker_lost(err: ActivityError, cand: Candidate, phase: Phase, queue: str) -> Classification | None:
    """The worker stopped reporting (heartbeat timeout: killed, stalled, partitioned), never picked the turn up
    from its own queue (gone), or shut down mid-activity: the office's fault, not the provider's. An activity
    whose own start-to-close timeout fired while it still heartbeated is not this: that stays `timeout`."""
    cause, worker = err.cause, err.identity or "unknown"
    if isinstance(cause, TimeoutError) and cause.type is TimeoutType.HEARTBEAT:
        rule, what = "worker.heartbeat_timeout", f"worker {worker} stopped heartbeating"
    elif isinstance(cause, TimeoutError) and cause.type is TimeoutType.SCHEDULE_TO_START:
        rule, what = "worker.pickup_timeout", f"no worker took the turn from {queue} (its worker is gone)"
    elif is_type(cause, WORKER_SHUTDOWN):
        rule, what = "worker.shutdown", f"worker {worker} shut down"
    elif is_type(cause, SDK_NOT_FOUND) and NOT_REGISTERED in str(cause) and workflow.patched(ACTIVITY_NOT_REGISTERED):
        rule = "worker.activity_not_registered"
        what = f"worker {worker} does not run {err.activity_type or 'the activity'} (a worker of another version?)"
    else:
        return None
    return worker_fault(phase, cand.provider, rule, what)


def classify_failure(err: ActivityError, cand: Candidate, phase: Phase, queue: str = "") -> Classification:
    """Activities classify what they saw and ship it in the failure's details; anything else (a lost worker,
    a timeout, an unexpected exception) is classified here from what Temporal reports."""
    lost = worker_lost(err, cand, phase, queue)
    if lost is not None and workflow.patched(WORKER_LOSS):
        return lost
    cause = err.cause
    if (carried := failure_of(cause)) is not None:
        return carried
    if isinstance(cause, TimeoutError):  # heartbeat or start-to-close: the worker or the call was lost
        signal = FailureSignal(
            phase=phase,
            provider=cand.provider,
            exception_type="ActivityTimeout",
            error_text=f"activity {cause.type.name.lower() if cause.type else ''} timeout",
        )
    else:
        signal = FailureSignal(
            phase=phase,
            provider=cand.provider,
            exception_type=getattr(cause, "type", None) or type(cause).__name__,
            error_text=str(cause),
        )
    return classify(signal, workflow.now())


class AgentTurns:
    """The run's live session and its file state: with a repository, every completed turn's commit (ids and
    counts only) is where the next session starts, on whichever worker and agent takes the run on."""

    def __init__(self, view: Callable[[], RunView], details: CurrentDetails | None = None) -> None:
        self._view = view  # the run view notes the effective model, warnings, the branch and permission counts
        self._details = details or CurrentDetails()  # the step and branch the Temporal UI shows
        self._session: tuple[str, SessionStarted] | None = None  # (execution profile, its started session)
        self._acp: tuple[str, AcpStarted] | None = None  # (execution profile, the live agent session)
        self._base_commit: str | None = None  # the run's base, fixed by its first working copy
        self._start_commit: str | None = None  # the last completed turn's commit on the run's branch
        self.unsandboxed = False  # the last attempt's agent ran without a sandbox
        self.asking: Asking | None = None  # the agent turn running now (its permission questions are heard)
        # What the last failed attempt used and its cost, when its executor knew (an agent's stopped turn).
        self.spent: tuple[Usage | None, float | None] = (None, None)

    def continue_from(self, branch: RunResult) -> None:
        """A run that continues an ended one: its branch starts at that run's branch head, on that run's base."""
        self._start_commit, self._base_commit = branch.head_commit, branch.base_commit
        self._view().result = branch

    def state(self) -> TurnsState:
        """What a run continuing as new carries: the live sessions' references and the branch's commits."""
        return TurnsState(
            session=self._session, acp=self._acp, base_commit=self._base_commit, start_commit=self._start_commit
        )

    def restore(self, state: TurnsState) -> None:
        self._session, self._acp = state.session, state.acp
        self._base_commit, self._start_commit = state.base_commit, state.start_commit

    def _on_start(self, started: SessionStarted) -> None:
        self._view().note_start(started.effective_model, started.warning)

    async def attempt(
        self, req: RunRequest, cycle: RouteCycle, cand: Candidate, seq: int, turn: int, text: str
    ) -> SessionOutput | Classification:
        at = TurnAttempt(req, cand, seq, turn, text, is_retry=cycle.spends_retry_budget())
        self.unsandboxed, self.spent = False, (None, None)
        while True:
            try:
                out = await self._turn(cycle, at)
                break
            except AttemptFailed as failed:
                if isinstance(failed.error.cause, CancelledError):  # the run itself is being cancelled
                    raise asyncio.CancelledError() from failed.error
                if not store_unavailable(failed.error):
                    self.spent = spent_of(failed.error.cause)
                    return classify_failure(failed.error, cand, failed.phase, failed.queue)
                await workflow.sleep(STORE_WAIT, summary="waiting for the store")  # the same attempt, uncounted
        if out.warning is not None:  # answered on another model than the session's (an agent's own fallback)
            self._view().note_start(out.warning.effective_model, out.warning)
        self._note_files(out)
        return out.output

    async def _turn(self, cycle: RouteCycle, at: TurnAttempt) -> SessionTurnOutput:
        if at.cand.profile.kind is ExecutorKind.acp:
            workflow.deprecate_patch(ACP_LIVE_SESSION)
            return await self._acp_turn(cycle, at)
        out = await self._session_turn(at)
        if cycle.plan.repository is not None:  # no file system: the branch stays where it was
            self._view().repository_note = (
                f"turn {at.turn + 1} ran on {at.cand.provider}, which has no access to the repository: "
                f"{branch_for(at.req.run_id)} was not changed by it"
            )
        return out

    def _note_files(self, turn: SessionTurnOutput) -> None:
        """Only commit ids and counts reach the history; the Temporal UI's details name the branch."""
        view = self._view()
        if turn.permissions is not None:
            view.permissions = view.permissions.merged(turn.permissions)
        if turn.commit is None or turn.result is None:
            return
        self._start_commit, view.result = turn.commit.commit, turn.result
        r = turn.result
        self._details.branch(
            f"branch {r.branch} at {r.head_commit[:12]} (from {r.base_commit[:12]}): "
            f"{r.files_changed} files changed, +{r.insertions} -{r.deletions}"
        )

    async def _session_turn(self, at: TurnAttempt) -> SessionTurnOutput:
        """Stateless HTTP executors: start (catalog + model policy) and answer in one activity."""
        req, cand, user_seq = at.req, at.cand, at.user_seq
        live = self._session[1] if self._session and self._session[0] == cand.execution_profile else None
        self._session = None  # a failed turn ends the session: the next attempt starts afresh
        self._details.step(f"turn {user_seq // 2 + 1} on {cand.provider} (model {cand.requested_model})")
        queue = workflow.info().task_queue
        if cand.profile.requests_per_minute:  # the server enforces the provider's dispatch rate on its own queue
            queue = provider_queue(queue, cand.provider)
        turn: SessionTurnOutput = await guarded(
            Phase.after_start,
            queue,
            workflow.execute_activity(
                stubs.session_turn,
                SessionTurnInput(
                    run_id=req.run_id,
                    attempt_seq=at.seq,
                    agent=req.agent,
                    candidate=cand,
                    user_seq=user_seq,
                    user_text=at.text,
                    full_history=req.full_history,
                    is_retry=at.is_retry,
                    session=live,
                    workspace=req.workspace,
                ),
                task_queue=queue,
                **provider_call(cand, margin_s=60),
                summary=f"turn {user_seq // 2 + 1} on {cand.provider} (model {cand.requested_model})",
            ),
        )
        self._on_start(turn.started)
        self._session = (cand.execution_profile, turn.started)
        return turn

    async def _acp_turn(self, cycle: RouteCycle, at: TurnAttempt) -> SessionTurnOutput:
        req, cand = at.req, at.cand
        live = self._acp if self._acp and self._acp[0] == cand.execution_profile else None
        if live is None:
            await self.close()  # a session on another route is over: a run never holds one while it waits to start
            queue = workflow.info().task_queue
            if workflow.patched(BOUNDED_START):
                queue = acp_start_queue(queue)
            self._details.step(f"starting the agent on {cand.provider} (model {cand.requested_model})")
            started: AcpStarted = await guarded(
                Phase.session_start,
                queue,
                workflow.execute_activity(
                    stubs.acp_start,
                    AcpStartInput(
                        run_id=req.run_id,
                        attempt_seq=at.seq,
                        agent=req.agent,
                        candidate=cand,
                        repository=cycle.plan.repository,
                        permissions=cycle.plan.permissions,
                        start_commit=self._start_commit,
                        base_commit=self._base_commit,
                        workspace=req.workspace,
                    ),
                    task_queue=queue,
                    **provider_call(cand, margin_s=60),  # no schedule-to-start timeout: waiting is not failing
                    summary=f"start agent session on {cand.provider} (model {cand.requested_model})",
                ),
            )
            self._on_start(started.started)
            if started.sandbox_note:
                self._view().sandbox_note = started.sandbox_note
            self._base_commit = self._base_commit or started.base_commit
            live = (cand.execution_profile, started)
        self._acp = None  # a failed turn ends the session (the activity reaps it)
        session = live[1]
        self.unsandboxed = session.sandbox_note is not None
        model = session.started.effective_model or "agent default"
        self._details.step(f"turn {at.user_seq // 2 + 1} on {cand.provider} ({model})")
        self.asking = Asking(
            session.session_key, session.worker_queue, workflow.now() + timedelta(seconds=cand.profile.timeout_s),
            cycle.plan.permissions.ask_timeout,
        )  # fmt: skip
        try:
            turn = await self._acp_turn_activity(at, session)
        finally:
            self.asking = None
        self._acp = live
        return turn

    async def _acp_turn_activity(self, at: TurnAttempt, session: AcpStarted) -> SessionTurnOutput:
        req, cand, user_seq = at.req, at.cand, at.user_seq
        turn: SessionTurnOutput = await guarded(
            Phase.after_start,
            session.worker_queue,
            workflow.execute_activity(
                stubs.acp_turn,
                AcpTurnInput(
                    run_id=req.run_id,
                    attempt_seq=at.seq,
                    candidate=cand,
                    session_key=session.session_key,
                    started=session.started,
                    user_seq=user_seq,
                    user_text=at.text,
                    full_history=req.full_history,
                    is_retry=at.is_retry,
                ),
                task_queue=session.worker_queue,
                schedule_to_start_timeout=WORKER_PICKUP,
                **provider_call(cand, margin_s=30),
                summary=f"turn {user_seq // 2 + 1} on {cand.provider} "
                f"({session.started.effective_model or 'agent default'})",
            ),
        )
        return turn

    async def close(self) -> None:
        """Best effort: if the worker is gone, its agent went with it (and an idle reaper backs this up)."""
        live, self._acp = self._acp, None
        if live is None:
            return
        with contextlib.suppress(ActivityError):
            await workflow.execute_activity(
                stubs.acp_close,
                AcpCloseInput(session_key=live[1].session_key),
                task_queue=live[1].worker_queue,
                schedule_to_close_timeout=WORKER_PICKUP,
                retry_policy=NO_RETRY,
                summary="close agent session",
            )
