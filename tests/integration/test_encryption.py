"""Prompts and answers are ciphertext in Temporal: in history as the CLI shows it, and in the server's database
file. Only a process with the key (the worker, the office CLI, the codec server) reads them."""

import asyncio
import base64
import json
import uuid
from pathlib import Path

import pytest
from temporalio.client import Client, WorkflowFailureError
from temporalio.testing import WorkflowEnvironment

from contracts import search_attributes as sa
from contracts.converter import DATA_CONVERTER
from office.codec import KEYS_FILE_ENV, codec_from_env, ensure_key_file
from office.codec_server import CodecServer
from office.simulator.config import SimProvider
from office.temporal_client import connect
from office.temporal_server import temporal_binary
from office.worker_runtime import office_worker
from routing.run import RunStatus
from testkit.runs import run_to_end

pytestmark = pytest.mark.integration


async def temporal_cli(*args: str) -> str:
    proc = await asyncio.create_subprocess_exec(
        temporal_binary(), *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    out, _ = await proc.communicate()
    assert proc.returncode == 0, out.decode()
    return out.decode()


async def test_a_canary_prompt_is_never_in_history_or_the_server_database_without_the_key(stack, tmp_path, monkeypatch):
    monkeypatch.setenv(KEYS_FILE_ENV, str(ensure_key_file(tmp_path / "keys")))
    db = tmp_path / "temporal.db"
    env = await WorkflowEnvironment.start_local(
        data_converter=DATA_CONVERTER, dev_server_existing_path=temporal_binary(), ui=False,
        search_attributes=sa.ALL, dev_server_extra_args=["--db-filename", str(db)],
    )  # fmt: skip
    address = env.client.service_client.config.target_host
    codec = codec_from_env()
    assert codec is not None
    server = await CodecServer(codec, ui_origins=[]).start()
    canary = f"canary-{uuid.uuid4().hex}"
    try:
        client = await connect(address=address, namespace="default")  # encrypts: the key file is configured
        queue = f"enc-{uuid.uuid4().hex[:6]}"
        ws, agent, _ = await stack.workspace({"a": SimProvider()})
        async with office_worker(client, stack.database_url, queue):
            view = await run_to_end(stack, ws, agent, f"Summarise {canary}", task_queue=queue, client=client)
        assert view.status is RunStatus.completed and view.output  # the worker read the prompt and answered

        plain = await temporal_cli("workflow", "show", "-w", view.run_id, "--address", address, "-o", "json")
        assert json.loads(plain)["events"] and canary not in plain
        stored = b"".join(p.read_bytes() for p in Path(tmp_path).glob("temporal.db*"))  # noqa: ASYNC240
        assert stored and canary.encode() not in stored

        decoded = await temporal_cli(
            "workflow", "show", "-w", view.run_id, "--address", address, "-o", "json", "--codec-endpoint", server.url
        )
        [payload] = json.loads(decoded)["events"][0]["workflowExecutionStartedEventAttributes"]["input"]["payloads"]
        assert base64.b64decode(payload["metadata"]["encoding"]) == b"json/plain"
        assert canary in base64.b64decode(payload["data"]).decode()  # decoded by the codec server, for its users
    finally:
        await server.stop()
        await env.shutdown()


async def test_a_plain_start_against_an_encrypting_worker_fails_at_once_naming_the_codec_setting(
    stack, tmp_path, monkeypatch
):
    """A client without the key (here the plain `temporalio` client, as anyone reaching the frontend has) starts a
    run with valid input: the worker refuses the plain payload and the run fails at once, not a workflow task
    retried without end; the office never read the prompt."""
    monkeypatch.setenv(KEYS_FILE_ENV, str(ensure_key_file(tmp_path / "keys")))
    ws, agent, _ = await stack.workspace({"a": SimProvider()})
    queue = f"plain-{uuid.uuid4().hex[:6]}"
    run = f"plain-start-{uuid.uuid4().hex[:8]}"
    encrypting = await connect(address=stack.temporal.address, namespace="default")
    plain = await Client.connect(stack.temporal.address, namespace="default", data_converter=DATA_CONVERTER)
    async with office_worker(encrypting, stack.database_url, queue):
        handle = await plain.start_workflow(
            "OfficeRunWorkflow",
            {"run_id": run, "workspace": ws, "agent": agent, "prompt": "forged task"},
            id=run,
            task_queue=queue,
        )
        with pytest.raises(WorkflowFailureError) as err:
            await asyncio.wait_for(handle.result(), timeout=30)
    message = str(err.value.cause)
    assert "refused a plain (unencrypted) payload" in message and KEYS_FILE_ENV in message
    history = await handle.fetch_history()
    failed_tasks = [e for e in history.events if e.HasField("workflow_task_failed_event_attributes")]
    assert failed_tasks == []  # failed as an execution, not as a task the server would retry
    assert await stack.store.read_transcript(run, 10) == []  # nothing of the forged run reached the store
