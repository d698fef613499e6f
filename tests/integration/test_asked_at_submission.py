"""A run over its workspace's ceiling waits without costing any worker a task: `office submit` starts it in a start
delay and asks its gate, whose grant wakes it (signal-with-start). On the real dev server: a queued run has no
workflow task until its grant, shows as queued with its place, a cancel or a terminate while it sleeps gives its
place on, a lost ask is mended by the run itself when its delay ends, and a start that names another workspace's
gate is refused."""

import asyncio
from datetime import timedelta

import pytest
from temporalio.api.enums.v1 import EventType

import office.runs
from office.runs import run_view, say, turn_texts, wait_for_view
from office.simulator.config import SimProvider
from routing.backlog import ScopeKind, gate_id
from routing.run import RunRequest, RunStatus
from testkit.ceilings import fifo_violations, peak_overlap, set_workspace_ceiling, workspace_gate
from testkit.eventually import eventually
from testkit.runs import submit_run
from tests.integration.helpers import calls_to

pytestmark = pytest.mark.integration

TASK_EVENTS = {EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED}


async def _event_types(stack, run_id: str) -> list[int]:
    return [e.event_type for e in (await stack.client.get_workflow_handle(run_id).fetch_history()).events]


async def _backlog(stack, ws: str) -> list[str]:
    gate = await workspace_gate(stack, ws)
    return [w.run_id for w in gate.backlog] if gate else []


async def test_a_queued_run_has_no_task_until_its_grant_wakes_it(stack):
    ws, agent, p = await stack.workspace({"alpha": SimProvider(latency_ms=1500)})
    await set_workspace_ceiling(stack, ws, agent, 1)
    holder = await submit_run(stack, ws, agent, "hold")
    queued = await submit_run(stack, ws, agent, "wait")
    await eventually(lambda: _backlog(stack, ws), until=lambda b: b == [queued.id], timeout=20, what="queued")

    shown = await run_view(stack.client, queued.id)  # `office runs show` of a run asleep in its start delay
    assert shown.status is RunStatus.queued and shown.queue is not None and shown.queue.position == 1
    assert not TASK_EVENTS & set(await _event_types(stack, queued.id))  # no worker has spent a task on it

    views = await asyncio.gather(*(wait_for_view(stack.client, h.id) for h in (holder, queued)))
    assert [v.status for v in views] == [RunStatus.completed] * 2
    assert peak_overlap(calls_to(stack, p["alpha"])) == 1
    events = await _event_types(stack, queued.id)
    first_task = events.index(EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED)
    assert EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED in events[:first_task]  # woken by its grant
    waited = views[1].queue
    assert waited is not None and waited.granted_at is not None and waited.granted_at > waited.queued_at
    gate = await workspace_gate(stack, ws)
    assert gate is not None and gate.holders == [] and gate.backlog == []


async def test_a_backlog_left_asleep_wakes_spread_over_its_delays_not_at_once(stack):
    """Runs queued at once each sleep ASKED_START_DELAY plus a share of ASKED_START_SPREAD (the server's own
    execution times say so), so a flood still queued when its delays end does not wake all at once."""
    ws, agent, _ = await stack.workspace({"alpha": SimProvider(latency_ms=1000)})
    await set_workspace_ceiling(stack, ws, agent, 1)
    holder = await submit_run(stack, ws, agent, "hold")
    queued, delays = [], []
    for i in range(6):  # each described as soon as it is queued, before any grant wakes it
        queued.append(handle := await submit_run(stack, ws, agent, f"wait {i}"))
        desc = await stack.client.get_workflow_handle(handle.id).describe()
        assert desc.execution_time is not None
        delays.append(desc.execution_time - desc.start_time)
    low, high = office.runs.ASKED_START_DELAY, office.runs.ASKED_START_DELAY + office.runs.ASKED_START_SPREAD
    assert all(low <= d <= high for d in delays), delays
    assert max(delays) - min(delays) > timedelta(seconds=1), delays  # six draws: spread, not one instant
    views = await asyncio.gather(*(wait_for_view(stack.client, h.id) for h in (holder, *queued)))
    assert {v.status for v in views} == {RunStatus.completed}


