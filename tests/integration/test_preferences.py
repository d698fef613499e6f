"""Fallback is not preference: pins are strict, substitutes are one-time, the watchdog is only a backstop,
and every run can be explained in three timelines."""

import asyncio
import signal
import uuid
from datetime import timedelta

import pytest
from sqlalchemy import insert
from temporalio.client import WorkflowUpdateFailedError

from contracts.watchdog import SCHEDULE_ID
from office.explain import explain_run
from office.runs import wait_for_view
from office.simulator.config import InjectedFailure, SimProvider
from office.watchdog_schedule import install_watchdog
from routing.run import RunStatus
from routing.selection import SelectionKind, UserDecision, UserSelection
from store.preferences import PreferenceWriter
from store.repository import utcnow
from store.tables import SelectionRow
from testkit.eventually import eventually
from testkit.runs import run_to_end, submit_run
from workflows.office_run import OfficeRunWorkflow

from .helpers import calls_to, stop_workers, wait_for_status
from .helpers import start_worker as _start_worker

pytestmark = pytest.mark.integration
KEY = "sk-sim-test"


async def _durable_state(stack) -> tuple[list, list, dict]:
    selections = [(r.agent, r.kind, r.source) for r in await stack.store.selections()]
    events = [(e.agent, e.source, e.actor) for e in await stack.store.selection_events()]
    profiles = {a.name: a.model_dump() for a in await stack.store.list_agents()}
    return selections, events, profiles


async def test_a_fallback_does_not_stick_the_next_run_starts_on_the_configured_provider(stack):
    limited = InjectedFailure(status=429, kind="rate_limit", retry_after_s=1, times=3)
    ws, agent, p = await stack.workspace({"primary": SimProvider(failures=[limited]), "secondary": SimProvider()})
    before = await _durable_state(stack)
    first = await run_to_end(stack, ws, agent)
    assert [(a.provider, a.source, a.decision) for a in first.attempts] == [
        (p["primary"], "default", "short_retry"),
        (p["primary"], "default", "short_retry"),
        (p["primary"], "default", "fallback"),
        (p["secondary"], "auto", None),
    ]
    assert await _durable_state(stack) == before  # no preference, profile or pin was written
    # Health is evidence with an expiry (the Retry-After), not a preference: once it passes, the order rules.
    [health] = [h for h in await stack.store.list_health() if h.provider == p["primary"]]
    await asyncio.sleep(max(0.0, (health.retry_at - utcnow()).total_seconds()))
    second = await run_to_end(stack, ws, agent)
    assert [(a.provider, a.source, a.outcome) for a in second.attempts] == [(p["primary"], "default", "succeeded")]


async def test_no_automatic_preference_after_many_failovers_and_a_worker_restart(stack, tmp_path):
    before_selections, before_events, _ = await _durable_state(stack)
    gone = InjectedFailure(status=404, kind="model_not_found", models=["sim-small"])
    scenarios = [
        {"a": SimProvider(api_key="sk-x"), "b": SimProvider(api_key=KEY)},
        {"a": SimProvider(failures=[gone]), "b": SimProvider()},
        {"a": SimProvider(failures=[InjectedFailure(status=429, kind="quota")]), "b": SimProvider()},
        {
            "a": SimProvider(failures=[InjectedFailure(status=503, kind="overloaded", shape="gemini")]),
            "b": SimProvider(),
        },
        {
            "a": SimProvider(failures=[InjectedFailure(status=529, kind="overloaded", shape="anthropic")]),
            "b": SimProvider(),
        },
    ]
    workspaces = [await stack.workspace(providers, credential_env="OFFICE_CRED_TEST_KEY") for providers in scenarios]
    agents = [agent for _, agent, _ in workspaces]
    queue = f"prefs-{uuid.uuid4().hex[:6]}"
    ws, agent, p = await stack.workspace(
        {"a": SimProvider(api_key="sk-x"), "b": SimProvider(api_key=KEY, latency_ms=3000)},
        credential_env="OFFICE_CRED_TEST_KEY",
        heartbeat_timeout_s=2,
    )
    agents.append(agent)
    worker = await _start_worker(stack, queue, tmp_path / "w1.log")  # starting up while the failovers run
    try:
        # The failovers at once, each in its own workspace: a preference any of them wrote is still seen below.
        views = await asyncio.gather(*(run_to_end(stack, ws, agent) for ws, agent, _ in workspaces))
        for view in views:
            assert view.status is RunStatus.completed and view.fallback_count == 1

        # A worker dies while the fallback provider is answering; a new worker finishes the run.
        handle = await submit_run(stack, ws, agent, "task", task_queue=queue)
        await eventually(lambda: calls_to(stack, p["b"]), timeout=60, what="the fallback provider b to be called")
        worker.send_signal(signal.SIGKILL)
        await worker.wait()
        worker = await _start_worker(stack, queue, tmp_path / "w2.log")
        view = await asyncio.wait_for(wait_for_view(stack.client, handle.id), timeout=90)
    finally:
        await stop_workers(worker)
    assert view.status is RunStatus.completed and view.provider == p["b"]

    selections, events, profiles = await _durable_state(stack)
    assert (selections, events) == (before_selections, before_events)
    assert all(s[2] == "user" for s in selections)
    for name in agents:
        assert profiles[name]["model"] == "sim-small" and profiles[name]["pinned_providers"] == []


