"""Ceilings, priority and fairness, measured side by side in one run on a real dev server (one partition per task
queue, fairness on, as `office dev` starts it) with the provider simulator and every worker in its own process:

1. `ceiling`: RUNS runs against a workspace ceiling of CEILING, on a dev server of its own on a database file. When
   KILL_AFTER runs have been answered, the worker and the server are SIGKILLed, the server restarts on its file and a
   new worker starts. Runs completed (and lost), the peak in flight (the provider's own record of overlapping calls,
   before and after the kill, and the gate's holders sampled), slots leaked (holders left once every run ended),
   FIFO violations.
2. `fairness`: a workspace's run start latency (p99 of FAIR_TRIES) with no flood, then while another workspace floods
   the same kind of worker with FLOOD runs: with fairness keys (the flooding workspace without a ceiling, then with
   FLOOD_CEILING), and, as a control, without fairness keys (its tries wait CONTROL_WAIT_S at most: one not started
   by then counts with what it waited, a lower bound). Each measurement has a task queue and a narrow worker
   (ACTIVITY_SLOTS activity slots, WORKFLOW_TASKS workflow-task slots) of its own, so a flood's backlog waits on
   the server, where priority and fairness order it; what is left of a flood once its tries ended stays on a queue
   nobody polls any more. The ratio to the quiet p99 and whether it is within 2x.
3. `interactive`: an interactive run's start latency (p99 of TRIES, one after another) behind BACKLOG batch runs
   queued at a workspace ceiling of CEILING, against the bound INTERACTIVE_BOUND_S.

Start latency: from the run's WorkflowExecutionStarted to the start of its first provider call (its first
session_turn ActivityTaskStarted), both read from the run's history (server times, not this process's clock).
`python -m bench.ceilings` runs it and prints JSON."""

import asyncio
import contextlib
import json
import os
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.common import Priority

import office.runs
from bench.common import bench_stack, bounded
from bench.scale import percentile
from contracts.activities import Activity
from office.runs import RunHandle, submit, wait_for_view
from office.simulator.config import SimProvider
from office.temporal_client import connect
from office.temporal_server import TemporalDevServer
from routing.backlog import RunPriority
from routing.run import RunRequest, RunStatus, RunView
from testkit.ceilings import (
    asked_by_each_run,
    fifo_violations,
    peak_overlap,
    run_of,
    set_workspace_ceiling,
    workspace_gate,
)
from testkit.eventually import eventually
from testkit.stack import Stack, WorkerProcess, Workspace, until_polling, worker_process

CEILING, RUNS, RUN_LATENCY_MS = 5, 200, 200
KILL_AFTER = RUNS // 2  # runs answered when the worker and the server are killed
HEARTBEAT_S = 2  # the ceiling arm's provider: how soon a turn lost with the killed worker is retried
FLOOD, FLOOD_LATENCY_MS = 1000, 1000
# The flooding workspace's own ceiling in the third measurement: below the worker's activity slots, the capacity a
# workspace ceiling leaves to other workspaces (fairness keys order a queue; they cannot free a slot that is held).
FLOOD_CEILING = 5
ACTIVITY_SLOTS, WORKFLOW_TASKS = 20, 2  # the narrow workers (OFFICE_MAX_CONCURRENT_*): few tasks at once
BACKLOG, BACKLOG_LATENCY_MS = 500, 500
# An interactive run's start behind any batch backlog: a holder's call to end (BACKLOG_LATENCY_MS), the slot's
# turnover (release signal, gate task, grant signal, the run's task) and its first task, on a loaded 2-core machine.
INTERACTIVE_BOUND_S = 3.0
TRIES = 20
# Per fairness measurement: enough tries that its p99 is not its one slowest try (a p99 of 60 was, and one try's
# hiccup swung a ratio by 1x), TRY_EVERY_S apart.
FAIR_TRIES, TRY_EVERY_S = 150, 0.1
CONTROL_WAIT_S = 10.0  # the control's tries wait behind the whole flood: this long is enough to show it
SAMPLE_S = 0.5  # the gate's holders, sampled (its snapshot query goes through the gate's worker)
SUBMIT_AT_ONCE = 25
NARROW = {
    "OFFICE_MAX_CONCURRENT_ACTIVITIES": str(ACTIVITY_SLOTS),
    "OFFICE_MAX_CONCURRENT_WORKFLOW_TASKS": str(WORKFLOW_TASKS),
}
# The ceiling arm's server file: commits reach the OS without waiting for the disk, so they survive the server's
# SIGKILL (what is measured), not the machine's; the arm measures the scheduler, not this machine's disk flushes.
CRASH_SAFE_FILE = {"journal_mode": "wal", "synchronous": "normal"}
DRAIN_S = 30.0  # after the last run ended: how long its release may take to reach the gate


