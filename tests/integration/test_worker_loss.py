"""A lost worker is not the provider's fault: workers SIGKILLed or stopped mid-turn (real `worker.py` processes, the
real dev server, PostgreSQL) while a provider answers every call correctly. Every run completes without parking,
the provider's breaker, retry budget and health are untouched, and no run shows a duplicate attempt or a missing
or doubled answer. A provider that really hangs is still the provider's timeout and is fallen back from."""

import asyncio
import signal
import uuid
from collections import Counter

import pytest
from temporalio.api.enums.v1 import TaskQueueType

from office.runs import wait_for_view
from office.simulator.config import InjectedFailure, SimProvider
from routing.identity import provider_key
from routing.run import AttemptOutcome, RunStatus, RunView
from testkit.eventually import eventually
from testkit.runs import run_to_end, submit_run
from testkit.stack import Stack, poller_pids

from .helpers import calls_to, start_worker, stop_workers, wait_for_calls

pytestmark = pytest.mark.integration
HEARTBEAT_S = 2  # how soon a lost worker is noticed; the provider answers in PROVIDER_S, heartbeating meanwhile
PROVIDER_S = 2.0
CHAOS_PROVIDER_S = 5.0


async def polled_by(stack: Stack, queue: str, pid: int) -> None:
    """Waits until worker `pid` polls `queue` (it has imported, connected and started its workers)."""
    await eventually(
        lambda: poller_pids(stack.client, queue, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY),
        until=lambda seen: pid in seen,
        timeout=60,
        what=f"worker {pid} polling {queue}",
    )


async def start_runs(stack: Stack, ws: str, agent: str, queue: str, count: int) -> list[str]:
    handles = await asyncio.gather(
        *(
            submit_run(stack, ws, agent, f"task {i}", follow_ups=[f"now step 2 of task {i}"], task_queue=queue)
            for i in range(count)
        )
    )
    return [h.id for h in handles]


async def check_runs_and_provider(stack: Stack, ws: str, provider: str, run_ids: list[str]) -> dict[str, float]:
    """Every run completed without parking, one answer per turn, no duplicate attempt; the provider untouched.
    Returns provider calls per run and how many calls were re-sent for turns whose worker was lost."""
    views: list[RunView] = list(
        await asyncio.wait_for(asyncio.gather(*(wait_for_view(stack.client, r) for r in run_ids)), timeout=240)
    )
    for view in views:
        assert view.status is RunStatus.completed, (view.run_id, view.status, view.message, view.attempts)
        seqs = [a.seq for a in view.attempts]
        assert len(seqs) == len(set(seqs)), view.attempts  # no duplicate attempt
        answered = [a for a in view.attempts if a.outcome is AttemptOutcome.succeeded]
        assert len(answered) == 2, view.attempts  # one answer per turn
        lost = [a for a in view.attempts if a.outcome is AttemptOutcome.failed]
        assert {(a.error_code, a.decision) for a in lost} <= {("worker_lost", "short_retry")}, lost  # never parked
        assert all(a.excerpt and a.excerpt.startswith("worker lost: ") for a in lost)
        transcript = await stack.store.read_transcript(view.run_id, 99)
        assert [(e.seq, e.role) for e in transcript] == [(1, "user"), (2, "assistant"), (3, "user"), (4, "assistant")]
        assert transcript[3].content == view.output  # the answer the run shows is the one its transcript holds
        stored = await stack.store.list_attempts(view.run_id)
        assert Counter(a.outcome for a in stored)["succeeded"] == 2  # no late success written beside the retry

    config = await stack.store.get_workspace(ws)
    assert config is not None
    key = provider_key(config.providers[provider])
    rows = [r for r in await stack.store.health_rows() if r.provider_key == key]
    for row in rows:  # admission counted the calls; nothing else may have moved
        assert (row.state, row.failure_streak, row.window_failures, row.window_retries, row.retry_at) == (
            "healthy",
            0,
            0,
            0,
            None,
        ), row
    events = [e for r in run_ids for e in await stack.store.health_events(run_id=r)]
    assert events == []  # no breaker event, no health change
    calls = calls_to(stack, provider)
    turns = 2 * len(run_ids)
    return {"calls_per_run": len(calls) / len(run_ids), "re_sent": len(calls) - turns}


async def test_workers_killed_again_and_again_never_park_a_run_or_touch_the_provider(stack, tmp_path):
    """Thirty two-turn runs, two workers, a worker SIGKILLed six times while turns are in flight."""
    queue = f"chaos-{uuid.uuid4().hex[:6]}"
    # Turns long enough that the runs are still in flight at the sixth kill (each cycle waits for the restarted
    # worker to poll): the kills must land on turns, not on an idle fleet.
    ws, agent, p = await stack.workspace(
        {"p": SimProvider(models=["sim-small"], latency_ms=CHAOS_PROVIDER_S * 1000)}, heartbeat_timeout_s=HEARTBEAT_S
    )
    workers = [await start_worker(stack, queue, tmp_path / f"w{i}.log") for i in range(2)]
    kills = 0
    try:
        run_ids = await start_runs(stack, ws, agent, queue, 30)
        for kills in range(1, 7):
            target = kills % 2
            await polled_by(stack, queue, workers[target].pid)
            turns_in_flight = len(calls_to(stack, p["p"])) + 2  # on both workers
            await wait_for_calls(stack, p["p"], turns_in_flight, within_s=120)
            workers[target].send_signal(signal.SIGKILL)
            await workers[target].wait()
            workers[target] = await start_worker(stack, queue, tmp_path / f"w{target}.log")
        figures = await check_runs_and_provider(stack, ws, p["p"], run_ids)
    finally:
        await stop_workers(*workers)
    views = [await wait_for_view(stack.client, r) for r in run_ids]
    lost = sum(a.error_code == "worker_lost" for v in views for a in v.attempts)
    assert kills == 6 and lost >= 6  # every kill caught turns in flight, each booked as a lost worker
    print(f"\nworker kills: 6, lost turns {lost}, provider calls per run {figures['calls_per_run']:.2f}, "
          f"re-sent {figures['re_sent']}")  # fmt: skip


