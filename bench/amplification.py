"""Amplification: does a rate-limited fallback get buried by retries when the primary is hard down?

Primary: 503 on everything. Fallback: a 60 requests/min token bucket answering 429 with Retry-After. 100 runs
at once. Two scheduler arms run side by side on one worker: the fallback's quota declared in the workspace
(breaker, shared budgets, server-side dispatch rate, Retry-After floors), and undeclared — as most users have it —
with the fallback sending no rate-limit headers either, so the rate is learned from 429s and their Retry-After
alone. They are measured beside two reference arms reproduced here: fixed 2 s retries, and Temporal's default
retry policy with two HTTP-client retries inside each attempt, each on a provider of its own, started with the
declared arm and stopped when it has served all 100 (what they achieve in the scheduler's time; run beside it
rather than after it, the bench takes one arm's time instead of two). Everything is counted from the simulator's
own call log."""

import asyncio
import contextlib
import time
import uuid
from collections import Counter
from collections.abc import Awaitable
from typing import Any

import httpx
from temporalio.service import RPCError
from temporalio.worker import Worker

from bench.bare_workflow import BareChatWorkflow, ChatCall
from bench.common import bench_stack
from bench.reference import ReferenceActivities, fixed_interval_client
from office.runs import RunHandle, submit, wait_for_view
from office.simulator.config import InjectedFailure, SimProvider
from testkit.stack import Stack

QUOTA_RPM = 60
RUNS = 75  # at once against a 60/min bucket: the declared arm takes over a minute (`make bench` has 15)


def limited(rate_headers: bool = True) -> SimProvider:
    return SimProvider(rpm=QUOTA_RPM, burst=1, rate_headers=rate_headers)


def metrics_for(calls: list[dict[str, Any]], logical: int, succeeded: int, extra_calls: int = 0) -> dict[str, Any]:
    """`calls`: the fallback's chat calls; `extra_calls`: calls offered to the broken primary."""
    times = sorted(c["at"] for c in calls)
    peak = 0
    for i, t in enumerate(times):  # the busiest 60 s window, offered load
        j = i
        while j < len(times) and times[j] < t + 60:
            j += 1
        peak = max(peak, j - i)
    violations = 0
    for c in calls:
        if c["status"] == 429 and c.get("retry_after_s"):
            end = c.get("at_end", c["at"])
            violations += sum(1 for other in calls if end < other["at"] < end + c["retry_after_s"] - 0.05)
    per_second = Counter(int(t) for t in times)
    span = (times[-1] - times[0] + 1) if times else 1
    successes = [c.get("at_end", c["at"]) for c in calls if c["status"] == 200]
    return {
        "logical": logical,
        "succeeded": succeeded,
        "fallback_calls": len(calls),
        "primary_calls": extra_calls,
        "raf_fallback": round(len(calls) / logical, 3),
        "raf_total": round((len(calls) + extra_calls) / logical, 3),
        "peak_over_quota": round(peak / QUOTA_RPM, 3),
        "retry_after_violations": violations,
        "burst_max_over_mean": round(max(per_second.values(), default=0) / (len(times) / span), 2) if times else 0,
        "drain_s": round(max(successes) - times[0], 1) if successes else None,
        "rejected_429": sum(c["status"] == 429 for c in calls),
    }


async def scheduler_arm(
    stack: Stack, declared: bool, began: asyncio.Event | None = None, served: asyncio.Event | None = None
) -> dict[str, Any]:
    """`declared`: the workspace states the fallback's quota; else it states none and the fallback sends no
    rate-limit headers (only Retry-After on its 429s). `began` is set when its runs are submitted, `served` when
    every one has ended (or the arm failed)."""
    down = InjectedFailure(status=503, kind="unavailable", endpoints=["chat", "models"])
    quotas = {"primary": {"requests_per_minute": 300}, "fallback": {"requests_per_minute": QUOTA_RPM}}
    ws, agent, names = await stack.workspace(
        {"primary": SimProvider(failures=[down]), "fallback": limited(rate_headers=declared)},
        per_provider=quotas if declared else {},
    )
    await asyncio.sleep(2.5)  # let the worker start the provider queues (it refreshes every 2 s)
    started = time.monotonic()
    try:
        if began is not None:
            began.set()
        handles: list[RunHandle] = await asyncio.gather(
            *[
                submit(stack.client, stack.store, ws, agent, f"logical request {i}", task_queue=stack.task_queue)
                for i in range(RUNS)
            ]
        )
        views = await asyncio.gather(*[wait_for_view(stack.client, h.id) for h in handles])
    finally:
        if served is not None:
            served.set()
    seconds = time.monotonic() - started
    calls, model_calls = await stack.simulator.calls(), await stack.simulator.model_calls()
    fallback = [c for c in calls if c["provider"] == names["fallback"]]
    primary = [c for c in calls + model_calls if c["provider"] == names["primary"]]
    result = metrics_for(fallback, RUNS, sum(v.status.value == "completed" for v in views), len(primary))
    result["fallbacks"] = sum(v.fallback_count for v in views)
    result["failed"] = sum(v.status.value == "failed" for v in views)
    result["failure_messages"] = sorted({v.message or "" for v in views if v.status.value == "failed"})[:3]
    result["seconds"] = round(seconds, 1)
    return result


