"""Throughput: happy-path office runs against a bare one-activity workflow making the same streamed provider
call (the office executor's), on the same server, measured in alternating rounds in one process."""

import statistics
import time
import uuid

import httpx
from temporalio.worker import Worker

from bench.bare_workflow import BareChatWorkflow, ChatCall
from bench.common import bench_stack, bounded
from bench.reference import ReferenceActivities
from office.runs import submit, wait_for_view
from office.simulator.config import SimProvider
from testkit.stack import Stack

RUNS_PER_ROUND = 150
IN_FLIGHT = 50
ROUNDS = 2


async def office_round(stack: Stack, ws: str, agent: str) -> float:
    async def one(i: int) -> None:
        handle = await submit(stack.client, stack.store, ws, agent, f"happy path {i}", task_queue=stack.task_queue)
        view = await wait_for_view(stack.client, handle.id)
        assert view.status.value == "completed", view.message

    started = time.monotonic()
    await bounded(IN_FLIGHT, [lambda i=i: one(i) for i in range(RUNS_PER_ROUND)])
    return RUNS_PER_ROUND / (time.monotonic() - started)


async def bare_round(stack: Stack, url: str, queue: str) -> float:
    async def one(i: int) -> None:
        await stack.client.execute_workflow(
            BareChatWorkflow.run,
            ChatCall(url=url, prompt=f"happy path {i}", stream=True),
            id=f"bare-{uuid.uuid4().hex}",
            task_queue=queue,
        )

    started = time.monotonic()
    await bounded(IN_FLIGHT, [lambda i=i: one(i) for i in range(RUNS_PER_ROUND)])
    return RUNS_PER_ROUND / (time.monotonic() - started)


async def run() -> dict:
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
            await office_round(stack, ws, agent)  # warm-up, not counted
            for _ in range(ROUNDS):
                office_rates.append(await office_round(stack, ws, agent))
                bare_rates.append(await bare_round(stack, url, queue))
        sample = [w async for w in stack.client.list_workflows(f'OfficeWorkspace = "{ws}"', limit=1)]
        history = await stack.client.get_workflow_handle(sample[0].id).fetch_history()
    office_rate, bare_rate = statistics.median(office_rates), statistics.median(bare_rates)
    return {
        "office_runs_per_s": round(office_rate, 2),
        "bare_runs_per_s": round(bare_rate, 2),
        "ratio": round(office_rate / bare_rate, 3),
        "events_per_run": len(history.events),
        "rounds": {"office": [round(r, 2) for r in office_rates], "bare": [round(r, 2) for r in bare_rates]},
        "runs_per_round": RUNS_PER_ROUND,
        "in_flight": IN_FLIGHT,
        "seconds": round(time.monotonic() - started, 1),
    }