async def test_a_stalled_worker_hands_its_turns_over_and_its_late_answers_are_not_applied(stack, tmp_path):
    """SIGSTOP longer than the heartbeat timeout, then SIGCONT: the turns move to the other worker, the provider is
    not blamed, and what the stalled worker finishes afterwards is fenced off by the booked attempt."""
    queue = f"stall-{uuid.uuid4().hex[:6]}"
    ws, agent, p = await stack.workspace(
        {"p": SimProvider(models=["sim-small"], latency_ms=PROVIDER_S * 1000)}, heartbeat_timeout_s=HEARTBEAT_S
    )
    workers = [await start_worker(stack, queue, tmp_path / f"w{i}.log") for i in range(2)]
    try:
        for w in workers:
            await polled_by(stack, queue, w.pid)
        run_ids = await start_runs(stack, ws, agent, queue, 6)
        await wait_for_calls(stack, p["p"], 4, within_s=120)
        stalled = workers[0]
        stalled.send_signal(signal.SIGSTOP)
        try:  # resumed once its turns were booked as lost (each run's attempt view shows it), not on a timer
            await eventually(
                lambda: lost_turns(stack, run_ids), until=lambda n: n > 0, timeout=60, what="a turn booked as lost"
            )
        finally:
            stalled.send_signal(signal.SIGCONT)
        figures = await check_runs_and_provider(stack, ws, p["p"], run_ids)
    finally:
        await stop_workers(*workers)
    print(f"\nstall: provider calls per run {figures['calls_per_run']:.2f}, re-sent {figures['re_sent']}")


async def lost_turns(stack: Stack, run_ids: list[str]) -> int:
    rows = [a for r in run_ids for a in await stack.store.list_attempts(r)]
    return sum(a.code == "worker_lost" for a in rows)


async def test_a_worker_stopped_mid_turn_says_so_and_the_turn_moves_on_at_once(stack, tmp_path):
    """SIGTERM (a deploy, `docker stop`): the turn in flight ends as WorkerShutdown, booked as a lost worker when
    the worker stops, not a heartbeat timeout later (the timeout here is longer than the whole test allows)."""
    queue = f"stop-{uuid.uuid4().hex[:6]}"
    ws, agent, p = await stack.workspace(
        {"p": SimProvider(models=["sim-small"], latency_ms=CHAOS_PROVIDER_S * 1000)}, heartbeat_timeout_s=600
    )
    first, second = await start_worker(stack, queue, tmp_path / "w1.log"), None
    try:
        await polled_by(stack, queue, first.pid)
        [run_id] = await start_runs(stack, ws, agent, queue, 1)
        await wait_for_calls(stack, p["p"], 1, within_s=120)
        first.send_signal(signal.SIGTERM)
        await asyncio.wait_for(first.wait(), timeout=60)
        second = await start_worker(stack, queue, tmp_path / "w2.log")
        figures = await check_runs_and_provider(stack, ws, p["p"], [run_id])
    finally:
        await stop_workers(first, second)
    view = await wait_for_view(stack.client, run_id)
    [lost] = [a for a in view.attempts if a.error_code == "worker_lost"]
    assert lost.rule == "worker.shutdown" and (lost.excerpt or "").endswith(" shut down"), lost
    assert figures["re_sent"] == 1


async def test_a_provider_that_hangs_is_still_the_providers_timeout_and_is_fallen_back_from(stack):
    """The call is held open and never answered: the activity keeps heartbeating, its own timeout fires, and
    that is the provider's `timeout` (short retries, then the next provider), never a lost worker."""
    hang = InjectedFailure(status=504, kind="timeout", hold_s=120)
    ws, agent, p = await stack.workspace(
        {"slow": SimProvider(models=["sim-small"], failures=[hang]), "b": SimProvider(models=["sim-small"])},
        heartbeat_timeout_s=5,  # a margin for a busy machine: a late beat must not pass for a lost worker
        timeout_s=3,
    )
    view = await asyncio.wait_for(run_to_end(stack, ws, agent), timeout=120)
    assert view.status is RunStatus.completed and view.provider == p["b"]
    on_slow = [(a.error_code, a.decision) for a in view.attempts if a.provider == p["slow"]]
    assert on_slow and on_slow[-1] == ("timeout", "fallback")
    assert {code for code, _ in on_slow} == {"timeout"}  # never booked as a lost worker
