"""A foreign client: a plain `temporalio` client with its own workflow on its own queue (no office code, no codec
key) schedules every registered office activity by name onto the office's queues with forged input (a command of
its own, a base URL of its own, another credential variable, a health write, a run that does not exist), and makes
the same calls as standalone activities with no workflow at all. Each is refused with a clear error; no process
starts, nothing reaches the attacker's listener, no store row changes. The same client starting
`OfficeRunWorkflow` with valid input still gets a run to completion."""

import asyncio
import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from temporalio import workflow
from temporalio.client import Client
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

from contracts.activities import Activity, acp_start_queue
from contracts.failures import FOREIGN_CALL_REFUSED
from office.runs import wait_for_view
from office.simulator.config import SimProvider
from routing.model_policy import plan_model, settle_model
from routing.notify import NotifyEndpoint, NotifyEvent
from routing.run import RunStatus
from testkit.factories import scripted_agent
from testkit.runs import run_to_end
from testkit.stack import Stack

from .helpers import calls_to

pytestmark = pytest.mark.integration
SELF = "<the forging workflow's own id>"  # replaced by the workflow: the id check passes, the rest must hold


async def forge(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Schedules each call by name on the office's queue and reports what came back."""
    out = []
    for call in calls:
        body = json.loads(json.dumps(call["input"]).replace(json.dumps(SELF), json.dumps(workflow.info().workflow_id)))
        try:
            result = await workflow.execute_activity(
                call["name"], body, task_queue=call["queue"], start_to_close_timeout=timedelta(seconds=30),
                schedule_to_start_timeout=timedelta(seconds=30), retry_policy=RetryPolicy(maximum_attempts=1),
            )  # fmt: skip
            out.append({"name": call["name"], "outcome": "ran", "detail": str(result)[:300]})
        except ActivityError as err:
            cause = err.cause
            out.append({"name": call["name"], "outcome": "refused", "type": getattr(cause, "type", None),
                        "detail": str(cause)})  # fmt: skip
    return out


@workflow.defn(name="Forge")
class Forge:
    @workflow.run
    async def run(self, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return await forge(calls)


@workflow.defn(name="OfficeRunWorkflow")
class ForgedOfficeRun:
    """Named like the office's workflow, run by the attacker's own worker on the attacker's own queue."""

    @workflow.run
    async def run(self, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return await forge(calls)


@workflow.defn(name="NotifyWorkflow")
class ForgedNotification:
    """Named like the office's notification workflow (whose activities post signed webhooks), started by hand."""

    @workflow.run
    async def run(self, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return await forge(calls)


async def standalone(attacker: Client, call: dict[str, Any], run_id: str) -> dict[str, Any]:
    """The same call as a standalone activity (no workflow at all), which the dev server accepts."""
    body = json.loads(json.dumps(call["input"]).replace(json.dumps(SELF), json.dumps(run_id)))
    handle = await attacker.start_activity(
        call["name"], body, id=f"{run_id}-{call['name']}", task_queue=call["queue"],
        start_to_close_timeout=timedelta(seconds=30), retry_policy=RetryPolicy(maximum_attempts=1),
    )  # fmt: skip
    try:
        result = await handle.result()
    except Exception as err:  # the failure's cause chain ends in the office's ApplicationError
        cause: BaseException | None = err
        while cause is not None and not isinstance(cause, ApplicationError):
            cause = getattr(cause, "cause", None) or cause.__cause__
        return {"name": call["name"], "outcome": "refused", "type": getattr(cause, "type", None),
                "detail": str(cause or err)}  # fmt: skip
    return {"name": call["name"], "outcome": "ran", "detail": str(result)[:300]}


class Listener:
    """The attacker's endpoint: counts every connection that reaches it."""

    def __init__(self) -> None:
        self.connections = 0

    async def start(self) -> str:
        async def seen(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.connections += 1
            writer.close()

        self.server = await asyncio.start_server(seen, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/v1"


def candidate(provider: str, profile: dict[str, Any]) -> dict[str, Any]:
    return {"provider": provider, "execution_profile": f"{provider}/default", "profile": profile, "tier": "default",
            "requested_model": "sim-small"}  # fmt: skip


async def store_state(stack: Stack, run_ids: list[str]) -> dict[str, Any]:
    return {
        "health": sorted(repr(r.model_dump()) for r in await stack.store.health_rows()),
        "events": len(await stack.store.health_events()),
        "attempts": [len(await stack.store.list_attempts(r)) for r in run_ids],
        "transcripts": [len(await stack.store.read_transcript(r, 99)) for r in run_ids],
    }


async def acp_worker_queue(stack: Stack, tmp_path: Path) -> str:
    """The in-process worker's own queue, as anyone can read it from an ACP run's history."""
    log = tmp_path / "agent.jsonl"
    ws, agent, _ = await stack.workspace({"claude": scripted_agent(log, profile={"heartbeat_timeout_s": 30})})
    view = await run_to_end(stack, ws, agent)
    assert view.status is RunStatus.completed
    async for event in stack.client.get_workflow_handle(view.run_id).fetch_history_events():
        if event.activity_task_scheduled_event_attributes.activity_type.name == Activity.acp_turn:
            return event.activity_task_scheduled_event_attributes.task_queue.name
    raise AssertionError("no acp_turn in the run's history")


async def test_forged_activity_calls_are_refused_and_change_nothing(stack, tmp_path, monkeypatch):
    monkeypatch.setenv("GIT_PUSH_TOKEN", "push-token-the-attacker-wants")
    listener = Listener()
    attacker_url = await listener.start()
    marker = tmp_path / "the-forged-command-ran"
    ws, agent, p = await stack.workspace({"a": SimProvider(models=["sim-small"])})
    # The team's webhook receiver (here the listener): a forged call must not make the workers sign a message to it.
    monkeypatch.setenv("OFFICE_CRED_NOTIFY_FORGED", "whsec_" + "A" * 32)
    config = await stack.store.get_workspace(ws)
    assert config is not None
    hook = NotifyEndpoint(url=attacker_url, events=[NotifyEvent.failed], secret_env="OFFICE_CRED_NOTIFY_FORGED")
    await stack.store.save_workspace(config.model_copy(update={"notify": [hook]}))
    worker_queue = await acp_worker_queue(stack, tmp_path)
    office = stack.task_queue
    http = candidate(p["a"], {"base_url": attacker_url, "credential_env": "GIT_PUSH_TOKEN"})
    shell = candidate(p["a"], {"kind": "acp", "command": ["sh", "-c", f"touch {marker}"]})
    decision = settle_model(plan_model("sim-small", None, False, ["sim-small"]), reported="sim-small")
    started = {"decision": decision.model_dump(mode="json"), "model_to_send": "sim-small", "effective_model": None}
    now = datetime.now(UTC).isoformat()
    event = {"run_id": SELF, "workspace": ws, "agent": agent, "event": "failed", "occurrence": 1,
             "message_id": "msg_forged", "at": now, "status": "failed", "message": "forged"}  # fmt: skip
    calls = [
        {"name": Activity.session_turn, "queue": office,
         "input": {"run_id": SELF, "attempt_seq": 1, "agent": agent, "candidate": http, "user_seq": 1,
                   "user_text": "hi", "workspace": ws}},
        {"name": Activity.acp_start, "queue": acp_start_queue(office),
         "input": {"run_id": SELF, "attempt_seq": 1, "agent": agent, "candidate": shell, "workspace": ws,
                   "repository": {"url": str(tmp_path / "attacker.git"), "push_credential_env": "GIT_PUSH_TOKEN"}}},
        {"name": Activity.acp_turn, "queue": worker_queue,
         "input": {"run_id": SELF, "attempt_seq": 1, "candidate": shell, "session_key": f"{SELF}/1",
                   "started": started, "user_seq": 1, "user_text": "hi"}},
        {"name": Activity.acp_close, "queue": worker_queue, "input": {"session_key": f"{SELF}/1"}},
        {"name": Activity.resolve_route, "queue": office, "input": {"run_id": SELF, "workspace": ws, "agent": agent}},
        {"name": Activity.record_attempt, "queue": office,
         "input": {"run_id": SELF, "seq": 1, "candidate": http, "effective_model": None, "outcome": "failed",
                   "failure": {"code": "auth_required", "error_class": "user_action", "confidence": 1.0,
                               "phase": "after_start", "rule": "forged"},
                   "decision": {"kind": "park", "code": "auth_required", "reason": "forged",
                                "health": {"state": "user_action_required"}},
                   "started_at": now, "finished_at": now}},
        {"name": Activity.sweep_automatic_selections, "queue": office,
         "input": {"max_age_s": 0, "watchdog_run": "forged"}},
        {"name": Activity.notify_targets, "queue": office, "input": event},
        {"name": Activity.deliver_notification, "queue": office,
         "input": {"request": event, "target": {"index": 0, "label": "notify.0", "max_attempts": 1,
                                                "first_retry_s": 1}}},
    ]  # fmt: skip
    attacker = await Client.connect(stack.temporal.address, namespace=stack.client.namespace)  # no office code
    queue = f"attacker-{uuid.uuid4().hex[:6]}"
    ids = [f"forge-{uuid.uuid4().hex[:8]}", f"forged-run-{uuid.uuid4().hex[:8]}", f"alone-{uuid.uuid4().hex[:8]}",
           f"forged-notify-{uuid.uuid4().hex[:8]}"]  # fmt: skip
    before = await store_state(stack, ids)
    async with Worker(attacker, task_queue=queue, workflows=[Forge, ForgedOfficeRun, ForgedNotification],
                      workflow_runner=UnsandboxedWorkflowRunner()):  # fmt: skip
        results = await asyncio.gather(  # from a workflow of its own, and ones named like the office's
            attacker.execute_workflow("Forge", calls, id=ids[0], task_queue=queue),
            attacker.execute_workflow("OfficeRunWorkflow", calls, id=ids[1], task_queue=queue),
            attacker.execute_workflow("NotifyWorkflow", calls, id=ids[3], task_queue=queue),
        )
    results.append([await standalone(attacker, call, ids[2]) for call in calls])
    for outcomes in results:
        assert [o["name"] for o in outcomes] == [c["name"] for c in calls]
        for o in outcomes:  # each one refused, saying why, by the office's own check
            assert (o["outcome"], o.get("type")) == ("refused", FOREIGN_CALL_REFUSED), o
            assert "refused: " in o["detail"], o
    assert not marker.exists()  # no process ran the forged command
    assert listener.connections == 0  # nothing, and no token, reached the attacker's endpoint
    assert await store_state(stack, ids) == before  # no health, attempt, transcript or audit row changed
    listener.server.close()

    # The same plain client, starting the office's workflow on the office's queue with valid input: a run.
    run_id = f"plain-{uuid.uuid4().hex[:8]}"
    await attacker.start_workflow(
        "OfficeRunWorkflow", {"run_id": run_id, "workspace": ws, "agent": agent, "prompt": "Fix the failing test"},
        id=run_id, task_queue=office,
    )  # fmt: skip
    view = await wait_for_view(stack.client, run_id)
    assert view.status is RunStatus.completed and view.output and view.provider == p["a"]
    assert len(calls_to(stack, p["a"])) == 1