@dataclass(frozen=True)
class StartHops:
    """Where a run's start latency went, from its history: its first workflow task waiting in the server's task
    queue (where priority and fairness order it), then on the worker (the route is resolved in it), then the rest
    (its first provider call's activity task waiting, and dispatch)."""

    start_s: float  # WorkflowExecutionStarted to the first session_turn's ActivityTaskStarted
    task_wait_s: float  # the first WorkflowTaskScheduled to its WorkflowTaskStarted
    task_run_s: float  # that task's WorkflowTaskStarted to its WorkflowTaskCompleted
    call_wait_s: float  # the first session_turn's ActivityTaskScheduled to its ActivityTaskStarted


async def start_hops(client: Client, run_id: str) -> StartHops:
    events = (await client.get_workflow_handle(run_id).fetch_history()).events
    at: dict[int, datetime] = {}
    for e in events:
        at.setdefault(e.event_type, e.event_time.ToDatetime())
    scheduled = {
        e.event_id
        for e in events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        and e.activity_task_scheduled_event_attributes.activity_type.name == Activity.session_turn
    }
    first_started = min(
        (
            e
            for e in events
            if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
            and e.activity_task_started_event_attributes.scheduled_event_id in scheduled
        ),
        key=lambda e: e.event_id,
    )
    first = first_started.event_time.ToDatetime()
    scheduled_at = next(
        e.event_time.ToDatetime()
        for e in events
        if e.event_id == first_started.activity_task_started_event_attributes.scheduled_event_id
    )
    task_started = at[EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED]
    return StartHops(
        start_s=(first - at[EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED]).total_seconds(),
        task_wait_s=(task_started - at[EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED]).total_seconds(),
        task_run_s=(at[EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED] - task_started).total_seconds(),
        call_wait_s=(first - scheduled_at).total_seconds(),
    )


async def start_latency_s(client: Client, run_id: str) -> float:
    """Submission to the start of the run's first provider call, from its history."""
    return (await start_hops(client, run_id)).start_s


async def _submit_many(
    client: Client, stack: Stack, ws: Workspace, count: int, queue: str, priority: RunPriority, label: str
) -> list[RunHandle]:
    jobs = [
        lambda i=i: submit(client, stack.store, ws.name, ws.agent, f"{label} {i}", task_queue=queue, priority=priority)
        for i in range(count)
    ]
    return await bounded(SUBMIT_AT_ONCE, jobs)


async def _answered(stack: Stack, provider: str) -> int:
    return sum(1 for c in await stack.simulator.calls() if c["provider"] == provider and "at_end" in c)


async def _started(stack: Stack, provider: str) -> int:
    """Runs whose first provider call has begun."""
    return len({run_of(c) for c in await stack.simulator.calls() if c["provider"] == provider})


async def _gate_left(stack: Stack, ws: str, client: Client) -> tuple[int, int]:
    """The holders and waiting runs the gate still has once it had DRAIN_S to hear every release."""
    deadline = time.monotonic() + DRAIN_S
    while True:
        gate = await workspace_gate(stack, ws, client)
        left = (len(gate.holders), len(gate.backlog)) if gate is not None else (-1, -1)
        if left == (0, 0) or time.monotonic() > deadline:
            return left
        await asyncio.sleep(0.5)


