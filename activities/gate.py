"""The ceilings' two activities, both local (they run inside the asking workflow's own task on an office worker):
`gate_ask` signal-with-starts a run's gate, `gate_vanished` tells a gate which holders no longer run."""

import asyncio
import os

from temporalio import activity
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.common import Priority
from temporalio.service import RPCError, RPCStatusCode

from activities.boundary import local_only
from contracts import gate as contract
from contracts.failures import refused
from routing.backlog import CHECK_EVERY_S, GateAsk, GateState, ScopeKind

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

    @activity.defn(name=contract.ASK)
    async def gate_ask(self, ask: GateAsk) -> None:
        local_only(contract.ASK)
        info = activity.info()
        if ask.waiting.run_id != info.workflow_id:  # a run asks for itself only
            raise refused("a run asks a gate for its own slot only")
        kind = ask.gate.split(":")[1] if ask.gate.count(":") >= 2 else ""
        if not ask.gate.startswith(f"{contract.GATE_PREFIX}:") or kind not in ScopeKind.__members__:
            raise refused("not a gate id")
        state = GateState(scope=ask.gate, promote_after_s=ask.promote_after_s, check_every_s=self.check_every_s)
        await self.client.start_workflow(
            contract.GATE_WORKFLOW,
            state,
            id=ask.gate,
            task_queue=info.task_queue,  # the asking run's: the workers that serve it serve its gate
            start_signal=contract.ASK_SIGNAL,
            start_signal_args=[ask],
            static_summary=f"ceiling {ask.gate.removeprefix(contract.GATE_PREFIX + ':')}",
            priority=GATE_PRIORITY,
        )

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
