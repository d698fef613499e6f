"""Chaos: the Temporal server is SIGKILLed while runs are in flight and restarted on the same database file. The
client and the worker reconnect on their own; every run ends as it would have without the fault, with no attempt
row or warning written twice (a turn caught in flight may time out and be retried on the same route)."""

import asyncio
import uuid
from collections import Counter

import pytest

from office.runs import wait_for_view
from office.simulator.config import SimProvider
from office.temporal_client import connect
from office.temporal_server import TemporalDevServer
from office.worker_runtime import office_worker
from routing.run import AttemptOutcome, RunStatus
from testkit.eventually import eventually
from testkit.runs import submit_run

from .helpers import calls_to

pytestmark = [pytest.mark.integration, pytest.mark.chaos]
RUNS = 10


async def test_a_temporal_server_killed_mid_run_and_restarted_on_its_file_loses_no_run(stack, tmp_path):
    db_file = tmp_path / "temporal.db"
    server = await TemporalDevServer(db_file=db_file, headless=True).start()
    try:
        client = await connect(address=server.address, namespace="default")
        ws, agent, names = await stack.workspace({"a": SimProvider(latency_ms=600)}, model="sim-small")
        queue = f"restart-{uuid.uuid4().hex[:6]}"
        async with office_worker(client, stack.database_url, queue):
            handles = [
                await submit_run(
                    stack, ws, agent, f"task {i}", client=client, follow_ups=["and then?"], task_queue=queue
                )
                for i in range(RUNS)
            ]
            await eventually(lambda: len(calls_to(stack, names["a"])), until=lambda n: n >= RUNS // 2, timeout=60,
                             what="runs in flight at the provider")  # fmt: skip
            assert server.process is not None
            server.process.kill()  # SIGKILL: no shutdown, whatever was in flight stays in flight
            await asyncio.to_thread(server.process.wait)
            server = await TemporalDevServer(db_file=db_file, port=server.port, headless=True).start()
            views = await asyncio.wait_for(asyncio.gather(*(wait_for_view(client, h.id) for h in handles)), 180)
        assert [v.status for v in views] == [RunStatus.completed] * RUNS
        for v in views:  # both turns answered once; a turn whose heartbeat deadline passed while the server was
            # down timed out and was retried on the same route as a lost worker: infrastructure, never the provider
            answered = [a for a in v.attempts if a.outcome is AttemptOutcome.succeeded]
            assert v.output and len(answered) == 2, v.attempts
            failed = {a.error_code for a in v.attempts if a.outcome is AttemptOutcome.failed}
            assert failed <= {"worker_lost"}, v.attempts
        for view in views:
            rows = await stack.store.list_attempts(view.run_id)
            assert not [seq for seq, n in Counter(r.seq for r in rows).items() if n > 1], view.run_id
            assert len({w.idempotency_key for w in view.warnings}) == len(view.warnings)
    finally:
        server.stop()