async def test_a_turn_said_to_a_sleeping_run_waits_with_it_for_its_grant(stack):
    """`office runs say` to a run asleep in its start delay: the update wakes it (a query would not), the run stays
    queued behind the holder, and both turns are answered once it is granted."""
    ws, agent, p = await stack.workspace({"alpha": SimProvider(latency_ms=1500)})
    await set_workspace_ceiling(stack, ws, agent, 1)
    holder = await submit_run(stack, ws, agent, "hold")
    queued = await submit_run(stack, ws, agent, "wait")
    await eventually(lambda: _backlog(stack, ws), until=lambda b: b == [queued.id], timeout=20, what="queued")

    accepted = await say(stack.client, queued.id, "and then this")
    assert accepted.ahead == 0
    shown = await run_view(stack.client, queued.id)
    assert shown.status is RunStatus.queued and shown.queue is not None and shown.queue.granted_at is None

    views = await asyncio.gather(*(wait_for_view(stack.client, h.id) for h in (holder, queued)))
    assert [v.status for v in views] == [RunStatus.completed] * 2
    assert peak_overlap(calls_to(stack, p["alpha"])) == 1  # the woken run waited for its slot all the same
    turns = await turn_texts(stack.store, queued.id)
    assert [t.said for t in turns] == ["wait", "and then this"] and all(t.answer for t in turns)


async def test_a_sleeping_run_cancelled_or_terminated_gives_its_place_to_the_next(stack):
    ws, agent, _ = await stack.workspace({"alpha": SimProvider(latency_ms=2500)})
    await set_workspace_ceiling(stack, ws, agent, 1)
    holder = await submit_run(stack, ws, agent, "hold")
    cancelled, terminated, last = [await submit_run(stack, ws, agent, f"wait {i}") for i in range(3)]
    await eventually(lambda: _backlog(stack, ws), until=lambda b: len(b) == 3, timeout=20, what="three queued")

    await stack.client.get_workflow_handle(cancelled.id).cancel()  # a cancel wakes it: it leaves the backlog
    await eventually(lambda: _backlog(stack, ws), until=lambda b: cancelled.id not in b, timeout=20, what="left")
    await stack.client.get_workflow_handle(terminated.id).terminate("an operator ends it while it sleeps")

    views = await asyncio.gather(*(wait_for_view(stack.client, h.id) for h in (holder, cancelled, last)))
    assert [v.status for v in views] == [RunStatus.completed, RunStatus.cancelled, RunStatus.completed]
    gate = await eventually(
        lambda: workspace_gate(stack, ws), until=lambda g: g and not g.holders, timeout=20, what="slots back"
    )
    assert gate is not None and gate.backlog == []  # the terminated run's grant found nobody: passed on


async def test_a_lost_ask_is_mended_by_the_run_when_its_delay_ends(stack, monkeypatch):
    async def lost(*_args: object, **_kwargs: object) -> None:  # the submitter died between its two calls
        return None

    monkeypatch.setattr(office.runs, "ask_by_signal", lost)
    monkeypatch.setattr(office.runs, "ASKED_START_DELAY", timedelta(seconds=2))
    monkeypatch.setattr(office.runs, "ASKED_START_SPREAD", timedelta(0))
    ws, agent, p = await stack.workspace({"alpha": SimProvider()})
    await set_workspace_ceiling(stack, ws, agent, 1)
    handle = await submit_run(stack, ws, agent, "nobody asked for me")
    assert await _backlog(stack, ws) == []  # the gate never heard of it
    view = await asyncio.wait_for(wait_for_view(stack.client, handle.id), 60)
    assert view.status is RunStatus.completed and len(calls_to(stack, p["alpha"])) == 1
    gate = await workspace_gate(stack, ws)  # it asked by itself, held its slot and gave it back
    assert gate is not None and gate.granted == 1 and gate.holders == [] and gate.backlog == []


async def test_a_start_that_names_another_workspaces_gate_is_refused(stack):
    ws, agent, _ = await stack.workspace({"alpha": SimProvider()})
    other, _, _ = await stack.workspace({"alpha": SimProvider()})
    forged = RunRequest(run_id="forged-gate-1", workspace=ws, agent=agent, prompt="hi",
                        asked_gate=gate_id(ScopeKind.workspace, other))  # fmt: skip
    await office.runs.start_request(stack.client, forged, stack.task_queue, "sim-small", "forged")
    view = await wait_for_view(stack.client, forged.run_id)
    assert view.status is RunStatus.failed and view.message and "asked_gate" in view.message


async def test_runs_submitted_at_once_are_served_in_the_servers_start_order(stack):
    ws, agent, _ = await stack.workspace({"alpha": SimProvider(latency_ms=300)})
    await set_workspace_ceiling(stack, ws, agent, 1)
    handles = await asyncio.gather(*(submit_run(stack, ws, agent, f"at once {i}") for i in range(10)))
    started = {h.id: (await h.describe()).start_time for h in handles}
    views = await asyncio.gather(*(wait_for_view(stack.client, h.id) for h in handles))
    assert [v.status for v in views] == [RunStatus.completed] * 10
    in_start_order = sorted(views, key=lambda v: started[v.run_id])
    assert fifo_violations(in_start_order) == 0  # not the order in which the submitters' calls came back
