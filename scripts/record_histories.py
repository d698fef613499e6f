"""Records the histories of real runs into tests/histories/*.json for the replay test.

Run `make record-histories` after a deliberate workflow change (or `python scripts/record_histories.py NAME …` for
some scenarios only). When the change is guarded by workflow.patched, first keep the old files under a version
prefix (v0_*.json, v1_*.json, …) so both code paths stay covered by the replay test. `encrypted_happy_path` is
recorded with the payload codec on, under the test-only key in tests/histories/codec-keys.txt."""

import asyncio
import contextlib
import json
import os
import socket
import sys
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from temporalio.client import WorkflowFailureError, WorkflowHandle

from activities.executors import acp as acp_executor
from office.codec import KEYS_FILE_ENV
from office.relink import relink
from office.runs import run_view, say, submit, wait_for_view
from office.schedule_request import ScheduleRequest
from office.schedules import create_schedule
from office.simulator.config import InjectedFailure, SimProvider
from office.temporal_client import connect
from office.worker_runtime import office_worker
from routing.backlog import RunPriority, ScopeKind, gate_id
from routing.budget import RunLimits
from routing.config import ExecutionProfile, ExecutorKind
from routing.conversation import HistoryBound
from routing.notify import NotifyEndpoint, NotifyEvent, notify_workflow_id
from routing.permissions import PermissionPolicy
from routing.questions import ANSWER_PERMISSION, AWAITING_PERMISSION, PermissionAnswer
from routing.run import RunStatus
from routing.selection import UserDecision
from routing.usage import ModelPrice
from testkit.agents import scripted_sandbox
from testkit.ceilings import asked_by_each_run
from testkit.eventually import eventually
from testkit.stack import Stack, ephemeral_stack
from workflows.gate import GateWorkflow
from workflows.office_run import OfficeRunWorkflow

OUT = Path(__file__).resolve().parent.parent / "tests" / "histories"


