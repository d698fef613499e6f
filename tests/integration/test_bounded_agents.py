"""The per-worker limit on live ACP agent processes, on the real dev server with the scripted agent: starts beyond
the limit wait in Temporal's task queue (no attempt made, nothing failed) and every run completes."""

import asyncio
import threading
import uuid

import pytest
from temporalio.api.enums.v1 import EventType, PendingActivityState

from bench.bounded_agents import tree_of
from contracts.activities import Activity
from office.runs import wait_for_view
from office.settings import WorkerSizing
from office.worker_runtime import office_worker
from routing.run import RunStatus
from testkit.agents import received
from testkit.eventually import eventually
from testkit.factories import scripted_agent
from testkit.runs import submit_run

pytestmark = pytest.mark.integration
LIMIT, RUNS, LATENCY_S = 3, 12, 0.4


def agents_running(marker: str) -> int:
    """Scripted agent processes started with `marker`, read from /proc (not from the worker's own bookkeeping)."""
    return tree_of(marker)[0]


class Peak:
    """Samples the agents' process count every few milliseconds in its own thread (the event loop runs the worker)."""

    def __init__(self, marker: str):
        self.marker, self.peak, self.now = marker, 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.now = agents_running(self.marker)
            self.peak = max(self.peak, self.now)
            self._stop.wait(0.005)

    def __enter__(self) -> "Peak":
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


async def waiting_start(handles) -> int:
    """Runs whose agent start Temporal shows as scheduled and not yet picked up (what the UI shows as pending)."""
    waiting = 0
    for handle in handles:
        for pending in (await handle.describe()).raw_description.pending_activities:
            if pending.activity_type.name == Activity.acp_start and (
                pending.state == PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED and pending.attempt == 1
            ):
                waiting += 1
    return waiting


async def test_runs_beyond_the_live_agent_limit_wait_for_a_place_and_all_complete(stack, tmp_path):
    log, marker = tmp_path / "agent.jsonl", f"bounded-{uuid.uuid4().hex[:8]}"
    agent_profile = scripted_agent(log, identity=marker, latency_s=LATENCY_S)  # the marker: this test's agents
    ws, agent, p = await stack.workspace({"claude": agent_profile})
    queue = f"bounded-{uuid.uuid4().hex[:8]}"
    async with office_worker(stack.client, stack.database_url, queue, sizing=WorkerSizing(max_live_agents=LIMIT)):
        with Peak(marker) as peak:
            handles = await asyncio.gather(
                *(
                    submit_run(stack, ws, agent, f"task {i}", task_queue=queue, follow_ups=["go on"])
                    for i in range(RUNS)
                )
            )
            # While LIMIT agents live, the other runs' starts are visibly waiting in the task queue.
            await eventually(
                lambda: waiting_start(handles),
                until=lambda n: n >= 1 and peak.now == LIMIT,
                timeout=20,
                what=f"starts waiting in the task queue while {LIMIT} agents live",
            )
            views = await asyncio.gather(*(wait_for_view(stack.client, h.id) for h in handles))
            await eventually(lambda: peak.now, until=lambda n: n == 0, timeout=10, what="every agent process reaped")

    assert [v.status for v in views] == [RunStatus.completed] * RUNS
    assert peak.peak == LIMIT  # never more, and the limit was used
    # Waiting is not failing: each run made exactly its two turns' attempts on the agent, both succeeded.
    for view in views:
        assert [(a.provider, a.error_code) for a in view.attempts] == [(p["claude"], None)] * 2
    waits = []
    for handle in handles:
        events = (await handle.fetch_history()).events
        kinds = [e.event_type for e in events]
        assert EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED not in kinds
        assert EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT not in kinds
        [scheduled] = [
            e for e in events if e.activity_task_scheduled_event_attributes.activity_type.name == Activity.acp_start
        ]
        [picked] = [
            e for e in events if e.activity_task_started_event_attributes.scheduled_event_id == scheduled.event_id
        ]
        assert picked.activity_task_started_event_attributes.attempt == 1
        waits.append((picked.event_time.ToDatetime() - scheduled.event_time.ToDatetime()).total_seconds())
    # Beyond the first LIMIT, a start waited at least until an earlier run's agent had answered its turns.
    assert sum(w >= LATENCY_S for w in waits) >= RUNS - LIMIT, sorted(waits)
    started = {c["agent"] for c in received(log) if c["method"] == "initialize"}
    assert len(started) == RUNS  # one agent process per run, each started once
