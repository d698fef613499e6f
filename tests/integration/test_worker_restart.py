"""A worker killed mid-run: the run recovers on a new worker, and the model-selection warning stays single."""

import asyncio
import json
import signal
import sys
import uuid
from pathlib import Path

import pytest
from temporalio.contrib.opentelemetry import TracingInterceptor
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from office.runs import wait_for_view
from office.simulator.config import SimProvider
from routing.messages import PROVIDER_DEFAULT
from routing.run import RunStatus
from testkit.runs import submit_run
from workflows.office_run import OfficeRunWorkflow

from .helpers import calls_to, stop_workers, wait_for_calls
from .helpers import start_worker as _start_worker
from .helpers import worker_env as _env

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


async def test_worker_killed_mid_run_recovers_with_exactly_one_warning(stack, tmp_path):
    queue = f"restart-{uuid.uuid4().hex[:6]}"
    ws, agent, p = await stack.workspace(
        {"alpha": SimProvider(models=["sim-small"], latency_ms=3000)}, model="gone-model", heartbeat_timeout_s=2
    )
    first = await _start_worker(stack, queue, tmp_path / "worker1.log")
    second = None
    try:
        handle = await submit_run(stack, ws, agent, "task", task_queue=queue)
        await wait_for_calls(stack, p["alpha"], 1, within_s=60)  # run_session is in flight on the first worker
        first.send_signal(signal.SIGKILL)
        await first.wait()
        second = await _start_worker(stack, queue, tmp_path / "worker2.log")
        view = await asyncio.wait_for(wait_for_view(stack.client, handle.id), timeout=90)
    finally:
        await stop_workers(first, second)

    assert view.status is RunStatus.completed
    assert [(a.error_code, a.decision) for a in view.attempts] == [("worker_lost", "short_retry"), (None, None)]
    assert all(c["requested_model"] is None for c in calls_to(stack, p["alpha"]))  # gone-model never sent
    assert view.effective_model == "sim-small"
    [warning] = view.warnings
    assert (warning.reason, warning.requested_model, warning.effective_model) == (
        "requested_not_advertised",
        "gone-model",
        PROVIDER_DEFAULT,
    )
    assert len(await stack.store.list_run_messages(view.run_id)) == 1

    history = await stack.client.get_workflow_handle(view.run_id).fetch_history()
    replayer = Replayer(
        workflows=[OfficeRunWorkflow], data_converter=pydantic_data_converter, interceptors=[TracingInterceptor()]
    )
    await replayer.replay_workflow(history)
    assert len(await stack.store.list_run_messages(view.run_id)) == 1

    proc = await asyncio.create_subprocess_exec(
        str(Path(sys.executable).parent / "office"),
        "profile",
        "show",
        agent,
        "--workspace",
        ws,
        "--json",
        env=_env(stack, queue),
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await proc.communicate()
    shown = json.loads(out)
    assert (shown["model"], shown["model_status"]) == ("gone-model", "gone")
    assert (await stack.store.get_agent(agent)).model == "gone-model"
