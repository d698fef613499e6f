"""Ceilings, priority and fairness, measured side by side in one run on a real dev server (fairness on, as
`office dev` starts it) with the provider simulator in its own process:

1. `ceiling`: RUNS runs against a workspace ceiling of CEILING: the peak in flight (the provider's own record of
   overlapping calls, and the gate's holders sampled), all completed, FIFO violations.
2. `fairness`: a workspace's run start latency (p99 of TRIES) with no flood, with another workspace flooding the
   same worker with FLOOD runs (fairness key = workspace), and, as a control, the same flood without fairness keys.
   The worker has ACTIVITY_SLOTS activity slots, so the flood backlogs in Temporal's task queue.
3. `interactive`: an interactive run's start latency (p99 of TRIES, one after another) behind BACKLOG batch runs
   queued at a workspace ceiling of CEILING.

Start latency: from the run's WorkflowExecutionStarted to the start of its first provider call (its first
session_turn ActivityTaskStarted), both read from the run's history (server times, not this process's clock).

Scaled to a 2-core machine shared with other work (the issue asks for 500 batch runs behind an interactive one
and a flood of 1,000): BACKLOG, FLOOD are set below; `python -m bench.ceilings` runs it and prints JSON."""

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.common import Priority

import office.runs
from bench.common import bench_stack, bounded
from bench.scale import percentile
from contracts.activities import Activity
from office.runs import RunHandle, submit, wait_for_view
from office.settings import WorkerSizing
from office.simulator.config import SimProvider
from office.worker_runtime import office_worker
from routing.backlog import RunPriority
from routing.run import RunRequest, RunStatus, RunView
from testkit.ceilings import fifo_violations, peak_overlap, run_of, set_workspace_ceiling, workspace_gate
from testkit.stack import Stack

CEILING, RUNS, RUN_LATENCY_MS = 5, 200, 200
FLOOD, FLOOD_LATENCY_MS, ACTIVITY_SLOTS = 150, 1000, 20
BACKLOG, BACKLOG_LATENCY_MS = 300, 500
TRIES = 20
SAMPLE_S = 0.5  # the gate's holders, sampled (its snapshot query goes through the gate's worker)
WORKFLOW_TASKS = 5  # the measured arms' worker: OFFICE_MAX_CONCURRENT_WORKFLOW_TASKS
SUBMIT_AT_ONCE = 25


async def start_latency_s(client: Client, run_id: str) -> float:
    """Submission to the start of the run's first provider call, from its history."""
    events = (await client.get_workflow_handle(run_id).fetch_history()).events
    started = events[0].event_time.ToDatetime()
    scheduled = {
        e.event_id
        for e in events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        and e.activity_task_scheduled_event_attributes.activity_type.name == Activity.session_turn
    }
    first = min(
        e.event_time.ToDatetime()
        for e in events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
        and e.activity_task_started_event_attributes.scheduled_event_id in scheduled
    )
    return (first - started).total_seconds()


async def _submit_many(
    stack: Stack, ws: str, agent: str, count: int, queue: str, priority: RunPriority, label: str
) -> list[RunHandle]:
    jobs = [
        lambda i=i: submit(stack.client, stack.store, ws, agent, f"{label} {i}", task_queue=queue, priority=priority)
        for i in range(count)
    ]
    return await bounded(SUBMIT_AT_ONCE, jobs)


async def ceiling_arm(stack: Stack) -> dict[str, Any]:
    ws, agent, p = await stack.workspace({"alpha": SimProvider(latency_ms=RUN_LATENCY_MS)})
    await set_workspace_ceiling(stack, ws, agent, CEILING)
    sampled_peak, stop = 0, asyncio.Event()

    async def sample() -> None:
        nonlocal sampled_peak
        while not stop.is_set():
            if (gate := await workspace_gate(stack, ws)) is not None:
                sampled_peak = max(sampled_peak, len(gate.holders))
            await asyncio.sleep(SAMPLE_S)

    sampler = asyncio.create_task(sample())
    began = time.monotonic()
    handles = await _submit_many(stack, ws, agent, RUNS, stack.task_queue, RunPriority.default, "run")
    views = await asyncio.gather(*(wait_for_view(stack.client, h.id) for h in handles))
    wall = time.monotonic() - began
    stop.set()
    await sampler
    # Submission order as the server recorded it (the runs were submitted SUBMIT_AT_ONCE at a time).
    started = {h.id: (await h.describe()).start_time for h in handles}
    views.sort(key=lambda v: (started[v.run_id], v.queue.grant if v.queue and v.queue.grant else 0))
    calls = [c for c in await stack.simulator.calls() if c["provider"] == p["alpha"]]
    return {
        "runs": RUNS,
        "ceiling": CEILING,
        "completed": sum(v.status is RunStatus.completed for v in views),
        "peak_in_flight_provider": peak_overlap(calls),
        "peak_in_flight_sampled": sampled_peak,
        "fifo_violations": fifo_violations(views),
        "wall_s": round(wall, 1),
        "ideal_wall_s": round(RUNS / CEILING * RUN_LATENCY_MS / 1000, 1),
    }