async def main(only: set[str]) -> None:
    os.environ["OFFICE_CRED_RECORD_KEY"] = "sk-sim-record"
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        async with ephemeral_stack(f"sqlite:///{tmp}/office.db") as stack:
            if not only or "encrypted_happy_path" in only:
                await record_encrypted(stack)
            if not only or "notify" in only:
                await record_notify(stack)
            if not only or "continued_run" in only:
                await record_continued(stack)
            if not only or "budget_parked_raised" in only:
                await record_budget(stack)
            if not only or "scheduled_run" in only:
                await record_scheduled(stack)
            # acp_permission_question.json stays as recorded before grant-on-delivery-v1 (the grant made on the
            # answer); the scenario is recorded again under this name with the grant made on the session's word.
            if not only or "acp_permission_grant_on_delivery" in only:
                await record_permission_question(stack, "acp_permission_grant_on_delivery")
            if not only or "continued_as_new" in only:
                await record_continued_as_new(stack)
            # ceiling_queued.json stays as recorded before gate-enter-v1 (asks by signal-with-start); the holder
            # granted in its ask's answer and a run queued behind it are recorded under these names since.
            if not only or "ceiling_entered" in only:
                with asked_by_each_run():
                    await record_ceiling(stack, "ceiling_entered", "ceiling_entered_queued", "gate_entered")
            # Since gate-asked-at-submission-v1: `office submit` asks the gate, the queued run sleeps until woken.
            if not only or "ceiling_asked" in only:
                await record_ceiling(stack, "ceiling_asked", "ceiling_asked_queued", "gate_woke")
            # Since launch-stalls-end-alone-v1: an agent that never starts, with nothing else eligible, ends the run.
            # acp_launch_stalled_alone_retried.json stays as recorded before it (the third stall retried as a lost
            # worker; terminated at the fourth attempt): it holds the gate's old branch.
            if not only or "acp_launch_stalled_alone" in only:
                await record_launch_stalled_alone(stack)
            # Since unreadable-failure-parks-v1: a failure nobody could read parks for a person, who retries it.
            # unreadable_failure_v0.json stays as recorded before it (the run failed at once): the gate's old branch.
            if not only or "unreadable_failure_retried" in only:
                await record_unreadable_failure(stack, "unreadable_failure_retried")
            if only:
                return
            gone = InjectedFailure(status=404, kind="model_not_found", models=["old-model"])
            scenarios = {
                "happy_path": await stack.workspace({"alpha": SimProvider()}),
                "auth_fallback": await stack.workspace(
                    {"alpha": SimProvider(api_key="sk-other"), "beta": SimProvider(api_key="sk-sim-record")},
                    credential_env="OFFICE_CRED_RECORD_KEY",
                ),
                "model_gone_terminal": await stack.workspace(
                    {
                        "alpha": SimProvider(models=["old-model"], failures=[gone]),
                        "beta": SimProvider(models=["old-model"], failures=[gone]),
                    },
                    model="old-model",
                ),
                "rate_limit_short_retry": await stack.workspace(
                    {
                        "alpha": SimProvider(
                            failures=[InjectedFailure(status=429, kind="rate_limit", retry_after_s=1, times=1)]
                        )
                    }
                ),
                "model_drift_warning": await stack.workspace(
                    {"alpha": SimProvider(models=["sim-small"])}, model="gpt-4-0314"
                ),
            }
            for name, (workspace, agent, _) in scenarios.items():
                handle = await submit(
                    stack.client, stack.store, workspace, agent, f"scenario {name}", run_id=f"record-{name}"
                )
                view = await wait_for_view(stack.client, handle.id)
                await save(handle, name, view.status.value)

            # A pinned run parks awaiting the user's decision; the user approves a one-time substitute.
            workspace, agent, names = await stack.workspace(
                {"alpha": SimProvider(api_key="sk-other"), "beta": SimProvider(api_key="sk-sim-record")},
                credential_env="OFFICE_CRED_RECORD_KEY",
            )
            handle = await submit(
                stack.client,
                stack.store,
                workspace,
                agent,
                "scenario pinned",
                run_id="record-pinned_substitute",
                pin_providers=[names["alpha"]],
            )
            await eventually(
                lambda: handle.query(OfficeRunWorkflow.status),
                until=lambda view: view is not None and view.status is RunStatus.parked,
                timeout=60,
                interval=0.1,
                what="the pinned run to park awaiting the user's decision",
            )
            await handle.execute_update(
                OfficeRunWorkflow.user_decision, UserDecision(action="substitute", provider=names["beta"])
            )
            view = await wait_for_view(stack.client, handle.id)
            await save(handle, "pinned_substitute", view.status.value)

            # ACP: an agent that demands authentication → the next provider; a live session over two turns.
            for name, script, providers in (
                ("acp_auth_fallback", {"auth_required": True}, {"beta": SimProvider()}),
                ("acp_two_turns", {"models": ["sim-small"]}, {}),
            ):
                workspace, agent, _ = await stack.workspace({"claude": scripted_agent(script), **providers})
                handle = await submit(
                    stack.client,
                    stack.store,
                    workspace,
                    agent,
                    f"scenario {name}",
                    run_id=f"record-{name}",
                    follow_ups=["and the next step"],
                )
                view = await wait_for_view(stack.client, handle.id)
                await save(handle, name, view.status.value)


async def record_launch_stalled_alone(stack: Stack) -> None:
    """The scripted agent never answers `initialize` and no other provider is configured: two stalls are retried as
    lost workers, the third ends the run naming the profile (the launch timeout shortened, as the tests do)."""
    launch_timeout, acp_executor.LAUNCH_TIMEOUT_S = acp_executor.LAUNCH_TIMEOUT_S, 1.0
    try:
        workspace, agent, _ = await stack.workspace({"claude": scripted_agent({"stall_at_start": True})})
        handle = await submit(
            stack.client, stack.store, workspace, agent, "scenario launch stalled", run_id="record-launch-stalled"
        )
        view = await wait_for_view(stack.client, handle.id)
        await save(handle, "acp_launch_stalled_alone", view.status.value)
    finally:
        acp_executor.LAUNCH_TIMEOUT_S = launch_timeout


