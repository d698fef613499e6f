"""Every recorded history must replay against the current workflow code (determinism guard)."""

import json
from pathlib import Path

import pytest
from temporalio.client import WorkflowHistory
from temporalio.contrib.opentelemetry import TracingInterceptor
from temporalio.worker import Replayer

from contracts.converter import DATA_CONVERTER
from workflows.office_run import OfficeRunWorkflow
from workflows.runner import workflow_runner

HISTORIES = sorted((Path(__file__).parent.parent / "histories").glob("*.json"))


def test_the_required_scenarios_are_recorded():
    assert {"happy_path", "auth_fallback", "model_gone_terminal"} <= {p.stem for p in HISTORIES}


@pytest.mark.parametrize("path", HISTORIES, ids=[p.stem for p in HISTORIES])
async def test_history_replays(path):
    text = path.read_text()
    started = json.loads(text)["events"][0]["workflowExecutionStartedEventAttributes"]
    history = WorkflowHistory.from_json(started["workflowId"], text)  # the run checks its id against its input
    replayer = Replayer(
        workflows=[OfficeRunWorkflow],
        workflow_runner=workflow_runner(),
        data_converter=DATA_CONVERTER,
        interceptors=[TracingInterceptor()],
    )
    result = await replayer.replay_workflow(history, raise_on_replay_failure=True)
    assert result.replay_failure is None