async def test_a_pinned_run_parks_and_a_one_time_substitute_is_never_saved(stack):
    ws, agent, p = await stack.workspace(
        {"a": SimProvider(api_key="sk-rotated"), "b": SimProvider(api_key=KEY)}, credential_env="OFFICE_CRED_TEST_KEY"
    )
    await PreferenceWriter(stack.store).set_user_selection(
        UserSelection(agent=agent, kind=SelectionKind.provider, value=[p["a"]], actor="alice", reason="team policy")
    )
    handle = await submit_run(stack, ws, agent, "task")
    parked = await wait_for_status(stack, handle.id, RunStatus.parked)
    assert parked.park_reason == "awaiting_user_decision"
    assert [(a.provider, a.source, a.error_code) for a in parked.attempts] == [(p["a"], "user", "auth_required")]
    assert calls_to(stack, p["b"]) == []  # never fell back outside the pin

    with pytest.raises(WorkflowUpdateFailedError):  # a substitute needs a provider
        await handle.execute_update(OfficeRunWorkflow.user_decision, UserDecision(action="substitute"))
    await handle.execute_update(
        OfficeRunWorkflow.user_decision, UserDecision(action="substitute", provider=p["b"], actor="alice")
    )
    view = await wait_for_view(stack.client, handle.id)
    assert view.status is RunStatus.completed
    assert [(a.provider, a.source) for a in view.attempts] == [(p["a"], "user"), (p["b"], "user")]
    assert (await stack.store.user_pins(agent)).providers == [p["a"]]  # the pin is unchanged

    again = await submit_run(stack, ws, agent, "next task")
    assert (await wait_for_status(stack, again.id, RunStatus.parked)).park_reason == "awaiting_user_decision"
    await again.execute_update(OfficeRunWorkflow.user_decision, UserDecision(action="cancel", actor="alice"))
    assert (await wait_for_view(stack.client, again.id)).status is RunStatus.cancelled


async def test_a_run_pin_of_an_unadvertised_model_parks_instead_of_running_another_model(stack):
    ws, agent, p = await stack.workspace({"a": SimProvider(models=["sim-small"])})
    handle = await submit_run(stack, ws, agent, "task", pin_model="sim-huge")
    parked = await wait_for_status(stack, handle.id, RunStatus.parked)
    assert parked.park_reason == "awaiting_user_decision"
    assert calls_to(stack, p["a"]) == []  # not even a chat on the default model
    await handle.execute_update(
        OfficeRunWorkflow.user_decision, UserDecision(action="substitute", provider=p["a"], model="sim-small")
    )
    view = await wait_for_view(stack.client, handle.id)
    assert view.status is RunStatus.completed and view.effective_model == "sim-small"


async def test_watchdog_clears_planted_automatic_state_audits_it_and_explain_shows_all_three_timelines(stack):
    ws, agent, p = await stack.workspace(
        {"a": SimProvider(api_key="sk-x"), "b": SimProvider(api_key=KEY)}, credential_env="OFFICE_CRED_TEST_KEY"
    )
    view = await run_to_end(stack, ws, agent)
    # Plant what an old, buggy runtime would have left: the fallback written as a preference.
    old = utcnow() - timedelta(hours=2)
    async with stack.store.db() as s:
        await s.execute(
            insert(SelectionRow).values(
                agent=agent, kind="provider", value=[p["b"]], source="auto", written_by_run=view.run_id, created_at=old
            )
        )
        await s.execute(
            insert(SelectionRow).values(
                agent=agent, kind="model", value=["sim-small"], source="user", actor="bob", created_at=old
            )
        )
        await s.commit()
    await install_watchdog(
        stack.client, every=timedelta(hours=1), max_age=timedelta(hours=1), task_queue=stack.task_queue
    )
    await stack.client.get_schedule_handle(SCHEDULE_ID).trigger()
    await eventually(
        lambda: stack.store.selection_events(agent=agent),
        until=lambda events: any(e.actor.startswith("watchdog") for e in events),
        timeout=60,
        interval=0.1,
        what=f"the watchdog to record an event for {agent}",
    )
    remaining = [(r.kind, r.source) for r in await stack.store.selections() if r.agent == agent]
    assert remaining == [("model", "user")]  # user state untouched
    [audit] = [e for e in await stack.store.selection_events(agent=agent) if e.actor.startswith("watchdog")]
    assert (audit.action, audit.source, audit.written_by_run, audit.value) == ("cleared", "auto", view.run_id, [p["b"]])
    assert "older than" in audit.reason

    report = await explain_run(stack.client, stack.store, view.run_id)
    assert [(s["provider"], s["source"], s["decision"]) for s in report["selected"]] == [
        (p["a"], "default", "fallback"),
        (p["b"], "auto", None),
    ]
    assert report["selected"][0]["reason"]
    assert any(
        step["event"] == "activity_task_scheduled" and step.get("summary", "").startswith("turn 1 on")
        for step in report["live"]
    )
    health = [(d["provider"], d["state"], d["code"]) for d in report["durable"] if d["kind"] == "provider_health"]
    assert health == [(p["a"], "user_action_required", "auth_required")]  # b was healthy: nothing to restore
    assert [(c["written_by_run"], c["source"]) for c in report["cleanup"]] == [(view.run_id, "auto")]
