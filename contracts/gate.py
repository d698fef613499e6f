"""The ceilings' gate: its activity names and typed stubs (workflows schedule these; the worker registers
activities.gate under the same names), the signal and update names a gate and its runs exchange, and the task
queue gates run on."""

from temporalio import activity

from routing.backlog import GATE_PREFIX, GateAsk, GateGrant, GateWake

ASK = "gate_ask"  # local: signal-with-start the gate (runs recorded before gate-enter-v1)
ENTER = "gate_enter"  # local, in the run's workflow task: update-with-start the gate, granted in its answer if free
RELEASE = "gate_release"  # local, in the run's last workflow task: signal its gates that its slots are free
VANISHED = "gate_vanished"  # local, in the gate's workflow task: which holders no longer run
WAKE = "gate_wake"  # local, in the gate's workflow task: a grant that wakes a run asked for at submission
GATE_WORKFLOW = "OfficeGateWorkflow"
RUN_WORKFLOW = "OfficeRunWorkflow"  # the runs a gate wakes (workflows.office_run's type name)
GRANTED_SIGNAL = "gate_granted"  # gate → run
ASK_SIGNAL = "ask"  # run (through gate_ask) → gate
ENTER_UPDATE = "enter"  # run (through gate_enter) → gate: answered with the grant, or None (queued: a signal follows)
RELEASE_SIGNAL = "release"  # run → gate, in the run's `finally` (through gate_release)
GATE_QUEUE_SUFFIX = "-gates"
IMPLEMENTED_BY_THE_WORKER = "a stub: the worker registers the implementation under this name"


@activity.defn(name=ASK)
async def gate_ask(ask: GateAsk) -> None:
    """Signal-with-start of the gate `ask.gate`, on the asking run's task queue."""
    raise NotImplementedError(IMPLEMENTED_BY_THE_WORKER)


def gate_queue(task_queue: str) -> str:
    """The task queue of the gates that runs on `task_queue` ask: its own, served by a worker of its own in each
    worker process, so a gate's workflow tasks never wait behind the runs that wait for its answer."""
    return task_queue if task_queue.endswith(GATE_QUEUE_SUFFIX) else f"{task_queue}{GATE_QUEUE_SUFFIX}"


@activity.defn(name=ENTER)
async def gate_enter(ask: GateAsk) -> GateGrant | None:
    """Update-with-start of the gate `ask.gate` on its task queue: the grant when a slot is free, else None."""
    raise NotImplementedError(IMPLEMENTED_BY_THE_WORKER)


@activity.defn(name=RELEASE)
async def gate_release(gates: list[str]) -> None:
    """Signals each of `gates` that the asking run's slot (or place in its backlog) is free."""
    raise NotImplementedError(IMPLEMENTED_BY_THE_WORKER)


@activity.defn(name=VANISHED)
async def gate_vanished(run_ids: list[str]) -> list[str]:
    """The runs among `run_ids` that are no longer running (terminated, timed out, ended without releasing)."""
    raise NotImplementedError(IMPLEMENTED_BY_THE_WORKER)


@activity.defn(name=WAKE)
async def gate_wake(wake: GateWake) -> bool:
    """Signal-with-start of the run `wake.run_id` with its grant, which ends its start delay; False when the run
    no longer runs (its slot goes to the next one)."""
    raise NotImplementedError(IMPLEMENTED_BY_THE_WORKER)


ALL = (gate_ask, gate_enter, gate_release, gate_vanished, gate_wake)
__all__ = ["ALL", "GATE_PREFIX", "gate_ask", "gate_enter", "gate_queue", "gate_release", "gate_vanished", "gate_wake"]
