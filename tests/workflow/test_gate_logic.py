"""The gate workflow on its own, on the real dev server binary: stand-in runs (workflows that only record their
grant), asks and releases sent as the runs' local activities send them. It grants in order up to the ceiling,
keeps its holders and backlog across continue-as-new, frees a vanished holder's slot, and a grant to a run that is
gone goes to the next one; an ask by update is answered with the grant when a slot is free, else queued and
granted by signal later; a gate started on the runs' queue moves to the gates' own as it continues as new."""

import uuid
from datetime import UTC, datetime

from temporalio import activity, workflow
from temporalio.client import WithStartWorkflowOperation
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.worker import Worker

from contracts import gate as contract
from office.workflow_runner import workflow_runner
from routing.backlog import GateAsk, GateGrant, GateState, RunPriority, Waiting
from testkit.eventually import eventually
from workflows.gate import GateWorkflow

T0 = datetime(2026, 12, 2, 8, 0, tzinfo=UTC)


@workflow.defn(name="StandInRun", sandboxed=False)  # a test double: the gate is what runs sandboxed
class StandInRun:
    def __init__(self) -> None:
        self.grants: list[int] = []

    @workflow.run
    async def run(self) -> None:
        await workflow.wait_condition(lambda: False)

    @workflow.signal(name=contract.GRANTED_SIGNAL)
    def granted(self, grant: GateGrant) -> None:
        self.grants.append(grant.grant)

    @workflow.query
    def seen(self) -> list[int]:
        return self.grants


vanished: set[str] = set()


@activity.defn(name=contract.VANISHED)
async def gate_vanished(run_ids: list[str]) -> list[str]:
    return [r for r in run_ids if r in vanished]


async def test_the_gate_grants_in_order_keeps_its_state_across_continue_as_new_and_frees_vanished_holders(client):
    queue = f"gate-{uuid.uuid4().hex[:8]}"
    gate_id = f"office-gate:workspace:{queue}"
    runs = [f"{queue}-run-{i}" for i in range(6)]
    gates = contract.gate_queue(queue)
    async with (
        Worker(client, task_queue=queue, workflows=[GateWorkflow, StandInRun], activities=[gate_vanished],
               workflow_runner=workflow_runner(sandboxed=True)),
        Worker(client, task_queue=gates, workflows=[GateWorkflow], activities=[gate_vanished],
               workflow_runner=workflow_runner(sandboxed=True)),
    ):  # fmt: skip
        handles = [await client.start_workflow(StandInRun.run, id=r, task_queue=queue) for r in runs]
        state = GateState(scope=gate_id, check_every_s=1, history_bound=40)  # continues as new every few grants
        for i, r in enumerate(runs):
            ask = GateAsk(
                gate=gate_id, waiting=Waiting(run_id=r, workspace="w", limit=2, submitted_at=T0.replace(second=i))
            )
            await client.start_workflow(
                contract.GATE_WORKFLOW, state, id=gate_id, task_queue=queue,
                start_signal=contract.ASK_SIGNAL, start_signal_args=[ask],
            )  # fmt: skip
        gate = client.get_workflow_handle(gate_id)
        first_run = (await gate.describe()).run_id

        async def grants() -> list[list[int]]:
            return [await h.query(StandInRun.seen) for h in handles]

        assert await eventually(grants, until=lambda g: g[0] and g[1], timeout=20, what="two holders") == [
            [1], [2], [], [], [], []
        ]  # fmt: skip
        await handles[2].terminate("gone while it waited")  # its grant will fail: the slot goes on
        for r in runs[:2]:
            await gate.signal(contract.RELEASE_SIGNAL, r)
        seen = await eventually(grants, until=lambda g: g[3] and g[4], timeout=20, what="the next two holders")
        assert seen[3] == [4] and seen[4] == [5] and seen[5] == []  # grant 3 went to the terminated run
        vanished.add(runs[3])  # ends without releasing: the gate finds it
        await handles[3].terminate("vanished holder")
        seen = await eventually(grants, until=lambda g: g[5], timeout=20, what="the vanished holder's slot")
        assert seen[5] == [6]
        snapshot = await gate.query(GateWorkflow.snapshot)
        assert [h.run_id for h in snapshot.holders] == [runs[4], runs[5]] and snapshot.backlog == []
        moved = await gate.describe()
        assert moved.run_id != first_run  # it continued as new, state and all
        assert moved.task_queue == gates  # started on the runs' queue (as runs before gate-enter-v1 did): moved
        await gate.terminate("test over")
        for h in handles[4:]:
            await h.terminate("test over")


async def test_an_ask_by_update_is_granted_in_its_answer_when_a_slot_is_free_else_later_by_signal(client):
    queue = f"gate-{uuid.uuid4().hex[:8]}"
    gate_id = f"office-gate:workspace:{queue}"
    gates = contract.gate_queue(queue)
    runs = [f"{queue}-run-{i}" for i in range(4)]
    async with (
        Worker(client, task_queue=queue, workflows=[StandInRun], workflow_runner=workflow_runner(sandboxed=True)),
        Worker(client, task_queue=gates, workflows=[GateWorkflow], activities=[gate_vanished],
               workflow_runner=workflow_runner(sandboxed=True)),
    ):  # fmt: skip
        handles = [await client.start_workflow(StandInRun.run, id=r, task_queue=queue) for r in runs]

        async def enter(i: int, priority: RunPriority = RunPriority.default) -> GateGrant | None:
            waiting = Waiting(run_id=runs[i], workspace="w", priority=priority, limit=1,
                              submitted_at=T0.replace(second=i))  # fmt: skip
            start = WithStartWorkflowOperation(
                contract.GATE_WORKFLOW, GateState(scope=gate_id), id=gate_id, task_queue=gates,
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
            )  # fmt: skip
            return await client.execute_update_with_start_workflow(
                contract.ENTER_UPDATE, GateAsk(gate=gate_id, waiting=waiting), start_workflow_operation=start,
                result_type=GateGrant,
            )  # fmt: skip

        first = await enter(0)
        assert first is not None and first.grant == 1  # a free slot: granted in the answer, no signal
        assert await enter(1) is None and await enter(2) is None  # full: queued, in order
        assert await enter(3, RunPriority.interactive) is None
        again = await enter(0)  # a holder whose worker lost the answer asks again: the same grant
        assert again is not None and again.grant == 1
        gate = client.get_workflow_handle(gate_id)
        await gate.signal(contract.RELEASE_SIGNAL, runs[0])

        async def grants() -> list[list[int]]:
            return [await h.query(StandInRun.seen) for h in handles]

        seen = await eventually(grants, until=lambda g: g[3], timeout=20, what="the interactive run's grant")
        assert seen == [[], [], [], [2]]  # by signal, to the interactive run first
        await gate.signal(contract.RELEASE_SIGNAL, runs[3])
        seen = await eventually(grants, until=lambda g: g[1], timeout=20, what="the next grant")
        assert seen == [[], [3], [], [2]]
        await gate.terminate("test over")
        for h in handles:
            await h.terminate("test over")