@contextlib.contextmanager
def without_fairness_keys() -> Iterator[None]:
    """The control arm: every run is submitted with its priority class but no fairness key."""
    keyed = office.runs.temporal_priority

    def unkeyed(request: RunRequest) -> Priority:
        return Priority(priority_key=keyed(request).priority_key)

    office.runs.temporal_priority = unkeyed
    try:
        yield
    finally:
        office.runs.temporal_priority = keyed


async def _tries(stack: Stack, ws: str, agent: str, queue: str, label: str) -> list[float]:
    handles = []
    for i in range(TRIES):  # spread over the flood, not all at once
        handles.append(await submit(stack.client, stack.store, ws, agent, f"{label} {i}", task_queue=queue))
        await asyncio.sleep(0.1)
    views = await asyncio.gather(*(wait_for_view(stack.client, h.id) for h in handles))
    assert all(v.status is RunStatus.completed for v in views), [v.message for v in views]
    return [await start_latency_s(stack.client, h.id) for h in handles]


async def _flooded(stack: Stack, flood: tuple[str, str], measured: tuple[str, str], queue: str, label: str) -> float:
    handles = await _submit_many(stack, *flood, FLOOD, queue, RunPriority.default, f"flood {label}")
    latencies = await _tries(stack, *measured, queue, label)
    await asyncio.gather(*(wait_for_view(stack.client, h.id) for h in handles))  # drained before the next arm
    return percentile(latencies, 99)


@contextlib.asynccontextmanager
async def narrow_worker(stack: Stack, queue: str) -> AsyncIterator[None]:
    """A worker whose backlog stays on the server, where priority and fairness order it."""
    sizing = WorkerSizing(max_concurrent_activities=ACTIVITY_SLOTS, max_concurrent_workflow_tasks=WORKFLOW_TASKS)
    async with office_worker(stack.client, stack.database_url, queue, sizing=sizing):
        yield


async def fairness_arm(stack: Stack) -> dict[str, Any]:
    big = await stack.workspace({"alpha": SimProvider(latency_ms=FLOOD_LATENCY_MS)})
    small = await stack.workspace({"alpha": SimProvider()})
    queue = f"bench-fair-{small.name}"
    async with narrow_worker(stack, queue):
        quiet = percentile(await _tries(stack, small.name, small.agent, queue, "quiet"), 99)
        keyed = await _flooded(stack, (big.name, big.agent), (small.name, small.agent), queue, "keyed")
        with without_fairness_keys():
            unkeyed = await _flooded(stack, (big.name, big.agent), (small.name, small.agent), queue, "unkeyed")
    return {
        "flood_runs": FLOOD,
        "worker_activity_slots": ACTIVITY_SLOTS,
        "worker_workflow_tasks": WORKFLOW_TASKS,
        "start_p99_s_no_flood": round(quiet, 3),
        "start_p99_s_flood_fairness_keys": round(keyed, 3),
        "start_p99_s_flood_no_keys": round(unkeyed, 3),
        "ratio_keyed_vs_no_flood": round(keyed / quiet, 2),
        "ratio_unkeyed_vs_no_flood": round(unkeyed / quiet, 2),
    }


async def interactive_arm(stack: Stack) -> dict[str, Any]:
    ws, agent, p = await stack.workspace({"alpha": SimProvider(latency_ms=BACKLOG_LATENCY_MS)})
    await set_workspace_ceiling(stack, ws, agent, CEILING)
    queue = f"bench-interactive-{ws}"
    latencies, behind = [], []
    async with narrow_worker(stack, queue):
        await _submit_many(stack, ws, agent, BACKLOG, queue, RunPriority.batch, "batch")
        for i in range(TRIES):
            calls = [c for c in await stack.simulator.calls() if c["provider"] == p["alpha"]]
            behind.append(BACKLOG - len({run_of(c) for c in calls if run_of(c).startswith("batch")}))
            handle = await submit(
                stack.client, stack.store, ws, agent, f"person {i}", task_queue=queue, priority=RunPriority.interactive
            )
            view: RunView = await wait_for_view(stack.client, handle.id)
            assert view.status is RunStatus.completed, view.message
            latencies.append(await start_latency_s(stack.client, handle.id))
    return {
        "batch_runs": BACKLOG,
        "ceiling": CEILING,
        "batch_not_started_min": min(behind),  # at the tries: batch runs whose provider call had not started
        "batch_not_started_max": max(behind),
        "run_latency_s": BACKLOG_LATENCY_MS / 1000,
        "start_p50_s": round(percentile(latencies, 50), 3),
        "start_p99_s": round(percentile(latencies, 99), 3),
        "tries": TRIES,
    }


async def run() -> dict[str, Any]:
    started = time.monotonic()
    async with bench_stack() as stack:
        ceiling = await ceiling_arm(stack)
        fairness = await fairness_arm(stack)
        interactive = await interactive_arm(stack)  # last: its leftover batch runs end with the stack
    return {
        "ceiling": ceiling,
        "fairness": fairness,
        "interactive": interactive,
        "wall_s": round(time.monotonic() - started, 1),
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(run()), indent=2))
