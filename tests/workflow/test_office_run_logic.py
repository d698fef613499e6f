"""The office run's own logic — parks, durable waits, the attempt cap, user decisions, cancel — with mocked
activities registered under the real activity names, on the real dev server binary.

The time-skipping test server would make timers free, but it is a separate binary the SDK downloads at run time
(not available offline here); the durable wait below therefore uses a 2 s reset so it stays cheap in real time.
"""

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import pytest
from temporalio import activity
from temporalio.client import Client, WorkflowFailureError, WorkflowHandle, WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError
from temporalio.worker import Worker

from contracts import search_attributes as sa
from contracts.activities import (
    Activity,
    AttemptRecord,
    RouteRequest,
    SessionOutput,
    SessionStarted,
    SessionTurnInput,
    SessionTurnOutput,
)
from contracts.failures import WORKER_SHUTDOWN
from office.workflow_runner import workflow_runner
from routing.codes import ErrorCode
from routing.decider import ParkReason
from routing.model_policy import plan_model, settle_model
from routing.run import Ineligible, RoutePlan, RunRequest, RunStatus, RunView
from routing.selection import UserDecision
from testkit.eventually import eventually
from testkit.factories import plan, provider_failure
from workflows.office_run import OfficeRunWorkflow

SANDBOXED = workflow_runner(sandboxed=True)  # workers run outside it: here its restrictions check the workflow


@dataclass
class FakeActivities:
    """Plans in order of resolution (the last repeats); per provider, turn outcomes in order (then success)."""

    plans: list[RoutePlan]
    turns: dict[str, list[ApplicationError]] = field(default_factory=dict)
    resolved: list[RouteRequest] = field(default_factory=list)
    called: list[str] = field(default_factory=list)
    budgeted: list[bool] = field(default_factory=list)  # per call: did it spend the provider's retry budget
    recorded: list[AttemptRecord] = field(default_factory=list)

    @activity.defn(name=Activity.resolve_route)
    async def resolve_route(self, req: RouteRequest) -> RoutePlan:
        self.resolved.append(req)
        return self.plans[min(len(self.resolved), len(self.plans)) - 1]

    @activity.defn(name=Activity.session_turn)
    async def session_turn(self, inp: SessionTurnInput) -> SessionTurnOutput:
        provider = inp.candidate.provider
        self.called.append(provider)
        self.budgeted.append(inp.is_retry)
        if self.turns.get(provider):
            raise self.turns[provider].pop(0)
        decision = settle_model(plan_model("m1", None, False, ["m1"]), reported="m1")
        started = SessionStarted(decision=decision, model_to_send="m1", effective_model="m1")
        output = SessionOutput(text=f"answer from {provider}", reported_model="m1", transcript_seq=inp.user_seq + 1)
        return SessionTurnOutput(started=started, output=output)

    @activity.defn(name=Activity.record_attempt)
    async def record_attempt(self, rec: AttemptRecord) -> None:
        self.recorded.append(rec)


@pytest.fixture
async def run(client: Client) -> AsyncIterator[Callable[[FakeActivities], object]]:
    """Starts the workflow against a worker whose activities are `fakes`; yields the run's handle."""
    workers: list[Worker] = []

    async def start(fakes: FakeActivities, pinned: bool = False) -> WorkflowHandle:
        queue = f"logic-{uuid.uuid4().hex[:8]}"
        worker = Worker(client, task_queue=queue, workflows=[OfficeRunWorkflow], workflow_runner=SANDBOXED,
                        activities=[fakes.resolve_route, fakes.session_turn, fakes.record_attempt])  # fmt: skip
        workers.append(worker)
        asyncio.get_running_loop().create_task(worker.run())
        req = RunRequest(run_id=f"logic-{uuid.uuid4().hex[:8]}", workspace="ws", agent="coder", prompt="task",
                         pin_providers=["a"] if pinned else [])  # fmt: skip
        return await client.start_workflow(OfficeRunWorkflow.run, req, id=req.run_id, task_queue=queue)

    yield start
    for worker in workers:
        await worker.shutdown()


