"""`--for-run` grants on the dev server, with the agent's worker mocked: a grant is made only once the session's worker
confirms it asked the question. A session key is no secret (run id / attempt) and a signal is anyone's to send, so a
question forged with the live key is shown and can be answered, but allowing it for the run must not let the real
agent through later."""

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from temporalio import activity
from temporalio.client import Client, WorkflowHandle
from temporalio.worker import Worker

from contracts.activities import (
    AcpAnswerInput,
    AcpCloseInput,
    AcpStarted,
    AcpStartInput,
    AcpTurnInput,
    Activity,
    AttemptRecord,
    RouteRequest,
    SessionOutput,
    SessionStarted,
    SessionTurnOutput,
    acp_start_queue,
)
from office.runs import run_view, wait_for_view
from office.workflow_runner import workflow_runner
from routing.model_policy import plan_model, settle_model
from routing.permissions import PermissionPolicy
from routing.questions import ANSWER_PERMISSION, PERMISSION_ASKED, PermissionAnswer, PermissionAsked, QuestionRecord
from routing.run import RoutePlan, RunRequest, RunStatus, RunView
from testkit.eventually import eventually
from testkit.factories import acp_profile, candidate, plan
from workflows.office_run import OfficeRunWorkflow


def _pending(view: RunView) -> list[QuestionRecord]:
    return [q for q in view.questions if q.answered_by is None]


@dataclass
class AskingAgent:
    """One ACP session whose single turn asks `asks` (question id, path) one after another, each waiting for the
    run's answer; `answers` is what its worker was handed, `held` says whether it held the question."""

    plan: RoutePlan
    asks: list[tuple[str, str]]
    answers: list[tuple[str, bool, bool]] = field(default_factory=list)  # (question id, allow, held)
    _open: dict[str, asyncio.Future[bool]] = field(default_factory=dict)

    @activity.defn(name=Activity.resolve_route)
    async def resolve_route(self, req: RouteRequest) -> RoutePlan:
        return self.plan

    @activity.defn(name=Activity.acp_start)
    async def acp_start(self, inp: AcpStartInput) -> AcpStarted:
        return AcpStarted(
            started=_started(), session_key=f"{inp.run_id}/{inp.attempt_seq}", worker_queue=inp.run_id
        )  # fmt: skip  (each test's run id is its worker's queue)

    @activity.defn(name=Activity.acp_turn)
    async def acp_turn(self, inp: AcpTurnInput) -> SessionTurnOutput:
        run = activity.client().get_workflow_handle(inp.run_id)
        for question_id, path in self.asks:
            self._open[question_id] = asyncio.get_running_loop().create_future()
            asked = PermissionAsked(session_key=inp.session_key, question_id=question_id, kind="edit", paths=(path,))
            await run.signal(PERMISSION_ASKED, asked)
            await self._open[question_id]
        output = SessionOutput(text="done", reported_model="m1", transcript_seq=inp.user_seq + 1)
        return SessionTurnOutput(started=inp.started, output=output)

    @activity.defn(name=Activity.acp_answer)
    async def acp_answer(self, inp: AcpAnswerInput) -> bool:
        future = self._open.get(inp.question_id)
        held = future is not None and not future.done()
        self.answers.append((inp.question_id, inp.allow, held))
        if future is not None and held:
            future.set_result(inp.allow)
        return held

    @activity.defn(name=Activity.acp_close)
    async def acp_close(self, inp: AcpCloseInput) -> None:
        return None

    @activity.defn(name=Activity.record_attempt)
    async def record_attempt(self, rec: AttemptRecord) -> None:
        return None

    @property
    def activities(self) -> list[object]:
        return [self.resolve_route, self.acp_start, self.acp_turn, self.acp_answer, self.acp_close,
                self.record_attempt]  # fmt: skip


@contextlib.asynccontextmanager
async def serving(client: Client, queue: str, agent: AskingAgent) -> AsyncIterator[None]:
    """The run's worker, and the same process polling the agent-start queue (as a worker with agent slots does)."""
    async with (
        Worker(client, task_queue=queue, workflows=[OfficeRunWorkflow], activities=agent.activities,
               workflow_runner=workflow_runner(sandboxed=True)),
        Worker(client, task_queue=acp_start_queue(queue), activities=[agent.acp_start]),
    ):  # fmt: skip
        yield


