"""Records the histories of real runs into tests/histories/*.json for the replay test.

Run `make record-histories` after a deliberate workflow change (or `python scripts/record_histories.py NAME …` for
some scenarios only). When the change is guarded by workflow.patched, first keep the old files under a version
prefix (v0_*.json, v1_*.json, …) so both code paths stay covered by the replay test. `encrypted_happy_path` is
recorded with the payload codec on, under the test-only key in tests/histories/codec-keys.txt."""

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from temporalio.client import WorkflowHandle

from office.codec import KEYS_FILE_ENV
from office.runs import submit, wait_for_view
from office.simulator.config import InjectedFailure, SimProvider
from office.temporal_client import connect
from office.worker_runtime import office_worker
from routing.backlog import RunPriority
from routing.config import ExecutionProfile, ExecutorKind
from routing.run import RunStatus
from routing.selection import UserDecision
from testkit.agents import scripted_sandbox
from testkit.eventually import eventually
from testkit.stack import Stack, ephemeral_stack
from workflows.office_run import OfficeRunWorkflow

OUT = Path(__file__).resolve().parent.parent / "tests" / "histories"


async def main(only: set[str]) -> None:
    os.environ["OFFICE_CRED_RECORD_KEY"] = "sk-sim-record"
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        async with ephemeral_stack(f"sqlite:///{tmp}/office.db") as stack:
            if not only or "encrypted_happy_path" in only:
                await record_encrypted(stack)
            if not only or "ceiling_queued" in only:
                await record_ceiling(stack)
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


async def record_ceiling(stack: Stack) -> None:
    """A run queued behind a workspace ceiling of 1 (the holder answers slowly), granted when the holder ends."""
    workspace, agent, _ = await stack.workspace({"alpha": SimProvider(latency_ms=1500)})
    ws, _ = await stack.store.configs(workspace, agent)
    assert ws is not None
    await stack.store.save_workspace(ws.model_copy(update={"max_concurrent_runs": 1}))
    holder = await submit(stack.client, stack.store, workspace, agent, "scenario holder", run_id="record-holder")
    await eventually(
        lambda: holder.query(OfficeRunWorkflow.status),
        until=lambda view: view is not None and view.queue is not None and view.queue.grant is not None,
        timeout=60,
        interval=0.1,
        what="the first run to hold the workspace's slot",
    )
    handle = await submit(
        stack.client, stack.store, workspace, agent, "scenario queued", run_id="record-ceiling_queued",
        priority=RunPriority.interactive,
    )  # fmt: skip
    view = await wait_for_view(stack.client, handle.id)
    assert view.queue is not None and view.queue.grant == 2, view.queue
    await save(handle, "ceiling_queued", view.status.value)


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
