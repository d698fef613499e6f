"""The ceilings' gate: its activity names and typed stubs (workflows schedule these; the worker registers
activities.gate under the same names) and the signal names a gate and its runs exchange."""

from temporalio import activity

from routing.backlog import GATE_PREFIX, GateAsk

ASK = "gate_ask"  # local, in the run's workflow task: signal-with-start the gate
VANISHED = "gate_vanished"  # local, in the gate's workflow task: which holders no longer run
GATE_WORKFLOW = "OfficeGateWorkflow"
GRANTED_SIGNAL = "gate_granted"  # gate → run
ASK_SIGNAL = "ask"  # run (through gate_ask) → gate
RELEASE_SIGNAL = "release"  # run → gate, in the run's `finally`
IMPLEMENTED_BY_THE_WORKER = "a stub: the worker registers the implementation under this name"


@activity.defn(name=ASK)
async def gate_ask(ask: GateAsk) -> None:
    """Signal-with-start of the gate `ask.gate`, on the asking run's task queue."""
    raise NotImplementedError(IMPLEMENTED_BY_THE_WORKER)


@activity.defn(name=VANISHED)
async def gate_vanished(run_ids: list[str]) -> list[str]:
    """The runs among `run_ids` that are no longer running (terminated, timed out, ended without releasing)."""
    raise NotImplementedError(IMPLEMENTED_BY_THE_WORKER)


ALL = (gate_ask, gate_vanished)
__all__ = ["ALL", "GATE_PREFIX", "gate_ask", "gate_vanished"]
