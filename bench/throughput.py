"""Throughput: happy-path office runs against a bare one-activity workflow making the same streamed provider
call (the office executor's), on the same server, measured in alternating rounds in one process. Then failover
dispatch: from the failing provider's answer to the fallback's request, per run, from the simulator's call log, with
runs arriving at a steady rate (the dispatch's own latency) and with a closed pool of runs in flight (saturated: the
figure then measures the worker's queue, not the dispatch)."""

import asyncio
import statistics
import time
import uuid
from functools import partial
from typing import Any

import httpx
from temporalio.worker import Worker

from bench.bare_workflow import BareChatWorkflow, ChatCall
from bench.common import bench_stack, bounded
from bench.errors import BenchFailed
from bench.reference import ReferenceActivities
from office.runs import submit, wait_for_view
from office.simulator.config import InjectedFailure, SimProvider
from office.worker_runtime import tune_gc
from routing.run import RunStatus, RunView
from testkit.stack import Stack

RUNS_PER_ROUND = 150
IN_FLIGHT = 50
ROUNDS = 2
FAILOVER_RUNS = 60
FAILOVER_RATE = 5.0  # runs arriving per second: about a third of what one worker process serves here
FAILOVER_IN_FLIGHT = 10
WARM_UP_RUNS = IN_FLIGHT  # one pool's worth: caches, connections and the worker's first workflow tasks


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


async def failover_pairs(stack: Stack) -> list[tuple[str, str, dict[str, str]]]:
    """Each run's primary answers 401 (needs the user: the decider falls back at once). Every run has its own
    pair of providers (a primary that needs the user is skipped by later runs' routes)."""
    denied = InjectedFailure(status=401, kind="auth", endpoints=["chat"])
    return [
        await stack.workspace({"primary": SimProvider(failures=[denied]), "fallback": SimProvider()})
        for _ in range(FAILOVER_RUNS)
    ]


def require_completed(view: RunView) -> None:
    if view.status is not RunStatus.completed:
        raise BenchFailed(f"run {view.run_id} ended {view.status.value}, not completed: {view.message}")


async def failover_run(stack: Stack, ws: str, agent: str) -> None:
    handle = await submit(stack.client, stack.store, ws, agent, "failover", task_queue=stack.task_queue)
    view = await wait_for_view(stack.client, handle.id)
    require_completed(view)


def dispatch_gaps(calls: list[dict[str, Any]], pairs: list[tuple[str, str, dict[str, str]]]) -> dict[str, Any]:
    """From each primary's failing answer to its fallback's chat request: decision, bookkeeping, dispatch,
    admission, catalog read."""

    def first(provider: str) -> dict[str, Any]:
        return next(c for c in calls if c["provider"] == provider)

    gaps = [first(names["fallback"])["at"] - first(names["primary"])["at_end"] for _, _, names in pairs]
    return {
        "p50_ms": round(1000 * percentile(gaps, 0.5), 1),
        "p99_ms": round(1000 * percentile(gaps, 0.99), 1),
        "max_ms": round(1000 * max(gaps), 1),
    }


async def failover_dispatch(stack: Stack) -> dict[str, Any]:
    """Steady arrivals at FAILOVER_RATE (the figure the target is about), then a closed pool of
    FAILOVER_IN_FLIGHT runs (each run's successor starts when it ends: the worker is saturated)."""
    steady, saturated = await failover_pairs(stack), await failover_pairs(stack)
    started, arrivals = asyncio.get_running_loop().time(), []
    for i, (ws, agent, _) in enumerate(steady):
        await asyncio.sleep(max(0.0, started + i / FAILOVER_RATE - asyncio.get_running_loop().time()))
        arrivals.append(asyncio.create_task(failover_run(stack, ws, agent)))
    await asyncio.gather(*arrivals)
    await bounded(FAILOVER_IN_FLIGHT, [partial(failover_run, stack, ws, agent) for ws, agent, _ in saturated])
    calls = await stack.simulator.calls()  # once, at the end: the log is long and the bench shares the cores
    return {
        "runs": FAILOVER_RUNS,
        "arrivals_per_s": FAILOVER_RATE,
        **dispatch_gaps(calls, steady),
        "saturated": {"in_flight": FAILOVER_IN_FLIGHT, **dispatch_gaps(calls, saturated)},
    }


async def office_round(stack: Stack, ws: str, agent: str, runs: int = RUNS_PER_ROUND) -> float:
    async def one(i: int) -> None:
        handle = await submit(stack.client, stack.store, ws, agent, f"happy path {i}", task_queue=stack.task_queue)
        view = await wait_for_view(stack.client, handle.id)
        require_completed(view)

    started = time.monotonic()
    await bounded(IN_FLIGHT, [partial(one, i) for i in range(runs)])
    return runs / (time.monotonic() - started)


async def bare_round(stack: Stack, url: str, queue: str) -> float:
    async def one(i: int) -> None:
        await stack.client.execute_workflow(
            BareChatWorkflow.run,
            ChatCall(url=url, prompt=f"happy path {i}", stream=True),
            id=f"bare-{uuid.uuid4().hex}",
            task_queue=queue,
        )

    started = time.monotonic()
    await bounded(IN_FLIGHT, [partial(one, i) for i in range(RUNS_PER_ROUND)])
    return RUNS_PER_ROUND / (time.monotonic() - started)


async def run() -> dict[str, Any]:
    started = time.monotonic()
    async with bench_stack() as stack, httpx.AsyncClient(limits=httpx.Limits(max_connections=200)) as http:
        ws, agent, _names = await stack.workspace({"solo": SimProvider()})
        bare_provider = f"bare-{uuid.uuid4().hex[:6]}"
        await stack.simulator.set_provider(bare_provider, SimProvider())
        url = f"{stack.simulator.provider_url(bare_provider)}/chat/completions"
        queue = f"bench-bare-{bare_provider}"
        office_rates, bare_rates = [], []
        async with Worker(
            stack.client,
            task_queue=queue,
            workflows=[BareChatWorkflow],
            activities=[ReferenceActivities(http).chat_once],
            max_concurrent_activities=200,
        ):
            await office_round(stack, ws, agent, WARM_UP_RUNS)  # warm-up, not counted
            tune_gc()  # both arms' worker runs here: with the GC settings `office worker` runs with
            for _ in range(ROUNDS):
                office_rates.append(await office_round(stack, ws, agent))
                bare_rates.append(await bare_round(stack, url, queue))
        sample = [w async for w in stack.client.list_workflows(f'OfficeWorkspace = "{ws}"', limit=1)]
        history = await stack.client.get_workflow_handle(sample[0].id).fetch_history()
        failover = await failover_dispatch(stack)
    office_rate, bare_rate = statistics.median(office_rates), statistics.median(bare_rates)
    return {
        "office_runs_per_s": round(office_rate, 2),
        "bare_runs_per_s": round(bare_rate, 2),
        "ratio": round(office_rate / bare_rate, 3),
        "events_per_run": len(history.events),
        "rounds": {"office": [round(r, 2) for r in office_rates], "bare": [round(r, 2) for r in bare_rates]},
        "runs_per_round": RUNS_PER_ROUND,
        "in_flight": IN_FLIGHT,
        "failover_dispatch": failover,
        "seconds": round(time.monotonic() - started, 1),
    }
