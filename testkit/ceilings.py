"""Ceilings on a test stack: set a workspace's or a provider's, read its gate, and judge what happened from outside
the scheduler (the provider's own record of the calls it answered) and from the runs' views."""

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

from temporalio.client import Client

import office.runs
from routing.backlog import GateState, ScopeKind, gate_id
from routing.run import RunView
from testkit.stack import Stack
from workflows.gate import GateWorkflow


@contextlib.contextmanager
def asked_by_each_run() -> Iterator[None]:
    """`office submit` leaves the gate alone and each run asks it in its own first task (as before
    gate-asked-at-submission-v1, and as runs a schedule or the Temporal client starts do)."""
    validate = office.runs.validate_submission

    async def unasked(*args: Any, **kwargs: Any) -> office.runs.Validated:
        return (await validate(*args, **kwargs))._replace(max_concurrent_runs=None)

    office.runs.validate_submission = unasked
    try:
        yield
    finally:
        office.runs.validate_submission = validate


async def set_workspace_ceiling(stack: Stack, workspace: str, agent: str, max_concurrent_runs: int | None) -> None:
    ws, _ = await stack.store.configs(workspace, agent)
    assert ws is not None, workspace
    await stack.store.save_workspace(ws.model_copy(update={"max_concurrent_runs": max_concurrent_runs}))


async def workspace_gate(stack: Stack, workspace: str, client: Client | None = None) -> GateState | None:
    """The workspace gate's state (holders and backlog) as its `snapshot` query answers; None before any run asked.
    `client`: the server the gate lives on, when not the stack's."""
    handle = (client or stack.client).get_workflow_handle(gate_id(ScopeKind.workspace, workspace))
    try:
        return await handle.query(GateWorkflow.snapshot)
    except Exception:
        return None


def peak_overlap(calls: Sequence[dict[str, Any]]) -> int:
    """The most runs the provider was answering at one time, from its own record of each call (start `at`, end
    `at_end`), a run known by its prompt (the first user message). A run's calls count once: an attempt abandoned
    by a lost worker is still "answered" by the simulator while the run's next attempt runs elsewhere."""
    edges = sorted(
        [(c["at"], 1, run_of(c)) for c in calls] + [(c.get("at_end", c["at"]), -1, run_of(c)) for c in calls]
    )
    active: dict[str, int] = {}
    peak = 0
    for _, step, run in edges:  # an end before a start at the same instant: touching calls do not overlap
        active[run] = active.get(run, 0) + step
        if active[run] == 0:
            del active[run]
        peak = max(peak, len(active))
    return peak


def run_of(call: dict[str, Any]) -> str:
    users = [m for m in call.get("messages") or [] if m.get("role") == "user"]
    return str(users[0]["content"]) if users else str(id(call))


def fifo_violations(views_in_submission_order: Sequence[RunView]) -> int:
    """Pairs of runs of one class where the later submitted got its slot first although the earlier one's ask had
    reached the gate by then (an ask still on its way cannot be served: that is no violation)."""
    found = 0
    queues = [v.queue for v in views_in_submission_order if v.queue is not None and v.queue.grant is not None]
    for i, a in enumerate(queues):
        for b in queues[i + 1 :]:
            if a.priority != b.priority or a.arrival is None or b.asks_at_grant is None:
                continue
            if (b.grant or 0) < (a.grant or 0) and a.arrival < b.asks_at_grant:
                found += 1
    return found