async def record_unreadable_failure(stack: Stack, name: str) -> None:
    """A failure no rule reads, once: the run parks for a person (`unreadable_failure`), who decides to retry, and
    the route answers. Recorded before unreadable-failure-parks-v1, the run failed at once instead."""
    weird = InjectedFailure(status=599, kind="opaque", message="the flux capacitor is misaligned", times=1)
    workspace, agent, _ = await stack.workspace({"alpha": SimProvider(failures=[weird]), "beta": SimProvider()})
    handle = await submit(stack.client, stack.store, workspace, agent, "scenario unreadable", run_id=f"record-{name}")
    view = await eventually(
        lambda: handle.query(OfficeRunWorkflow.status),
        until=lambda view: view is not None and view.status in (RunStatus.parked, RunStatus.failed),
        timeout=60,
        interval=0.1,
        what="the run to park for a person (or, before the gate, to fail)",
    )
    if view is not None and view.status is RunStatus.parked:
        await handle.execute_update(OfficeRunWorkflow.user_decision, UserDecision(action="retry", actor="recorder"))
    view = await wait_for_view(stack.client, handle.id)
    await save(handle, name, view.status.value)


async def record_encrypted(stack: Stack) -> None:
    """A happy path whose payloads are AES-GCM ciphertext in history (a worker and client with the codec)."""
    os.environ[KEYS_FILE_ENV] = str(OUT / "codec-keys.txt")
    try:
        client = await connect(address=stack.temporal.address, namespace="default")
    finally:
        del os.environ[KEYS_FILE_ENV]
    workspace, agent, _ = await stack.workspace({"alpha": SimProvider()})
    async with office_worker(client, stack.database_url, "record-encrypted"):
        handle = await submit(
            client,
            stack.store,
            workspace,
            agent,
            "scenario encrypted",
            run_id="record-encrypted_happy_path",
            task_queue="record-encrypted",
        )
        view = await wait_for_view(client, handle.id)
    await save(handle, "encrypted_happy_path", view.status.value)


async def record_notify(stack: Stack) -> None:
    """A run with webhooks that parks, is resumed and completes (each event starts a notification workflow), and
    the completed event's notification workflow, whose endpoint is down: recorded dead after its one attempt."""
    os.environ["OFFICE_CRED_RECORD_HOOK"] = "whsec_" + "A" * 32
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        down = f"http://127.0.0.1:{s.getsockname()[1]}/hook"
    workspace, agent, names = await stack.workspace(
        {"alpha": SimProvider(api_key="sk-other")}, credential_env="OFFICE_CRED_RECORD_KEY"
    )
    config = await stack.store.get_workspace(workspace)
    assert config is not None
    hook = NotifyEndpoint(
        url=down, events=[NotifyEvent.parked, NotifyEvent.completed], secret_env="OFFICE_CRED_RECORD_HOOK",
        max_attempts=1,
    )  # fmt: skip
    await stack.store.save_workspace(config.model_copy(update={"notify": [hook]}))
    handle = await submit(stack.client, stack.store, workspace, agent, "scenario notify", run_id="record-notify")
    await eventually(
        lambda: handle.query(OfficeRunWorkflow.status),
        until=lambda view: view is not None and view.status is RunStatus.parked,
        timeout=60,
        interval=0.1,
        what="the run to park for new credentials",
    )
    await stack.simulator.set_provider(names["alpha"], SimProvider(api_key="sk-sim-record"))
    await handle.signal(OfficeRunWorkflow.resume)
    view = await wait_for_view(stack.client, handle.id)
    await save(handle, "notify_parked_completed", view.status.value)
    first = handle.first_execution_run_id or ""
    child = stack.client.get_workflow_handle(notify_workflow_id(handle.id, "completed", 1, first))
    with contextlib.suppress(WorkflowFailureError):
        await child.result()
    await save(child, "notify_dead_endpoint", "failed")


