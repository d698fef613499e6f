"""One turn, for every executor: admit → open → call → commit → close → count.

Both turn activities (`session_turn` for OpenAI-compatible endpoints, `acp_turn` for ACP agents) hand this pipeline
an `Executor` and the turn; what differs between executors (how a transcript becomes a request, what a session is,
whether a turn leaves commits) lives behind the protocol, and what every turn shares lives here once:

- **admit** by the provider key's shared breaker, budget and pacer (activities.admission), opening the turn (its
  user message, the transcript snapshot) in the admission's own transaction when the call may go;
- **call**: the session start when the run has none on this candidate yet, then the prompt, heartbeating with the
  executor's progress and storing what the agent says and does for `office watch` (activities.run_events); a
  failure the executor raises (`ProviderCallError`, the raw signal) is classified here and counted in the provider
  key's window before it propagates;
- **commit**: what the turn left in the run's working copy, pushed before the turn counts as done;
- **close**: the answer and the succeeded attempt row stored together, waited out through a store outage
  (activities.attempts.close_answered), then **count**ed once.

A turn that fails ends its executor's session (`Executor.close`), keeping the partial changes of a turn whose call
had begun; a cancelled call is cancelled at the executor first."""

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

from activities import bookkeeping
from activities.admission import accounted, admit_and_open, note_stated_rate
from activities.attempts import close_answered, succeeded
from activities.executors.base import ProviderCallError
from activities.heartbeat import heartbeating
from activities.pricing import cost_usd
from activities.run_events import recording
from activities.start_policy import settle_answer
from contracts.activities import AcpTurnInput, SessionOutput, SessionStarted, SessionTurnInput, SessionTurnOutput
from contracts.failures import provider_failure
from routing.codes import Phase
from routing.config import WorkspaceConfig
from routing.conversation import answer_in_history
from routing.permissions import PermissionCounts
from routing.progress import ProgressLog
from routing.repository import RunResult, TurnCommit
from routing.run import Candidate
from routing.transcript import Entry
from routing.usage import ModelPrice, Usage
from store.repository import Store
from store.rows import TurnOpening, utcnow


@dataclass(frozen=True)
class TurnAnswer:
    """What an executor's prompt returns: the answer and what it learned on the way."""

    text: str
    model: str | None = None  # the model the provider or agent reported for this answer, if it said
    normalisations: list[str] = field(default_factory=list)  # how the forwarded transcript was normalised
    limit_rpm: float | None = None  # the request limit the answer's rate-limit headers stated
    permissions: PermissionCounts | None = None  # this turn's permission requests by kind (agents)
    usage: Usage | None = None  # the tokens the provider or agent reported for this answer (None: it did not say)


@dataclass(frozen=True)
class TurnCommitted:
    """What a turn left on the run's branch (None for executors without a working copy)."""

    commit: TurnCommit | None = None
    result: RunResult | None = None


class Executor(Protocol):
    """One provider session as the pipeline drives it. Failures of the provider or agent are raised as
    `ProviderCallError` (the raw signal; the pipeline classifies it); anything else propagates as it is."""

    admission_phase: Phase  # how a refused admission is classified: before or after the session started
    # Whether the provider call is the one the admission paced (an endpoint's request), so a rate limit it meets
    # is judged against the rate of its slot; an agent makes calls of its own that no admission paced.
    paced_by_admission: bool

    async def start(self) -> SessionStarted:
        """The session on this candidate: the catalog the executor advertises, the start-model policy, its warning."""
        ...

    async def prompt(self, transcript: list[Entry], started: SessionStarted, full_history: bool) -> TurnAnswer:
        """The turn: `transcript` is the run's own snapshot, ending with this turn's user message."""
        ...

    def progress(self) -> dict[str, Any] | None:
        """How far the current call got (counts only), for the heartbeat details; None when nothing to say."""
        ...

    def observe(self, progress: ProgressLog | None) -> None:
        """Feed the agent's messages and tool calls to `progress` from now on (None: stop); `office watch` shows
        them (activities.run_events)."""
        ...

    async def cancel(self) -> None:
        """The call was cancelled (the run was cancelled, the activity timed out): tell the provider or agent."""
        ...

    async def commit(self, turn: int, model: str | None) -> TurnCommitted:
        """After the answer: the turn's changes made durable (a commit on the run's branch), if the executor has any."""
        ...

    async def close(self, keep_changes_of: int | None) -> None:
        """The turn failed and the session ends; `keep_changes_of`: the attempt whose partial changes to keep."""
        ...


