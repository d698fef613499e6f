"""Soak: many office runs through one worker process, to see whether anything grows with the runs served rather
than with the runs in flight: the worker's resident memory, and the store's rows per run.

Method. One `office worker` process (its own process, sized as `office bench scale` sizes it), the simulator in its
own process, PostgreSQL when reachable (else SQLite). Runs are one simulated turn each, kept `in_flight` at a time by
a bounded pool (each lane submits its next run when its last one has ended), so the worker serves a steady load
whatever the machine's speed that day. A warm-up of `warm_up` runs comes first: a fresh worker imports and
compiles what its first runs use, opens its store and HTTP connections, and grows its heap to the working set of
`in_flight` runs; the soak's start figure is taken after it, so it is the steady state's, not the process's birth.
Then `runs` runs in `segments` equal segments; the pool drains at the end of each (nothing in flight), where the
worker's RSS is read and every table of the store is counted. Rows per run per table per segment should be one
constant per table; a table whose rate moves between segments grows with something else and is named.

RSS is also sampled every SAMPLE_S seconds throughout (runs done, RSS), and its least-squares slope over the soak
(MB per 1,000 runs) shows a leak as a slope, not two points. Growth = end RSS / start RSS - 1, both drained."""

import asyncio
import contextlib
import itertools
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import inspect, text

from bench.common import bench_stack, periodically
from bench.errors import BenchFailed
from bench.scale import WORKER_SIZING, Workload, sizing_env, start, workload
from office.runs import wait_for_view
from routing.run import RunStatus, RunView
from store.migrate import migrate
from store.repository import Store
from testkit.stack import Stack, WorkerProcess, until_polling, worker_processes_for


@dataclass(frozen=True)
class SoakPlan:
    runs: int = 10_000  # measured, after the warm-up
    warm_up: int = 500  # runs before the start figure (the method above says why)
    in_flight: int = 50  # the bounded pool's lanes
    hold_s: float = 0.2  # the simulated provider's answer time
    segments: int = 5  # drained checkpoints: RSS read and the store's rows counted at each


PLAN = SoakPlan()
SAMPLE_S = 2.0  # the RSS sampler's period
GROWTH_TARGET = 0.10  # issue #28: the worker's RSS grows at most 10 % over the soak
RATE_TOLERANCE = 0.01  # rows per run: a table's segments differ by more than this -> it grows otherwise
SHOWN_SAMPLES = 40  # RSS samples kept in the report (evenly spaced over the soak)


# --- pure pieces ---------------------------------------------------------------------------------------
def growth(start_mb: float, end_mb: float) -> float:
    """Relative growth of the RSS from start to end (0.1 = 10 %)."""
    return end_mb / start_mb - 1


def slope_per_1000(samples: Sequence[tuple[int, float]]) -> float:
    """Least-squares slope of RSS (MB) against runs done, in MB per 1,000 runs; 0 with fewer than two points."""
    if len({runs for runs, _ in samples}) < 2:
        return 0.0
    fit = statistics.linear_regression([float(r) for r, _ in samples], [mb for _, mb in samples])
    return fit.slope * 1000


def segment_rates(counts: Sequence[tuple[int, dict[str, int]]]) -> dict[str, list[float]]:
    """Rows added per run in each segment, per table, from the row counts at each checkpoint (runs done, counts)."""
    tables = sorted({t for _, c in counts for t in c})
    rates: dict[str, list[float]] = {t: [] for t in tables}
    for (runs_a, a), (runs_b, b) in itertools.pairwise(counts):
        for t in tables:
            rates[t].append((b.get(t, 0) - a.get(t, 0)) / (runs_b - runs_a))
    return rates


def not_constant(rates: dict[str, list[float]], tolerance: float = RATE_TOLERANCE) -> list[str]:
    """Tables whose rows per run moved between segments by more than `tolerance`."""
    return [t for t, r in rates.items() if r and max(r) - min(r) > tolerance]


def thinned(samples: Sequence[Any], keep: int) -> list[Any]:
    """At most `keep` evenly spaced samples, the first and the last always among them."""
    if len(samples) <= keep:
        return list(samples)
    step = (len(samples) - 1) / (keep - 1)
    return [samples[round(i * step)] for i in range(keep)]


# --- measuring -----------------------------------------------------------------------------------------
async def table_rows(store: Store) -> dict[str, int]:
    """Rows of every table in the store, whatever the migrations made (a new table is counted without a change
    here)."""
    async with store.engine.connect() as conn:
        names = await conn.run_sync(lambda sync: inspect(sync).get_table_names())
        return {n: int((await conn.execute(text(f'SELECT count(*) FROM "{n}"'))).scalar_one()) for n in sorted(names)}


@dataclass
class Tally:
    done: int = 0
    completed: int = 0
    failed: list[str] = field(default_factory=list)  # "<run>: <message>" of runs that did not complete

    def add(self, view: RunView) -> None:
        self.done += 1
        if view.status is RunStatus.completed:
            self.completed += 1
        else:
            self.failed.append(f"{view.run_id} {view.status.value}: {view.message}"[:200])


@dataclass
class RssSamples:
    points: list[tuple[int, float, float]] = field(default_factory=list)  # (runs done, seconds, MB)


@contextlib.asynccontextmanager
async def sampling(worker: WorkerProcess, tally: Tally, began: float) -> AsyncIterator[RssSamples]:
    samples = RssSamples()

    async def take() -> None:
        samples.points.append((tally.done, round(time.monotonic() - began, 1), round(worker.rss_mb(), 1)))

    async with periodically(take, SAMPLE_S):
        yield samples


