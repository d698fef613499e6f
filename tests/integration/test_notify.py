"""Workspace webhooks on the real dev server: one signed Standard Webhook per event and endpoint, delivered after a
worker restart, never in the run's way, and a dead endpoint recorded after its bounded retries."""

import asyncio
import base64
import json
import logging
import os
import socket
import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest
import uvicorn
from standardwebhooks import Webhook
from temporalio.client import WorkflowExecutionStatus, WorkflowFailureError
from temporalio.exceptions import ApplicationError

from contracts.notify import NOTIFY_UNDELIVERED, NotifyResult
from office.simulator.config import InjectedFailure, SimProvider
from office.worker_runtime import office_worker
from routing.notify import NotifyEndpoint, notify_workflow_id
from routing.run import RunStatus
from testkit.eventually import eventually
from testkit.runs import run_to_end, submit_run
from testkit.stack import Stack
from workflows.office_run import OfficeRunWorkflow

from .helpers import wait_for_status

pytestmark = pytest.mark.integration
KEY = "sk-sim-test"
SECRET_ENV = "OFFICE_CRED_NOTIFY_TEST"
SECRET = "whsec_" + base64.b64encode(os.urandom(24)).decode()


@dataclass
class Post:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    """A webhook receiver on 127.0.0.1: records every POST; answers 503 while `failing`."""

    failing: bool = False
    posts: list[Post] = field(default_factory=list)
    url: str = ""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode(): v.decode() for k, v in scope["headers"]}
        self.posts.append(Post(scope["path"], headers, body))
        status = 503 if self.failing else 204
        await send({"type": "http.response.start", "status": status, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    def to(self, path: str) -> list[Post]:
        return [p for p in self.posts if p.path == path]


@pytest.fixture
async def receiver():
    recv = Receiver()
    server = uvicorn.Server(uvicorn.Config(recv, host="127.0.0.1", port=0, log_level="warning", lifespan="off"))
    task = asyncio.create_task(server.serve())
    await eventually(lambda: server.started, timeout=10, what="the webhook receiver to listen")
    port = server.servers[0].sockets[0].getsockname()[1]
    recv.url = f"http://127.0.0.1:{port}"
    yield recv
    server.should_exit = True
    await task


@pytest.fixture(autouse=True)
def signing_secret(monkeypatch):
    monkeypatch.setenv(SECRET_ENV, SECRET)


async def notifying(stack: Stack, ws: str, *endpoints: NotifyEndpoint) -> None:
    config = await stack.store.get_workspace(ws)
    assert config is not None
    await stack.store.save_workspace(config.model_copy(update={"notify": list(endpoints)}))


def endpoint(url: str, *events: str, **settings: Any) -> NotifyEndpoint:
    return NotifyEndpoint.model_validate({"url": url, "events": list(events), "secret_env": SECRET_ENV, **settings})


def verified(post: Post) -> dict[str, Any]:
    """The payload, once the Standard Webhooks library accepts its signature."""
    payload: dict[str, Any] = Webhook(SECRET).verify(post.body, post.headers)
    return payload


async def delivery(stack: Stack, handle: Any, event: str, occurrence: int = 1) -> Any:
    """The handle of the workflow that delivers the run's `occurrence`-th `event`."""
    child = notify_workflow_id(handle.id, event, occurrence, handle.first_execution_run_id)
    return stack.client.get_workflow_handle(child)


async def test_each_event_reaches_each_endpoint_that_wants_it_once_signed(stack, receiver):
    ops = endpoint(f"{receiver.url}/ops", "completed", "failed", "parked")
    audit = endpoint(f"{receiver.url}/audit", "failed", name="audit", include_prompt=True)
    # A run that parks (every provider needs new credentials), is fixed and resumed, then completes.
    ws, agent, p = await stack.workspace(
        {"alpha": SimProvider(api_key="sk-rotated")}, credential_env="OFFICE_CRED_TEST_KEY"
    )
    await notifying(stack, ws, ops, audit)
    handle = await submit_run(stack, ws, agent, "Do the thing")
    await wait_for_status(stack, handle.id, RunStatus.parked)
    stack.simulator.sim.set_provider(p["alpha"], SimProvider(api_key=KEY))
    await (await delivery(stack, handle, "parked")).result()
    await handle.signal(OfficeRunWorkflow.resume)
    assert (await handle.result()).status is RunStatus.completed
    await (await delivery(stack, handle, "completed")).result()
    # A run that fails (an unknown error fails closed, at once where the workspace waits for nobody).
    weird = InjectedFailure(status=599, kind="opaque", message="the flux capacitor is misaligned")
    ws2, agent2, _ = await stack.workspace({"alpha": SimProvider(failures=[weird])}, unreadable_failure_wait=0)
    await notifying(stack, ws2, ops, audit)
    failed = await run_to_end(stack, ws2, agent2, "Secret plan: fix the parser")
    assert failed.status is RunStatus.failed
    failed_handle = stack.client.get_workflow_handle(failed.run_id)
    first = (await failed_handle.describe()).raw_description.workflow_execution_info.execution.run_id
    child = notify_workflow_id(failed.run_id, "failed", 1, first)
    result = await stack.client.get_workflow_handle(child, result_type=NotifyResult).result()
    assert [(d.label, d.state) for d in result.deliveries] == [("notify.0", "delivered"), ("audit", "delivered")]

    got = [(verified(post), post) for post in receiver.posts]
    # One event's deliveries to its endpoints go out at once (the notify workflow's activities): in either order.
    got[2:] = sorted(got[2:], key=lambda sent: sent[1].path, reverse=True)
    assert [(payload["type"], post.path) for payload, post in got] == [
        ("run.parked", "/ops"),
        ("run.completed", "/ops"),
        ("run.failed", "/ops"),
        ("run.failed", "/audit"),
    ]
    parked, completed, failed_ops, failed_audit = (payload["data"] for payload, _ in got)
    assert (parked["run_id"], parked["workspace"], parked["agent"], parked["status"]) == (
        handle.id,
        ws,
        agent,
        "parked",
    )
    assert parked["message"] and parked["url"] == f"http://127.0.0.1:8233/namespaces/default/workflows/{handle.id}"
    assert (completed["status"], completed["event"]) == ("completed", "completed")
    assert (parked["park_reason"], completed["park_reason"]) == ("blocked_provider_action_required", None)
    assert failed_ops["error_code"] == "unknown" and failed_ops["message"] == failed.message
    assert "prompt" not in failed_ops and "Do the thing" not in json.dumps([parked, completed])
    assert failed_audit["prompt"] == "Secret plan: fix the parser"  # only where the workspace opted in
    ids = [post.headers["webhook-id"] for _, post in got]
    assert len(set(ids[:3])) == 3 and ids[2] == ids[3]  # one message per event, the same id at every endpoint


async def test_a_delivery_survives_a_worker_restart(stack, receiver):
    queue = f"notify-restart-{uuid.uuid4().hex[:6]}"
    ws, agent, _ = await stack.workspace({"alpha": SimProvider()})
    await notifying(stack, ws, endpoint(f"{receiver.url}/hook", "completed", first_retry_s=0.1, max_attempts=30))
    receiver.failing = True
    async with office_worker(stack.client, stack.database_url, queue):
        handle = await submit_run(stack, ws, agent, task_queue=queue)
        assert (await handle.result()).status is RunStatus.completed
        await eventually(lambda: len(receiver.posts), until=lambda n: n >= 2, timeout=15, what="a retried delivery")
    refused = len(receiver.posts)  # the worker is gone with the delivery still owed
    receiver.failing = False
    async with office_worker(stack.client, stack.database_url, queue):
        await eventually(lambda: len(receiver.posts), until=lambda n: n > refused, timeout=15, what="the delivery")
    taken = receiver.posts[-1]
    assert verified(taken)["data"]["run_id"] == handle.id
    assert {p.headers["webhook-id"] for p in receiver.posts} == {taken.headers["webhook-id"]}  # receivers dedupe


async def test_a_receiver_that_is_down_never_delays_the_run_and_a_dead_one_is_recorded(stack, receiver, caplog):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        down = f"http://127.0.0.1:{s.getsockname()[1]}/hook"
    receiver.failing = True
    ws, agent, _ = await stack.workspace({"alpha": SimProvider()})
    await notifying(
        stack,
        ws,
        endpoint(down, "completed", name="down", first_retry_s=0.3, max_attempts=4),
        endpoint(f"{receiver.url}/hook", "completed", name="failing", first_retry_s=0.1, max_attempts=3),
    )
    caplog.set_level(logging.WARNING)
    handle = await submit_run(stack, ws, agent)
    assert (await handle.result()).status is RunStatus.completed
    notify = await delivery(stack, handle, "completed")
    assert (await notify.describe()).status is WorkflowExecutionStatus.RUNNING  # the run ended; delivery goes on

    with pytest.raises(WorkflowFailureError) as failure:
        await notify.result()
    cause = failure.value.cause
    assert isinstance(cause, ApplicationError) and cause.type == NOTIFY_UNDELIVERED
    assert "down: could not be reached (ConnectError, attempt 4 of 4)" in cause.message
    assert "failing: answered HTTP 503 (attempt 3 of 3)" in cause.message
    assert len(receiver.posts) == 3  # bounded: not retried again
    assert "recorded as dead" in caplog.text and handle.id in caplog.text
