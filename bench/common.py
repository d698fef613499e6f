"""Shared set-up for benchmarks: a real dev server, the simulator, PostgreSQL when reachable (else SQLite)."""

import asyncio
import contextlib
import math
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import TypeVar

from testkit.pgtemp import admin_connection, temporary_database
from testkit.stack import Stack, ephemeral_stack

T = TypeVar("T")


@contextlib.asynccontextmanager
async def bench_database() -> AsyncIterator[str]:
    try:
        await (await admin_connection()).close()
    except Exception:
        with tempfile.TemporaryDirectory() as tmp:
            yield f"sqlite:///{tmp}/bench.db"
        return
    async with temporary_database("office_bench") as url:
        yield url


@contextlib.asynccontextmanager
async def bench_stack(
    worker_process: bool = False, worker_processes: int = 1, worker: bool = True
) -> AsyncIterator[Stack]:
    """The simulator always runs in its own process (a provider is another server, not this event loop);
    `worker_process` gives the worker its own process too (load benchmarks that measure counts, not speed);
    `worker=False`: no worker at all (the bench starts its own with testkit.stack.worker_processes_for)."""
    async with (
        bench_database() as url,
        ephemeral_stack(
            url,
            ui=False,
            simulator_process=True,
            worker=worker,
            worker_process=worker_process,
            worker_processes=worker_processes,
        ) as stack,
    ):
        yield stack


@contextlib.asynccontextmanager
async def periodically(step: Callable[[], Awaitable[object]], every_s: float) -> AsyncIterator[None]:
    """Runs `step` now and every `every_s` until the block ends; a step is never cancelled midway (a query cut off
    would leave its connection unusable)."""
    done = asyncio.Event()

    async def loop() -> None:
        while not done.is_set():
            await step()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), every_s)

    task = asyncio.create_task(loop())
    try:
        yield
    finally:
        done.set()
        await task


async def bounded(limit: int, jobs: Iterable[Callable[[], Awaitable[T]]]) -> list[T]:
    """Runs jobs with at most `limit` in flight, keeping their order."""
    gate = asyncio.Semaphore(limit)

    async def one(job: Callable[[], Awaitable[T]]) -> T:
        async with gate:
            return await job()

    return await asyncio.gather(*[one(job) for job in jobs])


def wilson_low(successes: int, total: int, z: float = 1.96) -> float:
    """Lower bound of the Wilson score interval (95 % by default)."""
    if total == 0:
        return 0.0
    p = successes / total
    centre = p + z * z / (2 * total)
    spread = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total))
    return (centre - spread) / (1 + z * z / total)