async def parked(handle: WorkflowHandle) -> RunView:
    """The run's view once it has parked (the query answers from the workflow's state on each task)."""
    async with asyncio.timeout(20):
        while True:
            view = await handle.query(OfficeRunWorkflow.status)
            if view is not None and view.status is RunStatus.parked:
                return view
            await asyncio.sleep(0.05)


async def test_attempt_cap_ends_the_run_with_the_actionable_message(run):
    fakes = FakeActivities(
        [plan("a", "b", max_attempts=2)],
        turns={"a": [provider_failure(ErrorCode.auth_required)], "b": [provider_failure(ErrorCode.auth_required)]},
    )
    handle = await run(fakes)
    with pytest.raises(WorkflowFailureError) as err:
        await handle.result()
    assert fakes.called == ["a", "b"]  # the cap counts failed attempts: no third call anywhere
    view = RunView.model_validate(err.value.cause.details[0])
    assert view.status is RunStatus.failed and view.error_code == "auth_required"
    assert [a.source for a in view.attempts] == ["default", "auto"]
    assert len(fakes.recorded) == 2


async def test_rate_limits_never_count_toward_the_attempt_cap(run):
    limited = provider_failure(ErrorCode.rate_limited, retry_after_s=0.1)
    fakes = FakeActivities(
        [plan("a", "b", max_attempts=2)],
        turns={"a": [limited, limited, limited], "b": [provider_failure(ErrorCode.provider_unavailable)]},
    )
    handle = await run(fakes)
    done = await handle.result()  # with rate limits counted, the second of a's 429s would have ended the run
    assert done.status is RunStatus.completed and done.output == "answer from b"
    assert fakes.called == ["a", "a", "a", "b", "b"]


async def test_a_lost_worker_is_retried_on_the_same_route_at_no_cost_to_the_provider(run):
    """Three turns lost with their worker (a shutdown mid-activity) and a cap of two attempts: the run stays on
    its provider and completes; nothing was budgeted, counted or written to the provider's health."""
    shutdown = ApplicationError("the worker shut down", type=WORKER_SHUTDOWN, non_retryable=True)
    fakes = FakeActivities([plan("a", "b", max_attempts=2)], turns={"a": [shutdown, shutdown, shutdown]})
    handle = await run(fakes)
    done = await handle.result()
    assert done.status is RunStatus.completed and done.output == "answer from a" and done.fallback_count == 0
    assert (fakes.called, fakes.budgeted) == (["a"] * 4, [False] * 4)
    lost = [(r.failure.code, r.decision.kind, r.decision.health) for r in fakes.recorded if r.failure and r.decision]
    assert lost == [(ErrorCode.worker_lost, "short_retry", None)] * 3
    named = [a.excerpt or "" for a in done.attempts[:3]]
    assert all(e.startswith("worker lost: worker ") and e.endswith(" shut down") for e in named), named


async def test_a_worker_without_the_turn_activity_is_a_lost_worker_never_the_providers_fault(run):
    """A worker of another version on the queue takes the turn but has no such activity: the SDK fails it as
    NotFoundError (the text below is the SDK's). That is the office's fault: the same route again, no fallback, no
    health effect; before, it was read as the provider's unknown error and ended the run."""
    missing = ApplicationError(
        "Activity function session_turn for workflow w is not registered on this worker, available activities: "
        "record_attempt, resolve_route",
        type="NotFoundError",
    )
    fakes = FakeActivities([plan("a", "b", max_attempts=2)], turns={"a": [missing, missing]})
    handle = await run(fakes)
    done = await handle.result()
    assert done.status is RunStatus.completed and done.output == "answer from a" and done.fallback_count == 0
    lost = [(r.failure.code, r.failure.rule, r.decision.health) for r in fakes.recorded if r.failure and r.decision]
    assert lost == [(ErrorCode.worker_lost, "worker.activity_not_registered", None)] * 2
    assert all("does not run session_turn" in (a.excerpt or "") for a in done.attempts[:2]), done.attempts


