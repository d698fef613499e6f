"""Scale: the cost per run as the runs in flight grow from 10 to 1,000 on one worker process, and throughput as
worker processes grow from 1 to 4, against one Temporal server and one store.

Method. In flight = arrival rate x run time (Little's law). This 2-core machine serves about a dozen office runs a
second with everything on it busy, so 1,000 runs submitted at once would measure how long the last ones queue,
not what a run costs. Each level instead holds N runs in flight in steady state: runs arrive open-loop at one
fixed rate (ScalePlan.arrival_per_s, the same at every level and below what the machine serves), and each run is
one turn that the simulated provider holds for N / arrival_per_s seconds (1 s at 10 in flight, 100 s at 1,000:
agent turns last seconds to minutes). After a ramp of one hold, N are in flight; the next window_s
seconds are the steady-state window, and every figure per run is taken inside it.

A run's overhead is its wall time in Temporal (workflow start to close) minus the provider's hold: what the
scheduler adds to a turn. It is the part before the provider call (start to the call reaching the simulator, from
its call log) plus the part after (the hold's end to the close). The first is measured on the runs that start in
the window, the second on the runs that end in it, and the two are combined pairwise (combined_overheads), so a
level costs one hold plus the window instead of two holds plus the window (100 s saved at 1,000 in flight, which
keeps `make bench` within its budget). Where the level drains anyway (all but the last), the end-to-end overhead
of the runs that started in the window is reported next to it as a check of the combination.

The horizontal arm runs the same fixed workload with 1, 2 and 4 worker processes (ScalePlan.horizontal_*) and
reports runs/s and scaling efficiency rate_k / (k x rate_1). On 2 cores the server, the store, the simulator and
this client share the cores with the workers, so more worker processes cannot add CPU: the figure says what a
second and a fourth process cost or gain here, not what a cluster with spare cores would do.

Worker sizing is WORKER_SIZING (office.settings defaults), passed to the workers as the same OFFICE_MAX_* variables
that infra/docker-compose.yaml sets (tests/unit/test_infra.py holds the two together)."""

import asyncio
import contextlib
import importlib
import math
import os
import re
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
from sqlmodel import select
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowFailureError

from bench.common import bench_stack, periodically
from bench.errors import BenchFailed
from office.runs import run_view, submit
from office.settings import WorkerSizing
from office.simulator.config import SimProvider
from routing.backlog import ScopeKind, gate_id
from routing.config import AgentProfile, WorkspaceConfig
from store.migrate import migrate
from store.repository import Store
from store.tables import AttemptRow
from testkit.eventually import eventually
from testkit.pgtemp import admin_connection
from testkit.stack import Stack, WorkerProcess, cpu_seconds, until_polling, worker_processes_for


@dataclass(frozen=True)
class ScalePlan:
    # Runs in flight: the smallest and the largest, what flat_cost compares (a middle level costs a hold, a window
    # and a drain more, and `make bench` stays within its 15 minutes).
    levels: tuple[int, ...] = (10, 1000)
    arrival_per_s: float = 10.0  # runs submitted per second at every level
    window_s: float = 20.0  # the steady-state window of each level: 200 runs, so no single stall is its p99
    worker_counts: tuple[int, ...] = (1, 2, 4)  # the horizontal arm
    horizontal_runs: int = 100  # per worker count
    horizontal_in_flight: int = 100
    horizontal_hold_s: float = 0.5
    bounded_agents: bool = True  # run bench/bounded_agents.py as well
    # The gated arm: beside the plain one at every level of gate_levels (arrivals alternating, N in flight in all),
    # its workspace's max_concurrent_runs and its agent profile's max_concurrent_sessions set to this (above every
    # level, so it never binds: every run asks both gates and releases them, and none waits). None: no gated arm.
    gate_ceiling: int | None = 2000
    gate_levels: tuple[int, ...] = (10, 1000)  # the gated arm's, likewise


