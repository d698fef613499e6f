"""Every recorded history must replay against the current workflow code (determinism guard): as the workers run
it (outside the SDK's sandbox) and inside the sandbox, whose restrictions fail a replay that calls what a
workflow must not."""

import dataclasses
import json
from pathlib import Path

import pytest
from temporalio.client import WorkflowHistory
from temporalio.contrib.opentelemetry import TracingInterceptor
from temporalio.worker import Replayer

from contracts.converter import DATA_CONVERTER
from office.codec import KEYS_FILE_ENV, codec_from_env
from office.workflow_runner import workflow_runner
from workflows.gate import GateWorkflow
from workflows.notify import NotifyWorkflow
from workflows.office_run import OfficeRunWorkflow

HERE = Path(__file__).parent.parent / "histories"
HISTORIES = sorted(HERE.glob("*.json"))
# Encrypted histories decode with the test-only key they were recorded under, as a worker with that key reads
# them (a plain payload refused); histories recorded in plain replay with the explicit allowance for them.
CODEC = codec_from_env({KEYS_FILE_ENV: str(HERE / "codec-keys.txt")}, accept_plain=False)
assert CODEC is not None
ENCRYPTED = {"encrypted_happy_path"}


def test_the_required_scenarios_are_recorded():
    required = {"happy_path", "auth_fallback", "model_gone_terminal", "encrypted_happy_path", "continued_as_new_first"}
    required |= {"unreadable_failure_retried", "unreadable_failure_v0"}  # the park for a person and the gate before it
    assert required | {"continued_as_new_last"} <= {p.stem for p in HISTORIES}
    assert "scenario encrypted" not in (HERE / "encrypted_happy_path.json").read_text()  # ciphertext in history


@pytest.mark.parametrize("sandboxed", [False, True], ids=["as-workers-run", "sandboxed"])
@pytest.mark.parametrize("path", HISTORIES, ids=[p.stem for p in HISTORIES])
async def test_history_replays(path, sandboxed):
    text = path.read_text()
    started = json.loads(text)["events"][0]["workflowExecutionStartedEventAttributes"]
    history = WorkflowHistory.from_json(started["workflowId"], text)  # the run checks its id against its input
    replayer = Replayer(
        workflows=[OfficeRunWorkflow, NotifyWorkflow, GateWorkflow],  # a gate's history: as far as it went
        workflow_runner=workflow_runner(sandboxed=sandboxed),
        data_converter=dataclasses.replace(
            DATA_CONVERTER, payload_codec=CODEC if path.stem in ENCRYPTED else CODEC.reading_plain()
        ),
        interceptors=[TracingInterceptor()],
    )
    result = await replayer.replay_workflow(history, raise_on_replay_failure=True)
    assert result.replay_failure is None