def asking_agent(*asks: tuple[str, str]) -> AskingAgent:
    """An agent on an ACP route whose workspace asks a person before any edit."""
    agent_plan = plan(permissions=PermissionPolicy(edit="ask", ask_timeout=60))
    agent_plan.candidates = [candidate("agent", profile=acp_profile(["agent"]))]
    return AskingAgent(agent_plan, asks=list(asks))


@contextlib.asynccontextmanager
async def asked_once(client: Client, agent: AskingAgent) -> AsyncIterator[WorkflowHandle]:
    """A run of `agent`, served, once its first question waits for a person (the run id is its worker's queue)."""
    queue = f"grants-{uuid.uuid4().hex[:8]}"
    req = RunRequest(run_id=queue, workspace="ws", agent="coder", prompt="write two files")
    async with serving(client, queue, agent):
        handle = await client.start_workflow(OfficeRunWorkflow.run, req, id=req.run_id, task_queue=queue)
        await eventually(lambda: run_view(client, handle.id), until=lambda v: len(_pending(v)) == 1,
                         timeout=30, what="the agent's first question")  # fmt: skip
        yield handle


def _started() -> SessionStarted:
    return SessionStarted(decision=settle_model(plan_model("m1", None, False, ["m1"]), reported="m1"),
                          model_to_send="m1", effective_model="m1")  # fmt: skip


async def test_a_forged_question_allowed_for_the_run_grants_nothing_and_the_agent_still_asks(client):
    agent = asking_agent(("real-a", "src/a.txt"), ("real-c", "other/c.txt"))
    async with asked_once(client, agent) as handle:
        for seq in range(3):  # whatever the attempt's number, one of these names the live session
            forged = PermissionAsked(session_key=f"{handle.id}/{seq}", question_id=f"forged-{seq}", kind="edit",
                                     paths=("other/forged.txt",))  # fmt: skip
            await handle.signal(PERMISSION_ASKED, forged)
        shown = await eventually(lambda: run_view(client, handle.id), until=lambda v: len(_pending(v)) == 2,
                                 timeout=30, what="the forged question shown")  # fmt: skip
        forged_id = next(q.question_id for q in _pending(shown) if q.paths == ("other/forged.txt",))
        await handle.execute_update(ANSWER_PERMISSION, PermissionAnswer(allow=True, for_run=True,
                                                                        question_id=forged_id))  # fmt: skip
        await handle.execute_update(ANSWER_PERMISSION, PermissionAnswer(allow=True, question_id="real-a"))
        # With a grant on other/ the agent's next question would be allowed by it; it must wait for a person.
        await eventually(lambda: run_view(client, handle.id),
                         until=lambda v: [q.question_id for q in _pending(v)] == ["real-c"],
                         timeout=30, what="the agent's second question waiting for a person")  # fmt: skip
        await handle.execute_update(ANSWER_PERMISSION, PermissionAnswer(allow=False, question_id="real-c"))
        view = await asyncio.wait_for(wait_for_view(client, handle.id), 60)

    assert view.status is RunStatus.completed, view.message
    assert [(q.paths, q.allowed, q.answered_by, q.for_run) for q in view.questions] == [
        (("src/a.txt",), True, "person", False),
        (("other/forged.txt",), True, "person", False),  # allowed, answered, but no grant: never the session's
        (("other/c.txt",), False, "person", False),
    ]
    assert sorted(agent.answers) == [(forged_id, True, False), ("real-a", True, True), ("real-c", False, True)]


async def test_a_question_the_session_asked_and_a_person_allowed_for_the_run_grants_the_next_one(client):
    agent = asking_agent(("real-a", "src/a.txt"), ("real-b", "src/b.txt"))
    async with asked_once(client, agent) as handle:
        await handle.execute_update(ANSWER_PERMISSION, PermissionAnswer(allow=True, for_run=True))
        view = await asyncio.wait_for(wait_for_view(client, handle.id), 60)

    assert view.status is RunStatus.completed, view.message
    assert [(q.paths, q.allowed, q.answered_by, q.for_run) for q in view.questions] == [
        (("src/a.txt",), True, "person", True),
        (("src/b.txt",), True, "grant", False),
    ]
    assert agent.answers == [("real-a", True, True), ("real-b", True, True)]
