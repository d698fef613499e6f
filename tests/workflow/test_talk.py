"""Conversations of any length: a run continues as new under its history bound and keeps every turn, with mocked
turn activities (which keep the run's transcript in a real store, as the turn activities do) on the real dev
server binary. `say` itself, the idle run and the CLI are covered on the real stack (tests/integration/test_talk.py).
"""

import asyncio
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from temporalio import activity
from temporalio.client import WorkflowFailureError, WorkflowUpdateFailedError
from temporalio.service import RPCError
from temporalio.worker import Worker

from contracts.activities import (
    Activity,
    AttemptRecord,
    RouteRequest,
    SessionOutput,
    SessionStarted,
    SessionTurnInput,
    SessionTurnOutput,
)
from office.runs import turn_texts, wait_for_view
from office.workflow_runner import workflow_runner
from routing.conversation import HistoryBound, Say
from routing.model_policy import plan_model, settle_model
from routing.run import RoutePlan, RunRequest, RunStatus
from store.migrate import migrate
from store.repository import Store
from testkit.eventually import eventually
from testkit.factories import plan
from workflows.office_run import OfficeRunWorkflow

SANDBOXED = workflow_runner(sandboxed=True)
AS_WORKERS_RUN = workflow_runner(sandboxed=False)  # 300 turns: the sandbox's cost per activation adds up
BOUND = HistoryBound(max_events=300, max_bytes=128 * 1024, turn_events=30, turn_bytes=16 * 1024)


@dataclass
class Talk:
    """Answers every turn at once, keeping the turn and its answer in the run's transcript in `store`."""

    store: Store
    plan: RoutePlan
    seen: list[tuple[int, str]] = field(default_factory=list)  # (user_seq, text) per call

    @activity.defn(name=Activity.resolve_route)
    async def resolve_route(self, req: RouteRequest) -> RoutePlan:
        return self.plan

    @activity.defn(name=Activity.session_turn)
    async def session_turn(self, inp: SessionTurnInput) -> SessionTurnOutput:
        self.seen.append((inp.user_seq, inp.user_text))
        await self.store.open_turn(inp.run_id, inp.user_seq, inp.user_text)
        answer = f"answer {inp.user_seq // 2 + 1}: " + "x" * 300  # longer than a view's excerpt
        await self.store.append_transcript(inp.run_id, inp.user_seq + 1, "assistant", answer, "a")
        decision = settle_model(plan_model("m1", None, False, ["m1"]), reported="m1")
        started = SessionStarted(decision=decision, model_to_send="m1", effective_model="m1")
        output = SessionOutput(text=answer, reported_model="m1", transcript_seq=inp.user_seq + 1)
        return SessionTurnOutput(started=started, output=output)

    @activity.defn(name=Activity.record_attempt)
    async def record_attempt(self, rec: AttemptRecord) -> None:
        raise AssertionError("no turn fails here")


@pytest.fixture
async def store(tmp_path) -> AsyncIterator[Store]:
    url = f"sqlite:///{tmp_path / 'office.db'}"
    await migrate(url)
    db = Store(url)
    yield db
    await db.close()