async def test_a_parked_run_waits_for_resume_then_re_resolves_its_route(run):
    fakes = FakeActivities([plan("a"), plan("a")], turns={"a": [provider_failure(ErrorCode.auth_required)]})
    handle = await run(fakes)
    view = await parked(handle)
    assert view.park_reason is ParkReason.blocked_provider_action_required
    assert fakes.called == ["a"]  # parked runs never spin
    await handle.signal(OfficeRunWorkflow.resume)
    done = await handle.result()
    assert done.status is RunStatus.completed and done.output == "answer from a"
    assert [r.retry_blocked for r in fakes.resolved] == [False, True]


async def test_quota_with_a_reset_waits_durably_and_continues_without_the_user(run):
    fakes = FakeActivities([plan("a")], turns={"a": [provider_failure(ErrorCode.quota_limited, retry_after_s=2)]})
    handle = await run(fakes)
    view = await parked(handle)
    assert view.park_reason is ParkReason.waiting_for_provider_capacity
    done = await handle.result()  # the timer, not a signal, ends the wait
    assert done.status is RunStatus.completed and fakes.called == ["a", "a"]
    assert [r.retry_blocked for r in fakes.resolved] == [False, False]


async def test_a_pinned_run_asks_the_user_and_runs_the_approved_substitute_once(run):
    fakes = FakeActivities(
        [plan("a", pinned=True), plan("b")], turns={"a": [provider_failure(ErrorCode.auth_required)]}
    )
    handle = await run(fakes, pinned=True)
    view = await parked(handle)
    assert view.park_reason is ParkReason.awaiting_user_decision
    await handle.execute_update(OfficeRunWorkflow.user_decision, UserDecision(action="substitute", provider="b"))
    done = await handle.result()
    assert done.status is RunStatus.completed and done.provider == "b"
    assert fakes.resolved[-1].substitute is not None and fakes.resolved[-1].substitute.provider == "b"


async def test_a_decision_is_refused_unless_the_run_awaits_one(run):
    fakes = FakeActivities([plan("a")], turns={"a": [provider_failure(ErrorCode.auth_required)]})
    handle = await run(fakes)
    await parked(handle)  # parked for provider action, not for a decision
    with pytest.raises(WorkflowUpdateFailedError) as refused:
        await handle.execute_update(OfficeRunWorkflow.user_decision, UserDecision(action="retry"))
    assert "not awaiting a decision" in str(refused.value.cause)
    await handle.cancel()


async def test_cancelling_a_parked_run_ends_it_cancelled(run):
    fakes = FakeActivities([plan("a")], turns={"a": [provider_failure(ErrorCode.auth_required)]})
    handle = await run(fakes)
    await parked(handle)
    await handle.cancel()
    with pytest.raises(WorkflowFailureError):
        await handle.result()
    view = await handle.query(OfficeRunWorkflow.status)
    assert view is not None and view.status is RunStatus.cancelled


async def test_a_model_gone_everywhere_fails_at_once_naming_the_model(run):
    gone = Ineligible(provider="a", reason="model m1 gone", code=ErrorCode.model_unavailable.value)
    fakes = FakeActivities([plan(ineligible=[gone])])
    handle = await run(fakes)
    with pytest.raises(WorkflowFailureError) as err:
        await handle.result()
    assert fakes.called == []
    assert "m1" in str(err.value.cause) and "Change the model" in str(err.value.cause)


async def test_a_foreign_start_with_input_that_does_not_validate_fails_at_once_naming_the_fields(client):
    queue = f"logic-{uuid.uuid4().hex[:8]}"
    async with Worker(client, task_queue=queue, workflows=[OfficeRunWorkflow], workflow_runner=SANDBOXED):
        handle = await client.start_workflow("OfficeRunWorkflow", {"bad": 1}, id=queue, task_queue=queue)
        with pytest.raises(WorkflowFailureError) as err:
            await asyncio.wait_for(handle.result(), timeout=30)  # not a workflow task retried without end
    message = str(err.value.cause)
    assert "invalid RunRequest" in message and "workspace: Field required" in message and "prompt" in message