PLAN = ScalePlan()
WORKER_SIZING = WorkerSizing()
RUN_IN_PROMPT = re.compile(r"scale ([A-Za-z0-9-]+)")  # each run's prompt names it
SAMPLE_S = 0.25  # worker RSS and store connections sampling period
FLAT_COST_FACTOR = 2.0  # must hold: p99 overhead at the largest level <= this x p99 at the smallest


def sizing_env(sizing: WorkerSizing) -> dict[str, str]:
    """The worker's OFFICE_MAX_* variables for `sizing` (what infra/docker-compose.yaml sets too)."""
    env = {
        "OFFICE_MAX_CONCURRENT_ACTIVITIES": str(sizing.max_concurrent_activities),
        "OFFICE_MAX_CACHED_WORKFLOWS": str(sizing.max_cached_workflows),
        "OFFICE_DB_POOL_SIZE": str(sizing.db_pool_size),
        "OFFICE_MAX_CONCURRENT_WORKFLOW_TASKS": str(sizing.max_concurrent_workflow_tasks),
    }
    if sizing.max_live_agents is not None:
        env["OFFICE_MAX_LIVE_AGENTS"] = str(sizing.max_live_agents)
    return env


# --- pure pieces ---------------------------------------------------------------------------------------
def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100): a value that was measured, never an interpolation."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def overheads(walls: Sequence[float], provider_s: float) -> list[float]:
    """What the scheduler added to each run: its wall time minus the provider's time."""
    return [wall - provider_s for wall in walls]


def combined_overheads(before: Sequence[float], after: Sequence[float]) -> list[float]:
    """A run's overhead is the part before its provider call (workflow start to the call reaching the provider)
    plus the part after it (the answer to the workflow's close). Measured on the runs that started, and on those
    that ended, inside the steady-state window, the two parts are combined pairwise (every before with every
    after: the distribution of their sum when a run's start and end are independent, as they are a hold apart)."""
    return [b + a for b in before for a in after]


def hold_for(in_flight: int, arrival_per_s: float) -> float:
    """Little's law: the run time that keeps `in_flight` runs open at `arrival_per_s`."""
    return in_flight / arrival_per_s


def scaling_efficiency(rates: dict[int, float]) -> dict[int, float]:
    """rate_k / (k x rate_1) per worker count k: 1.0 is linear scaling."""
    return {k: rate / (k * rates[1]) for k, rate in rates.items()}


def flat_cost(levels: dict[str, dict[str, Any]], factor: float = FLAT_COST_FACTOR) -> bool:
    """p99 overhead at the largest level is at most `factor` x the p99 at the smallest."""
    ordered = sorted(levels, key=int)
    return bool(levels[ordered[-1]]["overhead_p99_s"] <= factor * levels[ordered[0]]["overhead_p99_s"])


# --- sampling ------------------------------------------------------------------------------------------
@dataclass
class Samples:
    rss_peak_mb: float = 0.0  # the largest single worker
    rss_total_peak_mb: float = 0.0  # all workers together
    connections_peak: int | None = None  # to the bench database, every client (the workers' pools, this bench)


@contextlib.asynccontextmanager
async def sampling(workers: list[WorkerProcess], pg: "PgStats | None") -> AsyncIterator[Samples]:
    """Samples the workers' resident memory and the bench database's connections until the block ends."""
    samples = Samples()

    async def take() -> None:
        sizes = [w.rss_mb() for w in workers]
        samples.rss_peak_mb = max(samples.rss_peak_mb, *sizes)
        samples.rss_total_peak_mb = max(samples.rss_total_peak_mb, sum(sizes))
        if pg is not None:
            samples.connections_peak = max(samples.connections_peak or 0, await pg.connections())

    async with periodically(take, SAMPLE_S):
        yield samples