async def fixed_retry_arm(
    stack: Stack, http: httpx.AsyncClient, began: asyncio.Event, time_up: asyncio.Event
) -> dict[str, Any]:
    name = f"ref-fixed-{uuid.uuid4().hex[:6]}"
    await stack.simulator.set_provider(name, limited())
    url = f"{stack.simulator.provider_url(name)}/chat/completions"
    await began.wait()
    done = await asyncio.gather(
        *[
            fixed_interval_client(http, ChatCall(url=url, prompt=f"logical request {i}"), 2.0, time_up)
            for i in range(RUNS)
        ]
    )
    calls = [c for c in await stack.simulator.calls() if c["provider"] == name]
    return metrics_for(calls, RUNS, sum(done))


async def until(time_up: asyncio.Event, result: Awaitable[Any]) -> Any:
    """`result`, or TimeoutError once `time_up` is set first."""
    got, stop = asyncio.ensure_future(result), asyncio.ensure_future(time_up.wait())
    await asyncio.wait({got, stop}, return_when=asyncio.FIRST_COMPLETED)
    stop.cancel()
    if not got.done():
        got.cancel()
        raise TimeoutError("the declared arm served all its runs first")
    return got.result()


async def temporal_default_arm(
    stack: Stack, http: httpx.AsyncClient, began: asyncio.Event, time_up: asyncio.Event
) -> dict[str, Any]:
    name = f"ref-default-{uuid.uuid4().hex[:6]}"
    await stack.simulator.set_provider(name, limited())
    url = f"{stack.simulator.provider_url(name)}/chat/completions"
    queue = f"bench-reference-{name}"
    async with Worker(
        stack.client,
        task_queue=queue,
        workflows=[BareChatWorkflow],
        activities=[ReferenceActivities(http).chat_once],
        max_concurrent_activities=RUNS,
    ):
        await began.wait()
        handles = await asyncio.gather(
            *[
                stack.client.start_workflow(
                    BareChatWorkflow.run,
                    ChatCall(url=url, prompt=f"logical request {i}", client_retries=2),
                    id=f"{name}-{i}",
                    task_queue=queue,
                )
                for i in range(RUNS)
            ]
        )
        results = await asyncio.gather(*[until(time_up, h.result()) for h in handles], return_exceptions=True)
        for h, r in zip(handles, results, strict=False):
            if isinstance(r, BaseException):
                with contextlib.suppress(RPCError):  # it may have finished meanwhile
                    await h.terminate("benchmark deadline")
    calls = [c for c in await stack.simulator.calls() if c["provider"] == name]
    return metrics_for(calls, RUNS, sum(not isinstance(r, BaseException) for r in results))


async def run() -> dict[str, Any]:
    started = time.monotonic()
    async with bench_stack() as stack, httpx.AsyncClient(limits=httpx.Limits(max_connections=300)) as http:
        # The references start with the declared arm and get the time it needed for all 100.
        began, served = asyncio.Event(), asyncio.Event()
        scheduler, undeclared, fixed, default = await asyncio.gather(
            scheduler_arm(stack, True, began, served),
            scheduler_arm(stack, False),
            fixed_retry_arm(stack, http, began, served),
            temporal_default_arm(stack, http, began, served),
        )
    undeclared["seconds_over_declared"] = round(undeclared["seconds"] / scheduler["seconds"], 3)
    scheduler["arm_seconds"] = scheduler.pop("seconds")  # the bench's own total is "seconds"
    return scheduler | {
        "quota_undeclared": undeclared,
        "reference": {"fixed_2s_retries": fixed, "temporal_default_plus_2_client_retries": default},
        "quota_rpm": QUOTA_RPM,
        "reference_deadline_s": scheduler["arm_seconds"],
        "seconds": round(time.monotonic() - started, 1),
    }