async def serve(stack: Stack, client_config: Store, load: Workload, indices: range, lanes: int, tally: Tally) -> None:
    """Runs `indices` through a pool of `lanes`: each lane submits a run and waits for its end, then the next."""
    pending = iter(indices)  # shared by the lanes: each index is taken once

    async def lane() -> None:
        for index in pending:
            run_id = await start(stack, client_config, load, index)
            tally.add(await wait_for_view(stack.client, run_id))

    await asyncio.gather(*(lane() for _ in range(lanes)))


def segment_bounds(first: int, runs: int, segments: int) -> list[range]:
    """`runs` indices from `first` in `segments` nearly equal consecutive ranges (the last takes the rest)."""
    size = max(1, runs // segments)
    edges = [first + i * size for i in range(min(segments, runs))] + [first + runs]
    return [range(a, b) for a, b in itertools.pairwise(edges) if b > a]


async def soak(plan: SoakPlan, stack: Stack, client_config: Store, worker: WorkerProcess) -> dict[str, Any]:
    load = await workload(stack, client_config, "soak", plan.hold_s)
    tally = Tally()
    began = time.monotonic()
    rows_before = await table_rows(stack.store)
    async with sampling(worker, tally, began) as samples:
        rss_fresh = worker.rss_mb()
        await serve(stack, client_config, load, range(plan.warm_up), plan.in_flight, tally)
        rss_start, cpu_start = worker.rss_mb(), worker.cpu_seconds()
        warm_completed, warm_failed = tally.completed, len(tally.failed)
        checkpoints = [(0, await table_rows(stack.store))]
        rss_drained = [round(rss_start, 1)]
        soak_began = time.monotonic()
        for segment in segment_bounds(plan.warm_up, plan.runs, plan.segments):
            await serve(stack, client_config, load, segment, plan.in_flight, tally)
            rss_drained.append(round(worker.rss_mb(), 1))
            checkpoints.append((segment.stop - plan.warm_up, await table_rows(stack.store)))
        soak_s = time.monotonic() - soak_began
        cpu_end = worker.cpu_seconds()
    if tally.done != plan.warm_up + plan.runs:
        raise BenchFailed(f"{tally.done} runs ended, {plan.warm_up + plan.runs} were submitted")
    rss_end = rss_drained[-1]
    measured = [(runs - plan.warm_up, mb) for runs, _, mb in samples.points if runs >= plan.warm_up]
    rates = segment_rates(checkpoints)
    total_rows = {t: checkpoints[-1][1].get(t, 0) - checkpoints[0][1].get(t, 0) for t in rates}
    warm_rows = {t: checkpoints[0][1].get(t, 0) - rows_before.get(t, 0) for t in rates}
    return {
        "runs": plan.runs,
        "warm_up_runs": plan.warm_up,
        "in_flight": plan.in_flight,
        "turn_hold_s": plan.hold_s,
        "completed": tally.completed - warm_completed,
        "failed": len(tally.failed) - warm_failed,
        "failed_warm_up": warm_failed,
        "failed_runs": tally.failed[:3],
        "wall_s": round(soak_s, 1),
        "runs_per_s": round(plan.runs / soak_s, 2),
        "worker_cpu_ms_per_run": round(1000 * (cpu_end - cpu_start) / plan.runs, 1),
        "rss_fresh_mb": round(rss_fresh, 1),  # the worker polling, before any run
        "rss_start_mb": round(rss_start, 1),  # after the warm-up, drained
        "rss_end_mb": rss_end,  # after the soak, drained
        "rss_growth_pct": round(100 * growth(rss_start, rss_end), 1),
        "rss_growth_within_target": growth(rss_start, rss_end) <= GROWTH_TARGET,
        # every reading counts, the drained checkpoints too: a short soak may end between two samples
        "rss_peak_mb": max([mb for _, _, mb in samples.points] + [round(rss_fresh, 1), *rss_drained]),
        "rss_slope_mb_per_1000_runs": round(slope_per_1000(measured), 2),
        "rss_at_checkpoints_mb": rss_drained,  # drained: after the warm-up, then after each segment
        "rss_samples": [list(p) for p in thinned(samples.points, SHOWN_SAMPLES)],  # [runs done, s, MB]
        "store_rows_per_run": {t: round(total_rows[t] / plan.runs, 3) for t in rates},
        "store_rows_per_run_by_segment": {t: [round(r, 3) for r in rates[t]] for t in rates if any(rates[t])},
        "store_rows_warm_up": {t: n for t, n in warm_rows.items() if n},
        "store_tables_not_constant": not_constant(rates),
        "worker_sizing": sizing_env(WORKER_SIZING),
    }


async def run(plan: SoakPlan = PLAN) -> dict[str, Any]:
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        client_config = Store(f"sqlite:///{tmp}/client-config.db")
        await migrate(client_config.url)
        try:
            async with bench_stack(worker=False) as stack:
                async with worker_processes_for(stack, 1, sizing_env(WORKER_SIZING)) as (worker,):
                    await until_polling(stack, [worker])
                    result = await soak(plan, stack, client_config, worker)
                database = stack.database_url.partition(":")[0]
        finally:
            await client_config.close()
    return result | {"store": database, "seconds": round(time.monotonic() - started, 1)}