@dataclass
class NoSuchWorkspace(FakeActivities):
    @activity.defn(name=Activity.resolve_route)
    async def resolve_route(self, req: RouteRequest) -> RoutePlan:
        raise ApplicationError("workspace 'nope' does not exist; create it with `office workspace set`",
                               type="ConfigError", non_retryable=True)  # fmt: skip


async def test_a_bad_workspace_fails_as_configuration_and_the_list_shows_it_failed(run, client):
    handle = await run(NoSuchWorkspace([]))
    with pytest.raises(WorkflowFailureError) as err:
        await handle.result()
    assert "workspace 'nope' does not exist" in str(err.value.cause)
    async with asyncio.timeout(10):  # the status was upserted before the failure; describe reads it back
        while (attrs := (await handle.describe()).typed_search_attributes).get(sa.STATUS) != "failed":  # noqa: ASYNC110
            await asyncio.sleep(0.05)
    assert attrs.get(sa.ERROR_CODE) == "invalid_configuration"


async def test_a_run_id_that_is_not_the_workflow_id_is_refused(client):
    queue = f"logic-{uuid.uuid4().hex[:8]}"
    fakes = FakeActivities([plan("a")])
    req = RunRequest(run_id="someone-else", workspace="ws", agent="coder", prompt="task")
    async with Worker(client, task_queue=queue, workflows=[OfficeRunWorkflow], workflow_runner=SANDBOXED,
                      activities=[fakes.resolve_route, fakes.session_turn, fakes.record_attempt]):  # fmt: skip
        handle = await client.start_workflow(OfficeRunWorkflow.run, req, id=queue, task_queue=queue)
        with pytest.raises(WorkflowFailureError) as err:
            await handle.result()
    assert "run_id 'someone-else' differs from the workflow id" in str(err.value.cause)
    assert fakes.called == [] and fakes.resolved == []  # nothing was written under the other id


async def test_a_store_outage_past_the_activitys_bound_is_waited_out_and_never_counted_against_the_provider(run):
    store_down = ApplicationError("the store stayed unreachable", type="StoreUnavailable")  # retryable: infra
    fakes = FakeActivities([plan("a", "b", max_attempts=1)], turns={"a": [store_down]})
    done = await (await run(fakes)).result()
    assert done.status is RunStatus.completed and done.provider == "a"  # no fallback, the cap of 1 untouched
    assert fakes.called == ["a", "a"] and fakes.recorded == []  # the same attempt again, no failed attempt row
    assert [(a.seq, a.outcome) for a in done.attempts] == [(1, "succeeded")]


async def current_details(handle: WorkflowHandle) -> str:
    """What the Temporal UI shows as the run's current details."""
    from temporalio.api.sdk.v1 import WorkflowMetadata

    meta = await handle.query("__temporal_workflow_metadata", result_type=WorkflowMetadata)
    return meta.current_details


async def test_a_short_retry_shows_its_end_in_the_view_and_its_countdown_in_the_ui(run):
    fakes = FakeActivities([plan("a")], turns={"a": [provider_failure(ErrorCode.rate_limited, retry_after_s=1)]})
    handle = await run(fakes)
    view = await eventually(
        lambda: handle.query(OfficeRunWorkflow.status), until=lambda v: v and v.retry_at, timeout=20, what="a retry"
    )
    assert view.status is RunStatus.running and view.provider == "a"
    assert (await current_details(handle)).startswith("retrying on a in 1 s")
    done = await handle.result()
    assert done.status is RunStatus.completed and done.retry_at is None and fakes.called == ["a", "a"]
    assert await current_details(handle) == ""  # over: no step left (and no branch: no repository)


async def test_a_run_waiting_for_a_decision_says_so_in_the_ui(run):
    fakes = FakeActivities([plan("a", pinned=True)], turns={"a": [provider_failure(ErrorCode.auth_required)]})
    handle = await run(fakes, pinned=True)
    view = await parked(handle)
    assert (await current_details(handle)).startswith(f"waiting for a person (awaiting_user_decision): {view.message}")
    await handle.cancel()