async def record_continued(stack: Stack) -> None:
    """`office runs continue`: a new run that carries an ended run's two turns (copied by its carry-over
    activity) and answers a third."""
    workspace, agent, _ = await stack.workspace({"alpha": SimProvider()})
    ended = await submit(stack.client, stack.store, workspace, agent, "scenario continued", run_id="record-ended",
                         follow_ups=["and the next step"])  # fmt: skip
    await wait_for_view(stack.client, ended.id)
    handle = await relink(stack.client, stack.store, ended.id, "continue", "and one more", "record-continued_run")
    view = await wait_for_view(stack.client, handle.id)
    await save(handle, "continued_run", view.status.value)


async def record_budget(stack: Stack) -> None:
    """A run with max_cost_usd parks before its second turn (budget_exhausted); raising it lets the run finish."""
    workspace, agent, _ = await stack.workspace({"alpha": SimProvider()})
    config = await stack.store.get_workspace(workspace)
    assert config is not None
    price = ModelPrice(input_per_million=3.0, output_per_million=15.0)
    await stack.store.save_workspace(config.model_copy(update={"prices": {"sim-small": price}}))
    handle = await submit(
        stack.client, stack.store, workspace, agent, "scenario budget", run_id="record-budget_parked_raised",
        follow_ups=["and the next step"], max_cost_usd=1e-9,
    )  # fmt: skip
    await eventually(
        lambda: handle.query(OfficeRunWorkflow.status),
        until=lambda view: view is not None and view.status is RunStatus.parked,
        timeout=60,
        interval=0.1,
        what="the run to park on its budget",
    )
    await handle.signal(OfficeRunWorkflow.set_budget, RunLimits(max_cost_usd=10.0))
    view = await wait_for_view(stack.client, handle.id)
    await save(handle, "budget_parked_raised", view.status.value)


async def record_scheduled(stack: Stack) -> None:
    """A run a schedule started (triggered now): its request has no run id, it takes its workflow id."""
    workspace, agent, _ = await stack.workspace({"alpha": SimProvider()})
    request = ScheduleRequest(name="record-scheduled", workspace=workspace, agent=agent, prompt="scenario scheduled",
                              every=timedelta(hours=1), task_queue=stack.task_queue)  # fmt: skip
    schedule = await create_schedule(stack.client, stack.store, request)
    try:
        await schedule.trigger()
        described = await eventually(
            schedule.describe, until=lambda d: d.info.recent_actions, timeout=60, what="the scheduled run"
        )
        run_id = described.info.recent_actions[-1].action.workflow_id  # type: ignore[attr-defined]
        view = await wait_for_view(stack.client, run_id)
        await save(stack.client.get_workflow_handle(run_id), "scheduled_run", view.status.value)
    finally:
        await schedule.delete()


async def record_permission_question(stack: Stack, name: str) -> None:
    """`edit: ask`, `delete: ask`: a person allows editing a.txt for the run (`--for-run`), editing b.txt passes by
    that grant, deleting c.txt (another kind) waits until permissions.ask_timeout refuses it."""
    asks = (("edit", "a.txt"), ("edit", "b.txt"), ("delete", "c.txt"))
    actions = [{"permission": kind, "raw_input": {"file_path": path}} for kind, path in asks]
    workspace, agent, _ = await stack.workspace({"claude": scripted_agent({"actions": actions})})
    config = await stack.store.get_workspace(workspace)
    assert config is not None, workspace
    policy = PermissionPolicy(edit="ask", delete="ask", ask_timeout=1)
    await stack.store.save_workspace(config.model_copy(update={"permissions": policy}))
    handle = await submit(stack.client, stack.store, workspace, agent, f"scenario {name}", run_id=f"record-{name}")
    await eventually(
        lambda: handle.query(OfficeRunWorkflow.status),
        until=lambda view: view is not None and view.awaiting == AWAITING_PERMISSION,
        timeout=60,
        interval=0.1,
        what="the run awaiting a permission answer",
    )
    await handle.execute_update(ANSWER_PERMISSION, PermissionAnswer(allow=True, for_run=True, actor="recorder"))
    view = await wait_for_view(stack.client, handle.id)
    await save(handle, name, view.status.value)


