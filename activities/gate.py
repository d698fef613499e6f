"""The ceilings' activities, all local (they run inside the asking workflow's own task on an office worker):
`gate_enter` update-with-starts a run's gate and returns its grant when a slot is free, `gate_release` signals the
run's gates at its end, `gate_vanished` tells a gate which holders no longer run, `gate_wake` gives a run its
submitter asked for (`office submit`, through `ask_by_signal`) its grant by signal-with-start, which ends its start
delay. `gate_ask` (signal-with-start, the grant always by signal) serves runs that began before gate-enter-v1."""

import asyncio
import os

from temporalio import activity
from temporalio.client import Client, WithStartWorkflowOperation, WorkflowExecutionStatus
from temporalio.common import Priority, WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.service import RPCError, RPCStatusCode

from activities.boundary import local_only
from contracts import gate as contract
from contracts.failures import refused
from routing.backlog import CHECK_EVERY_S, GateAsk, GateGrant, GateState, GateWake, ScopeKind

CHECK_ENV = "OFFICE_GATE_CHECK_S"  # how often a full gate with a backlog checks its holders (default 30 s)
DESCRIBE_AT_ONCE = 16
# Every grant passes through the gate's tasks: they go before any run's (an interactive run's included).
GATE_PRIORITY = Priority(priority_key=1)


def check_every_s() -> float:
    try:
        value = float(os.environ.get(CHECK_ENV, CHECK_EVERY_S))
    except ValueError:
        return CHECK_EVERY_S
    return value if value > 0 else CHECK_EVERY_S


class GateActivities:
    def __init__(self, client: Client):
        self.client = client
        self.check_every_s = check_every_s()

    @activity.defn(name=contract.ENTER)
    async def gate_enter(self, ask: GateAsk) -> GateGrant | None:
        local_only(contract.ENTER)
        info = activity.info()
        state = self._first_state(ask, info.workflow_id)
        start: WithStartWorkflowOperation[GateState, None] = WithStartWorkflowOperation(
            contract.GATE_WORKFLOW,
            state,
            id=ask.gate,
            task_queue=contract.gate_queue(info.task_queue),  # the gates' own: their tasks never wait behind runs
            id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
            static_summary=_summary(ask.gate),
            priority=GATE_PRIORITY,
        )
        got: GateGrant | None = await self.client.execute_update_with_start_workflow(
            contract.ENTER_UPDATE,
            ask,
            start_workflow_operation=start,
            result_type=GateGrant,  # None: a null payload
        )
        return got

    @activity.defn(name=contract.RELEASE)
    async def gate_release(self, gates: list[str]) -> None:
        local_only(contract.RELEASE)
        run_id = activity.info().workflow_id  # a run frees its own slots only

        async def release(gate: str) -> None:
            if not _is_gate(gate):
                raise refused("not a gate id")
            try:
                await self.client.get_workflow_handle(gate).signal(contract.RELEASE_SIGNAL, run_id)
            except RPCError as err:  # the gate is gone (an operator terminated it): a new one starts with nobody
                if err.status != RPCStatusCode.NOT_FOUND:
                    raise
                activity.logger.warning("could not release %s: the gate is gone", gate)

        await asyncio.gather(*(release(g) for g in gates))

    @activity.defn(name=contract.ASK)
    async def gate_ask(self, ask: GateAsk) -> None:
        local_only(contract.ASK)
        info = activity.info()
        _own_slot_only(ask, info.workflow_id)
        await ask_by_signal(self.client, ask, info.task_queue, self.check_every_s)

    @activity.defn(name=contract.WAKE)
    async def gate_wake(self, wake: GateWake) -> bool:
        local_only(contract.WAKE)
        try:
            desc = await self.client.get_workflow_handle(wake.run_id).describe()
        except RPCError as err:
            if err.status == RPCStatusCode.NOT_FOUND:
                return False
            raise
        if desc.status != WorkflowExecutionStatus.RUNNING or desc.workflow_type != contract.RUN_WORKFLOW:
            return False  # ended (cancelled while it waited), or no run: a gate wakes office runs only
        # Signal-with-start signals the running run and ends its start delay; its arguments start nothing: a run
        # that ended meanwhile is refused (REJECT_DUPLICATE), and one that runs ignores them.
        await self.client.start_workflow(
            contract.RUN_WORKFLOW,
            None,
            id=wake.run_id,
            task_queue=desc.task_queue,
            start_signal=contract.GRANTED_SIGNAL,
            start_signal_args=[wake.grant],
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
        )
        return True

    def _first_state(self, ask: GateAsk, run_id: str | None) -> GateState:
        """The state a gate starts with when this ask, the asking run's own, is its first."""
        _own_slot_only(ask, run_id)
        return first_state(ask, self.check_every_s)

    @activity.defn(name=contract.VANISHED)
    async def gate_vanished(self, run_ids: list[str]) -> list[str]:
        local_only(contract.VANISHED)
        limit = asyncio.Semaphore(DESCRIBE_AT_ONCE)

        async def gone(run_id: str) -> bool:
            async with limit:
                try:
                    desc = await self.client.get_workflow_handle(run_id).describe()
                except RPCError as err:
                    if err.status == RPCStatusCode.NOT_FOUND:
                        return True
                    raise
                return desc.status != WorkflowExecutionStatus.RUNNING

        flags = await asyncio.gather(*(gone(r) for r in run_ids))
        return [r for r, flag in zip(run_ids, flags, strict=True) if flag]


def first_state(ask: GateAsk, check_every: float) -> GateState:
    """The state a gate starts with when this ask is its first."""
    if not _is_gate(ask.gate):
        raise refused("not a gate id")
    return GateState(scope=ask.gate, promote_after_s=ask.promote_after_s, check_every_s=check_every)


async def ask_by_signal(client: Client, ask: GateAsk, task_queue: str, check_every: float | None = None) -> None:
    """Signal-with-start of the gate `ask.gate` for runs on `task_queue`: the ask is queued in order, its grant
    follows by signal (by signal-with-start when `ask.waiting.wake`). Needs no worker: the server keeps it."""
    await client.start_workflow(
        contract.GATE_WORKFLOW,
        first_state(ask, check_every_s() if check_every is None else check_every),
        id=ask.gate,
        task_queue=contract.gate_queue(task_queue),
        start_signal=contract.ASK_SIGNAL,
        start_signal_args=[ask],
        static_summary=_summary(ask.gate),
        priority=GATE_PRIORITY,
    )


def _own_slot_only(ask: GateAsk, run_id: str | None) -> None:
    if ask.waiting.run_id != run_id:  # a run asks for itself only
        raise refused("a run asks a gate for its own slot only")


def _summary(gate: str) -> str:
    """What the Temporal UI lists a gate as."""
    return f"ceiling {gate.removeprefix(contract.GATE_PREFIX + ':')}"


def _is_gate(gate: str) -> bool:
    kind = gate.split(":")[1] if gate.count(":") >= 2 else ""
    return gate.startswith(f"{contract.GATE_PREFIX}:") and kind in ScopeKind.__members__
