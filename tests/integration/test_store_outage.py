"""Chaos: the store's database drops its connections or goes away while runs are in flight. Runs wait for it and
complete; nothing is recorded as a provider's failure, no attempt is duplicated, provider health is untouched,
and no provider answer is asked for twice because only the bookkeeping after it failed."""

import asyncio
import contextlib
import time
import uuid
from collections import Counter
from collections.abc import Callable

import pytest

from office.runs import wait_for_view
from office.simulator.config import SimProvider
from office.worker_runtime import office_worker
from routing.run import RunStatus, RunView
from testkit.eventually import eventually
from testkit.pgtemp import PG_HOST, PG_PORT, admin_connection
from testkit.runs import submit_run

from .helpers import calls_to

pytestmark = [pytest.mark.integration, pytest.mark.chaos]
RUNS = 20


class StoreProxy:
    """A TCP proxy in front of the PostgreSQL server: `cut()` drops every connection through it and refuses new
    ones (nothing listens), `restore()` listens again on the same port. The shared server itself never stops."""

    def __init__(self) -> None:
        self.port = 0
        self._server: asyncio.Server | None = None
        self._links: set[asyncio.StreamWriter] = set()

    async def start(self) -> "StoreProxy":
        self._server = await asyncio.start_server(self._link, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def url(self, database_url: str) -> str:
        return database_url.replace(f"@{PG_HOST}:{PG_PORT}/", f"@127.0.0.1:{self.port}/")

    async def _link(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            server_r, server_w = await asyncio.open_connection(PG_HOST, PG_PORT)
        except OSError:
            client_w.transport.abort()
            return
        self._links |= {client_w, server_w}

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError, asyncio.CancelledError):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            dst.transport.abort()

        await asyncio.gather(pipe(client_r, server_w), pipe(server_r, client_w))
        self._links -= {client_w, server_w}

    async def cut(self) -> None:
        assert self._server is not None
        self._server.close()
        for link in list(self._links):
            link.transport.abort()
        self._server = None

    async def restore(self) -> None:
        await self.start()

    async def close(self) -> None:
        if self._server is not None:
            await self.cut()


@contextlib.asynccontextmanager
async def worker_behind_proxy(stack):
    """A worker of its own (own task queue) whose store connections all go through a StoreProxy."""
    proxy = await StoreProxy().start()
    queue = f"outage-{uuid.uuid4().hex[:8]}"
    try:
        async with office_worker(stack.client, proxy.url(stack.database_url), queue):
            yield proxy, queue
    finally:
        await proxy.close()


async def submit_runs(stack, ws, agent, queue, turns: int, tag: str):
    handles = []
    for i in range(RUNS):
        prompts = [f"{tag} run {i} turn {t}" for t in range(turns)]
        handles.append(await submit_run(stack, ws, agent, prompts[0], follow_ups=prompts[1:], task_queue=queue))
    return handles


async def check_outcome(stack, handles, providers: list[str], turns: int) -> list[RunView]:
    views = await asyncio.gather(*[wait_for_view(stack.client, h.id) for h in handles])
    assert Counter(v.status for v in views) == {RunStatus.completed: RUNS}, [v.message for v in views]
    await stack.store.engine.dispose()  # the test's own pooled connections may have been terminated too
    for view in views:
        rows = await stack.store.list_attempts(view.run_id)
        # one succeeded attempt per turn: none duplicated, none failed, none blamed on a provider
        assert [(a.seq, a.outcome, a.code) for a in rows] == [(t + 1, "succeeded", None) for t in range(turns)]
        assert [(a.outcome, a.error_code) for a in view.attempts] == [("succeeded", None)] * turns
        transcript = await stack.store.read_transcript(view.run_id, 99)
        assert [e.role for e in transcript] == ["user", "assistant"] * turns
        assert transcript[-1].content == view.output
    # provider health untouched: no verdict, no breaker count, no event
    rows = [r for r in await stack.store.health_rows() if r.provider in providers]
    assert all((r.state, r.window_failures, r.failure_streak) == ("healthy", 0, 0) for r in rows), rows
    assert [e for e in await stack.store.health_events() if e.provider in providers] == []
    return views


def asked_once(stack, providers: list[str], tag: str, turns: int) -> None:
    """The simulator's call log: every turn's prompt reached a provider exactly once."""
    newest = Counter(
        c["messages"][-1]["content"]
        for p in providers
        for c in calls_to(stack, p)
        if tag in c["messages"][-1]["content"]
    )
    assert len(newest) == RUNS * turns and set(newest.values()) == {1}, newest.most_common(3)


def at_least(count: int) -> Callable[[int], bool]:
    return lambda n: n >= count


async def test_terminated_store_connections_under_20_runs(stack):
    started = time.monotonic()
    tag = f"term-{uuid.uuid4().hex[:6]}"
    ws, agent, p = await stack.workspace({"a": SimProvider(latency_ms=150), "b": SimProvider()})
    handles = await submit_runs(stack, ws, agent, stack.task_queue, turns=4, tag=tag)
    database = stack.database_url.rsplit("/", 1)[1]
    admin = await admin_connection()
    terminated = []
    try:
        for _ in range(4):  # while the runs are in flight, a few times: every connection of the store's database
            await eventually(
                lambda: len(calls_to(stack, p["a"])), until=at_least(10 * (len(terminated) + 1)),
                timeout=30, what="runs in flight between terminations",
            )  # fmt: skip
            rows = await admin.fetch(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
                database,
            )
            terminated.append(len(rows))
    finally:
        await admin.close()
    assert sum(terminated) > 0
    await check_outcome(stack, handles, list(p.values()), turns=4)
    asked_once(stack, list(p.values()), tag, turns=4)
    print(f"\nterminations {terminated} connections; {RUNS}/{RUNS} completed in {time.monotonic() - started:.1f} s")


async def test_store_unreachable_for_10_s_under_20_runs(stack):
    started = time.monotonic()
    tag = f"down-{uuid.uuid4().hex[:6]}"
    ws, agent, p = await stack.workspace(
        {"a": SimProvider(latency_ms=200), "b": SimProvider()}, heartbeat_timeout_s=3
    )  # a short heartbeat timeout: heartbeat details reach the server within ~2 s
    async with worker_behind_proxy(stack) as (proxy, queue):
        handles = await submit_runs(stack, ws, agent, queue, turns=3, tag=tag)
        await eventually(
            lambda: len(calls_to(stack, p["a"])), until=lambda n: n >= RUNS, timeout=30, what="runs in flight"
        )
        await proxy.cut()
        cut_at = time.monotonic()
        waiting = await eventually(
            lambda: waiting_for_store(stack, handles), timeout=9, interval=0.5,
            what="a pending activity showing it waits for the store",
        )  # fmt: skip
        await asyncio.sleep(max(0.0, 10 - (time.monotonic() - cut_at)))  # the outage window this test made
        calls_during = len(calls_to(stack, p["a"]))
        await proxy.restore()
        views = await check_outcome(stack, handles, list(p.values()), turns=3)
    assert all(v.provider == p["a"] for v in views)  # nobody fell back: the outage was not the provider's
    asked_once(stack, list(p.values()), tag, turns=3)
    print(
        f"\noutage 10 s: {waiting} runs seen waiting_for=store; {calls_during} calls before restore; "
        f"{RUNS}/{RUNS} completed in {time.monotonic() - started:.1f} s"
    )


async def test_answers_are_not_asked_twice_when_only_the_bookkeeping_after_them_failed(stack):
    started = time.monotonic()
    tag = f"held-{uuid.uuid4().hex[:6]}"
    ws, agent, p = await stack.workspace({"a": SimProvider(latency_ms=1500)}, heartbeat_timeout_s=3)
    async with worker_behind_proxy(stack) as (proxy, queue):
        handles = await submit_runs(stack, ws, agent, queue, turns=1, tag=tag)
        # every run's provider call is under way (the simulator logged it; it answers after 1.5 s) …
        await eventually(lambda: len(calls_to(stack, p["a"])), until=lambda n: n >= RUNS, timeout=30, what="20 calls")
        await proxy.cut()  # … and the store goes away before any answer can be recorded
        answered = await eventually(
            lambda: sum(c["status"] == 200 for c in calls_to(stack, p["a"])), until=lambda n: n >= RUNS, timeout=10,
            what="every provider answer given while the store is down",
        )  # fmt: skip
        holding = await eventually(
            lambda: waiting_for_store(stack, handles), until=lambda n: n >= RUNS // 2, timeout=10, interval=0.5,
            what="turns holding their answer while waiting for the store",
        )  # fmt: skip
        await proxy.restore()
        await check_outcome(stack, handles, [p["a"]], turns=1)
    asked_once(stack, [p["a"]], tag, turns=1)
    assert len(calls_to(stack, p["a"])) == RUNS == answered
    print(
        f"\n{answered} answers given during the outage, {holding} runs seen waiting_for=store; "
        f"{RUNS}/{RUNS} completed in {time.monotonic() - started:.1f} s"
    )


async def waiting_for_store(stack, handles) -> int:
    """How many runs have a pending activity whose heartbeat details say it waits for the store."""
    seen = 0
    for handle in handles:
        pending = (await handle.describe()).raw_description.pending_activities
        for activity in pending:
            if not activity.heartbeat_details.payloads:
                continue
            [details] = await stack.client.data_converter.decode(activity.heartbeat_details.payloads)
            if isinstance(details, dict) and details.get("waiting_for") == "store":
                seen += 1
    return seen