@dataclass
class PgStats:
    """PostgreSQL's own counters for the bench database, read over a connection to another database (so the
    reading is not counted). Backends publish their counters at most about once a second."""

    admin: asyncpg.Connection
    database: str
    turn: asyncio.Lock = field(default_factory=asyncio.Lock)  # the sampler and the window edges share the connection

    async def connections(self) -> int:
        return await self._value("SELECT count(*) FROM pg_stat_activity WHERE datname = $1")

    async def transactions(self) -> int:
        return await self._value("SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = $1")

    async def _value(self, query: str) -> int:
        async with self.turn:
            return int(await self.admin.fetchval(query, self.database))


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU jiffies of the whole machine so far, from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields) - idle, sum(fields)


def own_cpu_seconds() -> float:
    """CPU time used so far by this bench's processes: this one, its descendants (the server, the simulator, the
    workers) and PostgreSQL's. The machine's busy time beyond it is other work sharing the cores."""
    parents: dict[int, int] = {}
    ours = {os.getpid()}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            head, _, rest = Path(f"/proc/{entry}/stat").read_text().rpartition(")")
        except OSError:
            continue
        parents[int(entry)] = int(rest.split()[1])
        if head.endswith("(postgres"):
            ours.add(int(entry))
    grew = True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in ours and pid not in ours:
                ours.add(pid)
                grew = True
    return sum(cpu_seconds(pid) for pid in ours)


# --- submitting ----------------------------------------------------------------------------------------
@dataclass
class Workload:
    """One workspace whose single provider holds every turn `hold_s` seconds; runs are `<tag>-<index>`."""

    tag: str
    hold_s: float
    workspace: str
    agent: str
    provider: str


async def workload(stack: Stack, client_config: Store, tag: str, hold_s: float, ceiling: int | None = None) -> Workload:
    """`ceiling`: the workspace's max_concurrent_runs and the agent profile's max_concurrent_sessions."""
    # The provider's own timeout must outlast the hold; the heartbeat timeout stays the default (that is measured).
    ws, agent, names = await stack.workspace(
        {"sim": SimProvider(latency_ms=hold_s * 1000)}, timeout_s=max(120.0, hold_s + 60)
    )
    config = await stack.store.get_workspace(ws)
    profile = await stack.store.get_agent(agent)
    if config is None or profile is None:
        raise BenchFailed(f"the workspace {ws} or agent {agent} the stack just saved is not in the store")
    if ceiling is not None:
        config = config.model_copy(update={"max_concurrent_runs": ceiling})
        profile = profile.model_copy(update={"max_concurrent_sessions": ceiling})
        await copy_config(stack.store, config, profile)
    await copy_config(client_config, config, profile)
    return Workload(tag, hold_s, ws, agent, names["sim"])


async def copy_config(client_config: Store, config: WorkspaceConfig, profile: AgentProfile) -> None:
    await client_config.save_workspace(config)
    await client_config.save_agent(profile)


async def start(stack: Stack, client_config: Store, load: Workload, index: int) -> str:
    """Submits run `index` through the product's submit (validation included). Validation reads this bench's own
    copy of the configuration, so the bench database counts only the worker's transactions."""
    run_id = f"{load.tag}-{index:05d}"
    await submit(stack.client, client_config, load.workspace, load.agent, f"scale {run_id}", run_id=run_id)
    return run_id


@dataclass
class Closed:
    status: WorkflowExecutionStatus
    start: float
    close: float | None


async def listed(client: Client, load: Workload) -> dict[str, Closed]:
    """Every run of the workload as the server's visibility has it (start and close on the server's clock, which is
    this machine's, as the simulator's is)."""
    out = {}
    async for wf in client.list_workflows(f'OfficeWorkspace = "{load.workspace}"'):
        close = wf.close_time.timestamp() if wf.close_time else None
        out[wf.id] = Closed(wf.status or WorkflowExecutionStatus.RUNNING, wf.start_time.timestamp(), close)
    return out


