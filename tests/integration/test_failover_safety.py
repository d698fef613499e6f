"""Stateful failover without leaks, and breakers that protect the provider receiving the fallback."""

import asyncio
import signal
import uuid
from datetime import timedelta

import pytest

from bench.continuity import Conversation, score
from office.simulator.config import InjectedFailure, SimProvider
from routing.decider import HealthState
from routing.run import RunStatus
from store.repository import utcnow
from testkit.runs import run_to_end

from .helpers import calls_to
from .helpers import start_worker as _start_worker

pytestmark = pytest.mark.integration


async def test_no_bleed_with_100_concurrent_failovers_after_output(stack):
    down_at_turn_1 = InjectedFailure(status=503, kind="unavailable", match_text=" turn 1:")
    # Every run must resolve its route before the primary's breaker opens on the turn-1 failures (a run started
    # after that rightly starts on the fallback, and is no failover): the primary's answers take long enough.
    slow_primary = SimProvider(failures=[down_at_turn_1], latency_ms=4000)
    ws, agent, p = await stack.workspace({"a": slow_primary, "b": SimProvider()})
    conversations = []
    for i in range(100):
        canary = f"CANARY-{uuid.uuid4().hex}"
        turns = [
            f"{canary} turn 0: the anchor is {i * 7919}.",
            f"{canary} turn 1: go on.",
            f"{canary} turn 2: recall the anchor.",
        ]
        conversations.append(Conversation(f"c{i}", canary, f"anchor is {i * 7919}", turns, 1, "5xx"))

    async def converse(c: Conversation):
        return c, await run_to_end(stack, ws, agent, c.turns[0], follow_ups=c.turns[1:])

    results = await asyncio.gather(*[converse(c) for c in conversations])
    calls = calls_to(stack, p["a"]) + calls_to(stack, p["b"])
    report = score(results, calls, {c.canary: c for c in conversations}, {"primary": p["a"]})
    assert report["completed"] == 100 and report["failovers"] == 100
    assert (report["bleed"], report["payload_mismatch"]) == (0, 0)
    assert report["preserved"] == 100  # every fallback answered the recall from its own history
    forwarded = [c for c in calls_to(stack, p["b"]) if any(m["role"] == "system" for m in c["messages"])]
    assert forwarded, "the fallback received continuation notes with the forwarded history"


async def test_a_half_open_breaker_lets_exactly_one_probe_through(stack):
    ws, agent, p = await stack.workspace({"a": SimProvider(latency_ms=1500), "b": SimProvider()})
    # a's breaker was open and its cooling time has just passed: half-open.
    await stack.store.admit_call(p["a"], "seed", False)
    await stack.store.set_health(
        p["a"], None, HealthState.degraded, utcnow() - timedelta(seconds=1), "provider_unavailable", "seed"
    )
    views = await asyncio.gather(*[run_to_end(stack, ws, agent, f"task {i}") for i in range(10)])
    assert all(v.status is RunStatus.completed for v in views)
    probes = [v for v in views if v.attempts[0].provider == p["a"] and v.attempts[0].outcome == "succeeded"]
    refused = [v for v in views if v.attempts[0].error_code == "circuit_open"]
    assert len(probes) == 1 and len(calls_to(stack, p["a"])) == 1
    assert len(refused) == 9 and all(v.provider == p["b"] for v in refused)
    assert {v.attempts[0].rule for v in refused} == {"breaker.probe_in_flight"}
    [row] = [r for r in await stack.store.health_rows() if r.provider == p["a"] and r.model == ""]
    assert row.state == "healthy"  # the probe's success closed the breaker for everyone


async def test_a_worker_restart_does_not_reset_an_open_breaker(stack, tmp_path):
    ws, agent, p = await stack.workspace({"a": SimProvider(), "b": SimProvider()})
    for i in range(5):  # five failed calls open a's breaker in the shared store
        await stack.store.admit_call(p["a"], f"r{i}", False)
        await stack.store.note_failure(p["a"], "provider_unavailable", f"r{i}")
    queue = f"breaker-{uuid.uuid4().hex[:6]}"
    for round_ in range(2):
        worker = await _start_worker(stack, queue, tmp_path / f"w{round_}.log")
        try:
            view = await run_to_end(stack, ws, agent, f"after restart {round_}", task_queue=queue, within_s=60)
        finally:
            worker.send_signal(signal.SIGKILL)
            await worker.wait()
        assert view.status is RunStatus.completed and view.provider == p["b"]
    assert calls_to(stack, p["a"]) == []  # no worker, old or new, sent it a call