async def ceiling_arm(stack: Stack) -> dict[str, Any]:
    ws = await stack.workspace({"alpha": SimProvider(latency_ms=RUN_LATENCY_MS)}, heartbeat_timeout_s=HEARTBEAT_S)
    provider = ws.providers["alpha"]
    await set_workspace_ceiling(stack, ws.name, ws.agent, CEILING)
    queue = f"bench-ceiling-{ws.name}"
    sampled_peak, stop = 0, asyncio.Event()
    with tempfile.TemporaryDirectory() as tmp:
        db_file = Path(tmp) / "temporal.db"
        server = await TemporalDevServer(db_file=db_file, headless=True, sqlite_pragmas=CRASH_SAFE_FILE).start()
        try:
            client = await connect(address=server.address, namespace="default")

            async def sample() -> None:
                nonlocal sampled_peak
                while not stop.is_set():
                    with contextlib.suppress(TimeoutError):  # the server is down for a moment
                        if (gate := await asyncio.wait_for(workspace_gate(stack, ws.name, client), 2)) is not None:
                            sampled_peak = max(sampled_peak, len(gate.holders))
                    await asyncio.sleep(SAMPLE_S)

            async with contextlib.AsyncExitStack() as workers:
                worker = await workers.enter_async_context(
                    worker_process(server.address, stack.database_url, queue, {})
                )
                await until_polling(stack, [worker], queue=queue, client=client)
                sampler = asyncio.create_task(sample())
                began = time.monotonic()
                handles = await _submit_many(client, stack, ws, RUNS, queue, RunPriority.default, "run")
                await eventually(
                    lambda: _answered(stack, provider), until=lambda n: n >= KILL_AFTER, timeout=300, interval=0.1,
                    what="runs answered before the kill",
                )  # fmt: skip
                worker.process.kill()  # SIGKILL both: no shutdown, the turns and gate tasks in flight stay so
                await worker.process.wait()
                assert server.process is not None
                server.process.kill()
                await asyncio.to_thread(server.process.wait)
                killed_at, down = time.time(), time.monotonic()
                server = await TemporalDevServer(
                    db_file=db_file, port=server.port, headless=True, sqlite_pragmas=CRASH_SAFE_FILE
                ).start()
                worker = await workers.enter_async_context(
                    worker_process(server.address, stack.database_url, queue, {})
                )
                await until_polling(stack, [worker], queue=queue, client=client)
                back_s = time.monotonic() - down
                views = await asyncio.gather(*(wait_for_view(client, h.id) for h in handles))
                wall = time.monotonic() - began
                holders_left, waiting_left = await _gate_left(stack, ws.name, client)
                stop.set()
                await sampler
                # Submission order as the server recorded it (the runs were submitted SUBMIT_AT_ONCE at a time).
                started = {h.id: (await client.get_workflow_handle(h.id).describe()).start_time for h in handles}
        finally:
            server.stop()
    views.sort(key=lambda v: (started[v.run_id], v.queue.grant if v.queue and v.queue.grant else 0))
    calls = [c for c in await stack.simulator.calls() if c["provider"] == provider]
    return {
        "runs": RUNS,
        "ceiling": CEILING,
        "killed_after_answered": KILL_AFTER,
        "completed": sum(v.status is RunStatus.completed for v in views),
        "runs_lost": sum(v.status is not RunStatus.completed for v in views),
        "turns_lost_with_the_worker": sum(a.error_code == "worker_lost" for v in views for a in v.attempts),
        "peak_in_flight_provider": peak_overlap(calls),
        "peak_in_flight_after_restart": peak_overlap([c for c in calls if c["at"] > killed_at]),
        "peak_in_flight_sampled": sampled_peak,
        "slots_leaked": holders_left,
        "waiting_left": waiting_left,
        "fifo_violations": fifo_violations(views),
        "server_and_worker_back_s": round(back_s, 1),
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


@contextlib.asynccontextmanager
async def narrow_worker(stack: Stack, queue: str, warm_up: Workspace) -> AsyncIterator[WorkerProcess]:
    """A worker in its own process, as a team runs them, whose backlog stays on the server, where priority and
    fairness order it; warmed up by one run of `warm_up` (its first task loads what every later one reuses)."""
    async with worker_process(stack.temporal.address, stack.database_url, queue, NARROW) as worker:
        await until_polling(stack, [worker], queue=queue)
        handle = await submit(stack.client, stack.store, warm_up.name, warm_up.agent, "warm up", task_queue=queue)
        await wait_for_view(stack.client, handle.id)
        yield worker


async def _tries(
    stack: Stack, ws: Workspace, queue: str, label: str, worker: WorkerProcess, within_s: float | None = None
) -> dict[str, Any]:
    """FAIR_TRIES runs of `ws`, TRY_EVERY_S apart: their start latency and where it went (p50 and p99), and the
    worker's CPU meanwhile (in cores). `within_s`: tries not ended by then count with the time they had waited (a
    lower bound: `censored` says how many)."""
    cpu, began = worker.cpu_seconds(), time.monotonic()
    handles, submitted = [], []
    for i in range(FAIR_TRIES):
        handles.append(await submit(stack.client, stack.store, ws.name, ws.agent, f"{label} {i}", task_queue=queue))
        submitted.append(time.monotonic())
        await asyncio.sleep(TRY_EVERY_S)
    waits = [asyncio.ensure_future(wait_for_view(stack.client, h.id)) for h in handles]
    await asyncio.wait(waits, timeout=within_s)
    now = time.monotonic()
    cores = (worker.cpu_seconds() - cpu) / (now - began)
    waited = [now - at for w, at in zip(waits, submitted, strict=True) if not w.done()]
    for w in waits:
        w.cancel()
    ended = [(h, w.result()) for h, w in zip(handles, waits, strict=True) if w.done() and not w.cancelled()]
    assert all(v.status is RunStatus.completed for _, v in ended), [v.message for _, v in ended]
    hops = [await start_hops(stack.client, h.id) for h, _ in ended]
    starts = [h.start_s for h in hops] + waited
    return {
        "start_p50_s": round(percentile(starts, 50), 3),
        "start_p99_s": round(percentile(starts, 99), 3),
        "censored": len(waited),
        "first_task_wait_p99_s": round(percentile([h.task_wait_s for h in hops], 99), 3) if hops else None,
        "first_task_run_p99_s": round(percentile([h.task_run_s for h in hops], 99), 3) if hops else None,
        "first_call_wait_p99_s": round(percentile([h.call_wait_s for h in hops], 99), 3) if hops else None,
        "worker_cpu_cores": round(cores, 2),
    }


async def _quiet(stack: Stack, small: Workspace) -> dict[str, Any]:
    queue = f"bench-fair-quiet-{small.name}"
    async with narrow_worker(stack, queue, small) as worker:
        return await _tries(stack, small, queue, "quiet", worker)


async def _flooded(stack: Stack, small: Workspace, label: str, flood_ceiling: int | None) -> dict[str, Any]:
    """The small workspace's tries while another floods the worker, and the flood's runs not started at the first
    try (its backlog). Without fairness keys the tries wait CONTROL_WAIT_S at most."""
    big = await stack.workspace({"alpha": SimProvider(latency_ms=FLOOD_LATENCY_MS)})
    if flood_ceiling:
        await set_workspace_ceiling(stack, big.name, big.agent, flood_ceiling)
    queue = f"bench-fair-{label}-{big.name}"
    async with narrow_worker(stack, queue, small) as worker:
        await _submit_many(stack.client, stack, big, FLOOD, queue, RunPriority.default, f"flood {label}")
        backlog = FLOOD - await _started(stack, big.providers["alpha"])
        within = CONTROL_WAIT_S if label == "unkeyed" else None
        tries = await _tries(stack, small, queue, label, worker, within)
    return {**tries, "flood_not_started": backlog}  # the flood's rest stays on a queue nobody polls any more


async def fairness_arm(stack: Stack) -> dict[str, Any]:
    small = await stack.workspace({"alpha": SimProvider()})
    quiet = await _quiet(stack, small)
    keyed = await _flooded(stack, small, "keyed", None)
    capped = await _flooded(stack, small, "capped", FLOOD_CEILING)
    with asked_by_each_run():
        capped_in_runs = await _flooded(stack, small, "capped-in-runs", FLOOD_CEILING)
    with without_fairness_keys():
        unkeyed = await _flooded(stack, small, "unkeyed", None)

    def ratio(tries: dict[str, Any]) -> float:
        return round(float(tries["start_p99_s"]) / float(quiet["start_p99_s"]), 2)

    return {
        "flood_runs": FLOOD,
        "flood_ceiling": FLOOD_CEILING,
        "worker_activity_slots": ACTIVITY_SLOTS,
        "worker_workflow_tasks": WORKFLOW_TASKS,
        "ratio_keyed_vs_no_flood": ratio(keyed),
        "ratio_with_ceiling_vs_no_flood": ratio(capped),
        "ratio_with_ceiling_asked_by_runs_vs_no_flood": ratio(capped_in_runs),
        "ratio_unkeyed_vs_no_flood": ratio(unkeyed),  # a lower bound when its tries are censored
        "within_2x": ratio(keyed) <= 2,
        "within_2x_with_ceiling": ratio(capped) <= 2,
        "no_flood": quiet,
        "flood_keyed": keyed,  # the flooding workspace without a ceiling
        "flood_with_ceiling": capped,  # its ceiling FLOOD_CEILING, its queued runs asleep until their grant
        "flood_with_ceiling_asked_by_runs": capped_in_runs,  # the same, each queued run waiting in a task of its own
        "flood_no_keys": unkeyed,  # the control
    }


async def interactive_arm(stack: Stack) -> dict[str, Any]:
    ws = await stack.workspace({"alpha": SimProvider(latency_ms=BACKLOG_LATENCY_MS)})
    await set_workspace_ceiling(stack, ws.name, ws.agent, CEILING)
    queue = f"bench-interactive-{ws.name}"
    latencies, behind = [], []
    async with narrow_worker(stack, queue, ws):
        await _submit_many(stack.client, stack, ws, BACKLOG, queue, RunPriority.batch, "batch")
        for i in range(TRIES):
            behind.append(BACKLOG - await _started(stack, ws.providers["alpha"]))
            handle = await submit(
                stack.client, stack.store, ws.name, ws.agent, f"person {i}", task_queue=queue,
                priority=RunPriority.interactive,
            )  # fmt: skip
            view: RunView = await wait_for_view(stack.client, handle.id)
            assert view.status is RunStatus.completed, view.message
            latencies.append(await start_latency_s(stack.client, handle.id))
    p99 = percentile(latencies, 99)
    return {
        "batch_runs": BACKLOG,
        "ceiling": CEILING,
        "batch_not_started_min": min(behind),  # at the tries: batch runs whose provider call had not started
        "batch_not_started_max": max(behind),
        "run_latency_s": BACKLOG_LATENCY_MS / 1000,
        "start_p50_s": round(percentile(latencies, 50), 3),
        "start_p99_s": round(p99, 3),
        "bound_s": INTERACTIVE_BOUND_S,
        "within_bound": p99 <= INTERACTIVE_BOUND_S,
        "tries": TRIES,
    }


async def run() -> dict[str, Any]:
    started, load_before = time.monotonic(), os.getloadavg()[0]
    async with bench_stack(worker=False) as stack:
        ceiling = await ceiling_arm(stack)
        fairness = await fairness_arm(stack)
        interactive = await interactive_arm(stack)
    return {
        "ceiling": ceiling,
        "fairness": fairness,
        "interactive": interactive,
        "wall_s": round(time.monotonic() - started, 1),
        "load_avg_1m": [round(load_before, 1), round(os.getloadavg()[0], 1)],  # at start and end: other work
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(run()), indent=2))