async def test_a_300_turn_conversation_continues_as_new_under_its_bound_and_keeps_every_answer(client, store):
    talk = Talk(store, plan("a", history_bound=BOUND))
    queue = f"talk-{uuid.uuid4().hex[:8]}"
    said = [f"step {i}" for i in range(1, 301)]
    req = RunRequest(run_id=queue, workspace="ws", agent="coder", prompt=said[0], follow_ups=said[1:])
    async with Worker(client, task_queue=queue, workflows=[OfficeRunWorkflow], workflow_runner=AS_WORKERS_RUN,
                      activities=[talk.resolve_route, talk.session_turn, talk.record_attempt]):  # fmt: skip
        handle = await client.start_workflow(OfficeRunWorkflow.run, req, id=req.run_id, task_queue=queue)
        midway = await eventually(  # queries and updates address the run id: they follow it into a new history
            lambda: handle.query(OfficeRunWorkflow.status),
            until=lambda v: v is not None and v.continued >= 1,
            timeout=120,
            what="the run to continue as new",
        )
        accepted = await handle.execute_update(OfficeRunWorkflow.say, Say(text="step 301"))
        said.append("step 301")
        view = await asyncio.wait_for(wait_for_view(client, handle.id), timeout=120)

    assert midway.status is RunStatus.running and accepted.turn == 301
    assert view.status is RunStatus.completed and view.continued > midway.continued
    assert talk.seen == [(2 * i + 1, text) for i, text in enumerate(said)]  # each turn once, in order
    assert view.earlier_attempts + len(view.attempts) == 301 and view.earlier_attempts > 0
    assert [a.turn for a in view.answers] == list(range(282, 302))  # the latest, as excerpts
    assert view.output == "answer 301: " + "x" * 300  # the last answer whole; the carried one was an excerpt
    assert all(a.chars > len(a.excerpt) == 200 for a in view.answers)
    runs = [r async for r in client.list_workflows(f'WorkflowId = "{handle.id}"')]
    assert len(runs) == view.continued + 1
    for run in runs:  # every history of the run stayed under the bound, as the server counts it
        info = (await client.get_workflow_handle(handle.id, run_id=run.run_id).describe()).raw_description
        events, size = info.workflow_execution_info.history_length, info.workflow_execution_info.history_size_bytes
        assert events <= BOUND.max_events and size <= BOUND.max_bytes, (events, size)
    turns = await turn_texts(store, handle.id)  # what `office runs show` prints
    assert [(t.turn, t.said, t.answer) for t in turns] == [
        (i + 1, text, f"answer {i + 1}: " + "x" * 300) for i, text in enumerate(said)
    ]


async def test_say_is_refused_for_an_empty_text_and_once_the_idle_run_was_cancelled(client, store):
    talk = Talk(store, plan("a", idle_timeout_s=30))
    queue = f"talk-{uuid.uuid4().hex[:8]}"
    req = RunRequest(run_id=queue, workspace="ws", agent="coder", prompt="hello")
    async with Worker(client, task_queue=queue, workflows=[OfficeRunWorkflow], workflow_runner=SANDBOXED,
                      activities=[talk.resolve_route, talk.session_turn, talk.record_attempt]):  # fmt: skip
        handle = await client.start_workflow(OfficeRunWorkflow.run, req, id=req.run_id, task_queue=queue)
        with pytest.raises(WorkflowUpdateFailedError) as refused:
            await handle.execute_update(OfficeRunWorkflow.say, Say(text="  "))
        assert "the text is empty" in str(refused.value.cause)
        accepted = await handle.execute_update(OfficeRunWorkflow.say, Say(text="and then?"))
        assert accepted.turn == 2
        view = await eventually(
            lambda: handle.query(OfficeRunWorkflow.status),
            until=lambda v: v is not None and v.status is RunStatus.idle,
            timeout=30,
            what="the run to be idle after its two turns",
        )
        assert [a.turn for a in view.answers] == [1, 2]
        await handle.cancel()  # an idle run ends when cancelled, like any other
        with pytest.raises(WorkflowFailureError):
            await handle.result()
        assert (await handle.query(OfficeRunWorkflow.status)).status is RunStatus.cancelled
        with pytest.raises(RPCError, match="already completed"):  # `office runs say` turns it into one line
            await handle.execute_update(OfficeRunWorkflow.say, Say(text="still there?"))


async def test_a_client_start_that_carries_state_is_refused(client, store):
    """Only a run Temporal continued as new carries state: a forged one (e.g. another run's session) never runs."""
    talk = Talk(store, plan("a"))
    queue = f"talk-{uuid.uuid4().hex[:8]}"
    req = RunRequest(run_id=queue, workspace="ws", agent="coder", prompt="hello", carried={"forged": True})
    async with Worker(client, task_queue=queue, workflows=[OfficeRunWorkflow], workflow_runner=SANDBOXED,
                      activities=[talk.resolve_route, talk.session_turn, talk.record_attempt]):  # fmt: skip
        handle = await client.start_workflow(OfficeRunWorkflow.run, req, id=req.run_id, task_queue=queue)
        with pytest.raises(WorkflowFailureError) as failed:
            await asyncio.wait_for(handle.result(), timeout=30)
    assert "carried: set only by a run continuing as new" in str(failed.value.cause)
    assert talk.seen == []
