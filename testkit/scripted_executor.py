"""An in-process executor for the turn pipeline (activities.turn_pipeline.Executor), scripted turn by turn.

What `httpx.MockTransport` is to httpx and `FunctionModel` to pydantic-ai: the pipeline's admission, transcript,
accounting, commit and close run for real (on a real store) while the provider is a script, so a pipeline test
takes milliseconds and can make the provider do anything (answer, fail with a real failure text, hang until
cancelled, report progress) and then check what the pipeline asked of it."""

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from activities.executors.base import ProviderCallError
from activities.turn_pipeline import TurnAnswer, TurnCommitted
from contracts.activities import SessionStarted
from routing.classifier import FailureSignal
from routing.codes import Phase
from routing.model_policy import plan_model, settle_model
from routing.progress import ProgressLog
from routing.transcript import Entry

Step = TurnAnswer | FailureSignal | Callable[[list[Entry]], TurnAnswer]


def started_on(model: str) -> SessionStarted:
    """A session whose start-model policy settled on `model` as requested (no warning)."""
    decision = settle_model(plan_model(model, None, False, [model]), reported=None)
    return SessionStarted(decision=decision, model_to_send=model, effective_model=decision.effective)


@dataclass
class ScriptedExecutor:
    """Each prompt takes the next step: a `TurnAnswer` is answered, a `FailureSignal` is raised as the provider's
    failure, a callable answers from the transcript. `hang` makes the prompt wait until it is cancelled."""

    steps: list[Step] = field(default_factory=list)
    model: str = "scripted-model"
    hang: bool = False
    commits: TurnCommitted | Exception = field(default_factory=TurnCommitted)
    admission_phase: Phase = Phase.after_start
    paced_by_admission: bool = True
    # What the pipeline asked of it, in order.
    starts: int = 0
    prompts: list[list[Entry]] = field(default_factory=list)
    cancels: int = 0
    committed: list[tuple[int, str | None]] = field(default_factory=list)
    closes: list[int | None] = field(default_factory=list)
    chunks: int = 0  # progress: what the heartbeat details report
    prompted: asyncio.Event = field(default_factory=asyncio.Event)  # set once a prompt has begun
    observed: list[ProgressLog | None] = field(default_factory=list)  # what the pipeline told it to feed

    async def start(self) -> SessionStarted:
        self.starts += 1
        return started_on(self.model)

    async def prompt(self, transcript: list[Entry], started: SessionStarted, full_history: bool) -> TurnAnswer:
        self.prompts.append(list(transcript))
        self.chunks += 1
        self.prompted.set()
        if self.hang:
            await asyncio.Event().wait()
        step = self.steps.pop(0) if self.steps else TurnAnswer(f"answer to {transcript[-1].content}")
        if isinstance(step, FailureSignal):
            raise ProviderCallError(step)
        return step(transcript) if callable(step) else step

    def progress(self) -> dict[str, Any]:
        return {"message_chunks": self.chunks}

    def observe(self, progress: ProgressLog | None) -> None:
        self.observed.append(progress)

    async def cancel(self) -> None:
        self.cancels += 1

    async def commit(self, turn: int, model: str | None) -> TurnCommitted:
        self.committed.append((turn, model))
        if isinstance(self.commits, Exception):
            raise self.commits
        return self.commits

    async def close(self, keep_changes_of: int | None) -> None:
        self.closes.append(keep_changes_of)