@dataclass(frozen=True)
class Turn:
    """The turn as both turn activities receive it (after the run's boundary has resolved the candidate)."""

    run_id: str
    attempt_seq: int
    candidate: Candidate
    user_seq: int  # the turn's user message is entry user_seq; the answer goes to user_seq + 1
    user_text: str
    full_history: bool = True
    is_retry: bool = False  # counts against the provider key's shared retry budget
    started: SessionStarted | None = None  # the live session on this candidate, if any: no start then
    agent: str = ""  # the agent profile's name, for the warning a turn answered on another model gets
    workspace: str = ""  # the run's workspace, on the attempt row (usage by workspace)
    prices: Mapping[str, ModelPrice] = field(default_factory=dict)  # the workspace's own prices (`prices:`)

    @classmethod
    def of(
        cls,
        inp: SessionTurnInput | AcpTurnInput,
        candidate: Candidate,
        started: SessionStarted | None,
        workspace: WorkspaceConfig | None = None,
        agent: str = "",
    ) -> "Turn":
        """The turn a turn activity's input names, on the candidate the run's boundary resolved, in the run's
        workspace as the store holds it."""
        return cls(
            run_id=inp.run_id,
            attempt_seq=inp.attempt_seq,
            candidate=candidate,
            user_seq=inp.user_seq,
            user_text=inp.user_text,
            full_history=inp.full_history,
            is_retry=inp.is_retry,
            started=started,
            agent=inp.agent if isinstance(inp, SessionTurnInput) else agent,
            workspace=workspace.name if workspace is not None else "",
            prices=workspace.prices if workspace is not None else {},
        )

    @property
    def number(self) -> int:
        """The turn's number in the run (1 for the first prompt)."""
        return self.user_seq // 2 + 1


class _Stage(Enum):
    admitting = "admitting"
    calling = "calling"  # from here on a failure keeps the attempt's partial changes
    closing = "closing"


async def run_turn(store: Store, turn: Turn, executor: Executor) -> SessionTurnOutput:
    """The turn on `executor`, its answer and attempt row stored together; see the module docstring."""
    cand, stage = turn.candidate, _Stage.admitting
    try:
        started_at = utcnow()
        opening = TurnOpening(turn.run_id, turn.user_seq, bookkeeping.clean_text(turn.user_text))
        admission, snapshot = await admit_and_open(
            store, turn.run_id, cand, turn.is_retry, executor.admission_phase, opening=opening
        )
        if snapshot is None:  # the call waited for its slot: the turn opens now
            snapshot = await bookkeeping.open_turn(store, turn.run_id, turn.user_seq, turn.user_text)
        transcript = [Entry(seq=r.seq, role=r.role, content=r.content, provider=r.provider) for r in snapshot]
        stage = _Stage.calling
        # The shared window learns of a failure at once; one heartbeat loop covers the start and the call.
        paced = admission if executor.paced_by_admission else None
        async with (  # the last events are stored while the heartbeats still go
            accounted(store, turn.run_id, cand, paced),
            heartbeating(_details(executor)),
            recording(store, turn.run_id, turn.attempt_seq) as progress,
        ):
            executor.observe(progress)
            try:
                started, answer = await _call(turn, executor, transcript)
            finally:
                executor.observe(None)
        await note_stated_rate(store, cand, admission, answer.limit_rpm)
        warning = await settle_answer(store, turn.run_id, turn.agent, cand, started, answer.model)
        effective = answer.model or started.effective_model
        committed = await executor.commit(turn.number, effective)
        stage = _Stage.closing
        cost = cost_usd(cand.provider, effective, answer.usage, turn.prices)
        spent = (answer.usage, cost)
        record = succeeded(
            turn.run_id,
            turn.attempt_seq,
            cand,
            effective,
            started_at,
            spent,
            turn.workspace or None,
            turn.agent or None,
        )
        output = SessionOutput(
            text=bookkeeping.clean_text(answer.text),
            reported_model=answer.model,
            transcript_seq=turn.user_seq + 1,
            usage=answer.usage,
            cost_usd=cost,
        )
        answered = SessionTurnOutput(
            started=started,
            output=output,
            normalisations=answer.normalisations,
            probe=admission.probe,
            commit=committed.commit,
            result=committed.result,
            permissions=answer.permissions,
            warning=warning,
        )
        # The answer is in hand: a store outage now is waited out, never a reason to ask again.
        return in_history(await close_answered(store, answered, record), turn.run_id)
    except BaseException:
        await executor.close(turn.attempt_seq if stage is _Stage.calling else None)
        raise


def in_history(done: SessionTurnOutput, run_id: str) -> SessionTurnOutput:
    """The turn as it goes back to the workflow: the answer whole in the run's transcript, bounded in its history."""
    out = done.output
    text = answer_in_history(out.text, run_id, out.transcript_seq)
    return done.model_copy(update={"output": out.model_copy(update={"text": text, "chars": len(out.text)})})


async def _call(turn: Turn, executor: Executor, transcript: list[Entry]) -> tuple[SessionStarted, TurnAnswer]:
    """The session start (when the run has none on this candidate) and the prompt, failures classified (with
    what the failed call used and its cost, when the executor knows it)."""
    started = turn.started
    try:
        started = started or await executor.start()
        return started, await executor.prompt(transcript, started, turn.full_history)
    except ProviderCallError as err:
        model = (started.effective_model if started else None) or turn.candidate.requested_model
        cost = cost_usd(turn.candidate.provider, model, err.usage, turn.prices)
        raise provider_failure(await err.classified(utcnow()), err.usage, cost) from err
    except asyncio.CancelledError:
        await executor.cancel()
        raise


def _details(executor: Executor) -> Callable[[], Any] | None:
    """Heartbeat details from the executor's progress, when it reports any."""
    return executor.progress if executor.progress() is not None else None