async def wait_closed(client: Client, load: Workload, run_ids: list[str], within_s: float) -> dict[str, Closed]:
    with contextlib.suppress(WorkflowFailureError):
        await asyncio.wait_for(client.get_workflow_handle(run_ids[-1]).result(), within_s)

    async def closed() -> dict[str, Closed]:
        return await listed(client, load)

    return await eventually(
        closed,
        until=lambda runs: all(r in runs and runs[r].close is not None for r in run_ids),
        timeout=within_s,
        interval=1.0,
        what=f"the measured runs of {load.tag} to close",
    )


def failure_counts(attempts: list[AttemptRow]) -> dict[str, int]:
    """Failed attempts by error code and what was seen ("timeout: activity heartbeat timeout")."""
    counts: dict[str, int] = {}
    for a in attempts:
        key = f"{a.code}: {(a.excerpt or '')[:80]}"
        counts[key] = counts.get(key, 0) + 1
    return counts


async def failed_run_messages(client: Client, runs: dict[str, "Closed"], limit: int = 3) -> list[str]:
    """Why runs failed, in the product's own words (a few)."""
    failed = [r for r, c in runs.items() if c.close and c.status != WorkflowExecutionStatus.COMPLETED][:limit]
    return [f"{r}: {(await run_view(client, r)).message}" for r in failed]


async def attempt_failures(store: Store, tag: str) -> list[AttemptRow]:
    async with store.db() as s:
        rows = await s.execute(
            select(AttemptRow).where(AttemptRow.run_id.startswith(f"{tag}-"), AttemptRow.outcome != "succeeded")
        )
        return list(rows.scalars().all())


async def calls_of(stack: Stack, provider: str, run_ids: list[str], within_s: float) -> dict[str, list[float]]:
    """The provider calls once every run in `run_ids` has made one, or what there is after `within_s` seconds (a
    turn held up inside the worker is a finding, not a reason to stop the bench)."""
    deadline = time.monotonic() + within_s
    while True:
        found = await provider_calls(stack, provider)
        if all(r in found for r in run_ids) or time.monotonic() > deadline:
            return found
        await asyncio.sleep(1.0)


async def provider_calls(stack: Stack, provider: str) -> dict[str, list[float]]:
    """When each run's provider calls arrived at the simulator (run id -> times, in order), from its call log."""
    found: dict[str, list[float]] = {}
    for call in await stack.simulator.calls():
        if call["provider"] == provider and (named := RUN_IN_PROMPT.search(str(call["messages"][-1]))):
            found.setdefault(named.group(1), []).append(call["at"])
    return found


async def history_events(client: Client, run_ids: list[str]) -> int:
    sizes = [len((await client.get_workflow_handle(r).fetch_history()).events) for r in run_ids]
    return int(statistics.median(sizes))


# --- one level -----------------------------------------------------------------------------------------
EndToEnd = Callable[[], Awaitable[dict[str, Any]]]


