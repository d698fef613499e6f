"""When a run continues as new: between turns, once its history nears the workspace's HistoryBound (events or
bytes) or the server suggests it. The run id users see (the workflow id) stays; the carried state
(contracts.carried.CarriedState) is the continued run's second argument."""

from collections.abc import Callable

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from routing.conversation import HistoryBound

# Runs recorded before it never continued as new: a replay of theirs keeps going in the same history.
CONTINUE_AS_NEW = "continue-as-new-v1"


def due(bound: HistoryBound, carried_bytes: Callable[[], int]) -> bool:
    """True when this run should continue as new before its next turn (a patch marker is written the first time).
    `carried_bytes`: the size of what the run would carry, which the event that continues it holds."""
    info = workflow.info()
    events, size = info.get_current_history_length(), info.get_current_history_size()
    full = bound.reached(events, size) or bound.reached(events, size + carried_bytes())
    return (full or info.is_continue_as_new_suggested()) and workflow.patched(CONTINUE_AS_NEW)