async def record_continued_as_new(stack: Stack) -> None:
    """A conversation past a low history bound: its first history ends continued as new; its last one starts from
    the carried state, goes idle, takes a `say` and completes after the idle timeout."""
    workspace, agent, _ = await stack.workspace({"alpha": SimProvider()})
    config = await stack.store.get_workspace(workspace)
    assert config is not None
    bound = HistoryBound(max_events=100, max_bytes=64 * 1024, turn_events=20, turn_bytes=16 * 1024)
    await stack.store.save_workspace(config.model_copy(update={"history_bound": bound, "idle_timeout": 2}))
    handle = await submit(
        stack.client,
        stack.store,
        workspace,
        agent,
        "scenario continued 1",
        run_id="record-continued_as_new",
        follow_ups=[f"scenario continued {i}" for i in range(2, 17)],
    )
    await eventually(
        lambda: handle.query(OfficeRunWorkflow.status),
        until=lambda view: view is not None and view.status is RunStatus.idle,
        timeout=120,
        interval=0.1,
        what="the continued run to answer its turns and go idle",
    )
    await say(stack.client, handle.id, "scenario continued: one more")
    view = await wait_for_view(stack.client, handle.id)
    assert view.continued >= 1, "the run did not continue as new: lower the bound"
    first = stack.client.get_workflow_handle(handle.id, run_id=handle.first_execution_run_id)
    await save(first, "continued_as_new_first", "continued as new")
    await save(stack.client.get_workflow_handle(handle.id), "continued_as_new_last", view.status.value)


async def record_ceiling(stack: Stack, holder_name: str, queued_name: str, gate_name: str) -> None:
    """A run queued behind a workspace ceiling of 1 (the holder answers slowly), granted when the holder ends."""
    workspace, agent, _ = await stack.workspace({"alpha": SimProvider(latency_ms=1500)})
    ws, _ = await stack.store.configs(workspace, agent)
    assert ws is not None
    await stack.store.save_workspace(ws.model_copy(update={"max_concurrent_runs": 1}))
    holder = await submit(
        stack.client, stack.store, workspace, agent, "scenario holder", run_id=f"record-{holder_name}"
    )
    await eventually(
        lambda: run_view(stack.client, holder.id),  # asleep until its grant, a run answers no query
        until=lambda view: view.queue is not None and view.queue.grant is not None,
        timeout=60,
        interval=0.1,
        what="the first run to hold the workspace's slot",
    )
    handle = await submit(
        stack.client, stack.store, workspace, agent, "scenario queued", run_id=f"record-{queued_name}",
        priority=RunPriority.interactive,
    )  # fmt: skip
    view = await wait_for_view(stack.client, handle.id)
    assert view.queue is not None and view.queue.grant == 2, view.queue
    await save(holder, holder_name, (await wait_for_view(stack.client, holder.id)).status.value)
    await save(handle, queued_name, view.status.value)
    # The gate itself (it runs on: replayed as far as it went). gate_by_signal.json is one from before gate-enter-v1.
    gate = stack.client.get_workflow_handle(gate_id(ScopeKind.workspace, workspace))
    await eventually(
        lambda: gate.query(GateWorkflow.snapshot),
        until=lambda state: not state.holders and not state.backlog,
        timeout=60,
        interval=0.1,
        what="both runs' releases to reach the gate",
    )
    await save(gate, gate_name, "running")


def scripted_agent(script: dict[str, Any]) -> ExecutionProfile:
    root = Path(__file__).resolve().parent.parent
    return ExecutionProfile(
        kind=ExecutorKind.acp,
        command=[sys.executable, "-m", "office.scripted_agent"],
        env={"SCRIPTED_AGENT": json.dumps(script), "PYTHONPATH": str(root)},
        sandbox=scripted_sandbox(),
    )


async def save(handle: WorkflowHandle[Any, Any], name: str, status: str) -> None:
    history = await handle.fetch_history()
    (OUT / f"{name}.json").write_text(history.to_json())
    print(f"{name}: {status}, {len(history.events)} events")


if __name__ == "__main__":
    asyncio.run(main(set(sys.argv[1:])))