async def level(
    plan: ScalePlan,
    stack: Stack,
    client_config: Store,
    worker: WorkerProcess,
    pg: PgStats | None,
    in_flight: int,
    ceiling: int | None = None,
    beside_ramp: "asyncio.Task[Any] | None" = None,
    arms: int = 1,
) -> tuple[dict[str, Any], EndToEnd]:
    """One level's steady-state figures, and what waits for its runs to close (the level drained): their own
    end-to-end overhead. The caller awaits it when it wants the level drained, or never (the last level).
    `beside_ramp`: work running during the ramp; the window opens only once it has ended (the ramp is longer).
    `arms`: how many arms run this level side by side, each with its share of the arrivals (so `in_flight` runs
    are in flight in all, and the turn's hold is the level's); per-run CPU figures are then shared (share_window)."""
    began = time.monotonic()
    rate, window_s = plan.arrival_per_s / arms, plan.window_s
    hold_s = hold_for(in_flight, plan.arrival_per_s)
    tag = f"scale{in_flight}" if ceiling is None else f"gated{in_flight}"
    load = await workload(stack, client_config, tag, hold_s, ceiling)
    submissions: list[asyncio.Task[str]] = []
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    t0 = loop.time()

    async def arrivals() -> None:
        index = 0
        while not stop.is_set():
            await asyncio.sleep(max(0.0, t0 + index / rate - loop.time()))
            submissions.append(asyncio.create_task(start(stack, client_config, load, index)))
            index += 1

    async def edge() -> dict[str, Any]:
        """Counters at one edge of the steady-state window."""
        return {
            "at": time.time(),
            "cpu": worker.cpu_seconds(),
            "server_cpu": cpu_seconds(stack.temporal.process.pid) if stack.temporal.process else 0.0,
            "machine": machine_busy(),
            "own_cpu": own_cpu_seconds(),
            "xacts": await pg.transactions() if pg else 0,
        }

    async with sampling([worker], pg) as samples:
        feeding = asyncio.create_task(arrivals())
        await asyncio.sleep(max(0.0, t0 + hold_s - loop.time()))  # the ramp: after one hold, N are in flight
        if beside_ramp is not None:
            await asyncio.wait([beside_ramp])
        opened = await edge()
        await asyncio.sleep(max(0.0, opened["at"] + window_s - time.time()))
        closed = await edge()
        stop.set()
        await feeding
    outcomes = await asyncio.gather(*submissions, return_exceptions=True)
    submitted = [r for r in outcomes if isinstance(r, str)]
    refused = [r for r in outcomes if not isinstance(r, str)]  # the server turned a start away (overloaded)
    runs = await eventually(
        lambda: listed(stack.client, load),
        until=lambda found: all(r in found for r in submitted),
        timeout=60,
        interval=0.5,
        what=f"the server's visibility to list every run of {load.tag}",
    )
    starters = [r for r in submitted if opened["at"] <= runs[r].start < closed["at"]]
    enders = [r for r, c in runs.items() if c.close and opened["at"] <= c.close < closed["at"]]
    calls = await calls_of(stack, load.provider, starters, within_s=60)
    waited_until = time.time()
    # A starter whose turn has not reached the provider yet is still waiting inside the worker: its overhead
    # before the call is at least the time it has waited so far.
    before = [(calls[r][0] if r in calls else waited_until) - runs[r].start for r in starters]
    after = [runs[r].close - calls[r][-1] - hold_s for r in enders]  # type: ignore[operator]
    over = combined_overheads(before, after)
    turns_in_window = (len(starters) + len(enders)) / 2  # turn starts and ends in the window, averaged
    failures = await attempt_failures(stack.store, load.tag)
    busy = (closed["machine"][0] - opened["machine"][0]) / (closed["machine"][1] - opened["machine"][1])
    machine_s = (closed["machine"][0] - opened["machine"][0]) / os.sysconf("SC_CLK_TCK")
    foreign = (machine_s - (closed["own_cpu"] - opened["own_cpu"])) / (closed["at"] - opened["at"])
    figures = {
        "arrival_per_s": rate,
        "arms_side_by_side": arms,
        "turn_hold_s": hold_s,
        "turns_in_window": turns_in_window,
        "window_s": window_s,
        "runs_submitted": len(submitted),
        "submit_errors": len(refused),
        "submit_error_first": f"{type(refused[0]).__name__}: {refused[0]}"[:200] if refused else None,
        "wall_s": round(time.monotonic() - began, 1),
        "runs_per_s": round(len(enders) / window_s, 2),
        "overhead_p50_s": round(percentile(over, 50), 3),
        "overhead_p99_s": round(percentile(over, 99), 3),
        "before_call_p50_s": round(percentile(before, 50), 3),  # start, route, gates, turn opening, catalog
        "before_call_p99_s": round(percentile(before, 99), 3),
        "after_call_p50_s": round(percentile(after, 50), 3),  # answer stored, attempt recorded, gates, close
        "after_call_p99_s": round(percentile(after, 99), 3),
        "rss_peak_mb": round(samples.rss_peak_mb, 1),
        "worker_cpu_ms_per_run": round(1000 * (closed["cpu"] - opened["cpu"]) / turns_in_window, 1),
        "server_cpu_ms_per_run": round(1000 * (closed["server_cpu"] - opened["server_cpu"]) / turns_in_window, 1),
        "machine_cpu_busy": round(busy, 2),
        "other_cpu_cores": round(max(0.0, foreign), 2),  # other work on the machine in the window, in cores
        "heartbeat_timeouts": sum(1 for a in failures if "heartbeat" in (a.excerpt or "")),
        "failed_attempts": failure_counts(failures),
        "failed": sum(1 for c in runs.values() if c.close and c.status != WorkflowExecutionStatus.COMPLETED),
        "failed_runs": await failed_run_messages(stack.client, runs),
        "provider_calls_per_run_max": max(len(calls.get(r, ())) for r in starters + enders),
        "turns_not_at_provider_after_60s": sum(1 for r in starters if r not in calls),
        "store_connections_peak": samples.connections_peak,
        "store_transactions_per_turn": round((closed["xacts"] - opened["xacts"]) / turns_in_window, 1) if pg else None,
        "history_events_per_run": await history_events(stack.client, enders[:: max(1, len(enders) // 5)][:5]),
    }
    if ceiling is not None:
        figures |= await gate_figures(stack.client, load, ceiling)

    async def end_to_end() -> dict[str, Any]:
        """Every run of the level closed: each run that started in the window, its own wall time (a check of
        the combined figure), and the failures counted over all of them."""
        ended = await wait_closed(stack.client, load, submitted, within_s=hold_s + 120)
        direct = overheads([ended[r].close - ended[r].start for r in starters], hold_s)  # type: ignore[operator]
        return {
            "overhead_end_to_end_p50_s": round(percentile(direct, 50), 3),
            "overhead_end_to_end_p99_s": round(percentile(direct, 99), 3),
            "failed": sum(1 for c in ended.values() if c.status != WorkflowExecutionStatus.COMPLETED),
            "failed_runs": await failed_run_messages(stack.client, ended),
        }

    return figures, end_to_end


async def gate_figures(client: Client, load: Workload, ceiling: int) -> dict[str, Any]:
    """The gated arm's gates: how many executions each has had (it continues as new to bound its history)."""
    gates = {"workspace": gate_id(ScopeKind.workspace, load.workspace), "agent": gate_id(ScopeKind.agent, load.agent)}
    executions = {}
    for kind, gate in gates.items():
        executions[kind] = len([w async for w in client.list_workflows(f'WorkflowId = "{gate}"')])
    return {"ceiling": ceiling, "gate_executions": executions}


# --- horizontal workers --------------------------------------------------------------------------------
async def horizontal(
    plan: ScalePlan, stack: Stack, client_config: Store, pg: PgStats | None, workers: int
) -> dict[str, Any]:
    load = await workload(stack, client_config, f"workers{workers}", plan.horizontal_hold_s)
    async with worker_processes_for(stack, workers, sizing_env(WORKER_SIZING)) as running:
        await until_polling(stack, running)
        async with sampling(running, pg) as samples:
            gate = asyncio.Semaphore(plan.horizontal_in_flight)

            async def one(index: int) -> None:
                async with gate:
                    run_id = await start(stack, client_config, load, index)
                    with contextlib.suppress(WorkflowFailureError):
                        await stack.client.get_workflow_handle(run_id).result()

            began = time.monotonic()
            await asyncio.gather(*[one(i) for i in range(plan.horizontal_runs)])
            seconds = time.monotonic() - began
    ids = [f"{load.tag}-{i:05d}" for i in range(plan.horizontal_runs)]
    runs = await wait_closed(stack.client, load, ids, within_s=60)  # the server's visibility catches up
    return {
        "runs_per_s": plan.horizontal_runs / seconds,
        "failed": sum(1 for r in runs.values() if r.status != WorkflowExecutionStatus.COMPLETED),
        "failed_runs": await failed_run_messages(stack.client, runs),
        "failed_attempts": failure_counts(await attempt_failures(stack.store, load.tag)),
        "rss_peak_mb": round(samples.rss_peak_mb, 1),
        "store_connections_peak": samples.connections_peak,
    }


SHARED_PER_RUN = ("worker_cpu_ms_per_run", "server_cpu_ms_per_run", "store_transactions_per_turn")


def share_window(arms: Sequence[dict[str, Any]]) -> None:
    """Arms measured side by side share one window: the worker's and the server's CPU and the store's transactions
    in it served every arm's turns, so each per-run figure is divided over all of them (in place)."""
    turns = sum(arm["turns_in_window"] for arm in arms)
    for arm in arms:
        for key in SHARED_PER_RUN:
            if arm.get(key) is not None and turns:
                arm[key] = round(arm[key] * arm["turns_in_window"] / turns, 1)


def gated_summary(
    plan: ScalePlan, plain: dict[str, dict[str, Any]], gated: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """The gated arm beside the plain one, level by level."""
    if not gated:
        return {"available": False, "reason": "no gate_ceiling in the plan"}
    largest, smallest = gated[max(gated, key=int)], gated[min(gated, key=int)]
    return {
        "ceiling": plan.gate_ceiling,
        "flat_cost": flat_cost(gated),
        "overhead_p99_ratio": round(largest["overhead_p99_s"] / smallest["overhead_p99_s"], 2),
        "side_by_side": {
            n: {
                "overhead_p99_s_plain": plain[n]["overhead_p99_s"],
                "overhead_p99_s_gated": gated[n]["overhead_p99_s"],
                "overhead_p50_s_plain": plain[n]["overhead_p50_s"],
                "overhead_p50_s_gated": gated[n]["overhead_p50_s"],
                "worker_cpu_ms_per_run_plain": plain[n]["worker_cpu_ms_per_run"],
                "worker_cpu_ms_per_run_gated": gated[n]["worker_cpu_ms_per_run"],
                "server_cpu_ms_per_run_plain": plain[n]["server_cpu_ms_per_run"],
                "server_cpu_ms_per_run_gated": gated[n]["server_cpu_ms_per_run"],
                "history_events_per_run_plain": plain[n]["history_events_per_run"],
                "history_events_per_run_gated": gated[n]["history_events_per_run"],
            }
            for n in gated
        },
        "levels": gated,
    }


async def bounded_agents_arm() -> dict[str, Any]:
    """The live-agent bound under load (bench/bounded_agents.py, its own stack); `wall_s`: its whole time."""
    began = time.monotonic()
    try:
        module = importlib.import_module("bench.bounded_agents")
    except ModuleNotFoundError as err:
        if err.name != "bench.bounded_agents":
            raise
        return {"available": False, "reason": "bench/bounded_agents.py is not in this checkout"}
    try:
        result: dict[str, Any] = await module.run()
    except Exception as err:  # its own stack failed: the scale figures above still stand, and this says why
        return {"available": True, "error": f"{type(err).__name__}: {err}"[:500]}
    return result | {"wall_s": round(time.monotonic() - began, 1)}


@contextlib.asynccontextmanager
async def pg_stats(stack: Stack) -> AsyncIterator[PgStats | None]:
    if not stack.database_url.startswith("postgresql"):
        yield None
        return
    admin = await admin_connection()
    try:
        yield PgStats(admin, stack.database_url.rsplit("/", 1)[1])
    finally:
        await admin.close()


async def run(plan: ScalePlan = PLAN) -> dict[str, Any]:
    started = time.monotonic()
    phases: dict[str, float] = {}  # where the bench's own time goes (`make bench` has 15 minutes for all)

    def lap(name: str, since: float) -> float:
        now = time.monotonic()
        phases[name] = round(now - since, 1)
        return now

    # The bounded-agents arm (counts, not timings) runs during the largest plain level's ramp, whose runs are not
    # measured (only those that start or end in its window are): the window opens once the arm has ended.
    bounded: asyncio.Task[dict[str, Any]] | None = None
    with tempfile.TemporaryDirectory() as tmp:
        client_config = Store(f"sqlite:///{tmp}/client-config.db")
        await migrate(client_config.url)
        try:
            async with bench_stack(worker=False) as stack, pg_stats(stack) as pg:
                mark = lap("stack_start", started)
                rates, workers_arm = {}, {}
                for k in plan.worker_counts:
                    workers_arm[k] = await horizontal(plan, stack, client_config, pg, k)
                    rates[k] = workers_arm[k]["runs_per_s"]
                for k, efficiency in scaling_efficiency(rates).items():
                    workers_arm[k]["runs_per_s"] = round(rates[k], 2)
                    workers_arm[k]["scaling_efficiency"] = round(efficiency, 2)
                mark = lap("horizontal", mark)
                levels, gated = {}, {}
                async with worker_processes_for(stack, 1, sizing_env(WORKER_SIZING)) as (worker,):
                    await until_polling(stack, [worker])
                    for n in plan.levels:
                        mark = lap("worker_start" if n == plan.levels[0] else f"drain_before_{n}", mark)
                        if plan.bounded_agents and n == plan.levels[-1]:
                            bounded = asyncio.create_task(bounded_agents_arm())
                        # The gated arm runs beside the plain one, arrivals alternating between them: one ramp
                        # and one window for both, N in flight in all, and the same moment's noise in both.
                        gating = plan.gate_ceiling is not None and n in plan.gate_levels
                        arms = 2 if gating else 1
                        plain_arm = level(plan, stack, client_config, worker, pg, n, beside_ramp=bounded, arms=arms)
                        if gating:
                            gated_arm = level(
                                plan, stack, client_config, worker, pg, n, plan.gate_ceiling, bounded, arms
                            )
                            (levels[str(n)], plain_rest), (gated[str(n)], gated_rest) = await asyncio.gather(
                                plain_arm, gated_arm
                            )
                            share_window([levels[str(n)], gated[str(n)]])
                        else:
                            levels[str(n)], plain_rest = await plain_arm
                        mark = lap(f"level_{n}", mark)
                        if n != plan.levels[-1]:  # the next level starts from nothing in flight
                            levels[str(n)] |= await plain_rest()
                            if gating:
                                gated[str(n)] |= await gated_rest()
                    mark = time.monotonic()
                mark = lap("worker_stop", mark)
            mark = lap("stack_stop", mark)
        finally:
            await client_config.close()
            if bounded is not None and not bounded.done():  # the levels failed: stop the arm and its stack
                bounded.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await bounded
    agents = await bounded if bounded is not None else {"available": False, "reason": "not asked for"}
    largest, smallest = levels[str(plan.levels[-1])], levels[str(plan.levels[0])]
    return {
        "method": "steady state at a fixed arrival rate; turn hold = in flight / rate (Little's law)",
        "levels": levels,
        "flat_cost": flat_cost(levels),
        "overhead_p99_ratio": round(largest["overhead_p99_s"] / smallest["overhead_p99_s"], 2),
        "gated": gated_summary(plan, levels, gated),
        "workers": {str(k): v for k, v in workers_arm.items()},
        "worker_sizing": sizing_env(WORKER_SIZING),
        "bounded_agents": agents,
        "seconds": round(time.monotonic() - started, 1),
        "phase_s": phases,
    }
