"""Workers run workflow code outside the SDK's sandbox unless told otherwise; what guards its determinism then is
the lint of workflows/ (the sandbox still runs the workflow logic tests and the replay suite)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from temporalio.worker import UnsandboxedWorkflowRunner
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner

from office.workflow_runner import SANDBOX_VARIABLE, sandbox_from_env, workflow_runner

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("value", "sandboxed"),
    [(None, False), ("", False), ("0", False), ("off", False), ("1", True), ("true", True), (" ON ", True)],
)
def test_the_sandbox_is_off_unless_the_variable_turns_it_on(monkeypatch, value, sandboxed):
    if value is None:
        monkeypatch.delenv(SANDBOX_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(SANDBOX_VARIABLE, value)
    assert sandbox_from_env() is sandboxed
    expected = SandboxedWorkflowRunner if sandboxed else UnsandboxedWorkflowRunner
    assert isinstance(workflow_runner(), expected)


def test_a_value_that_is_no_switch_names_the_variable_and_its_values(monkeypatch):
    monkeypatch.setenv(SANDBOX_VARIABLE, "maybe")
    with pytest.raises(ValueError, match=f"^{SANDBOX_VARIABLE} must be 1 .* or 0, not 'maybe'$"):
        workflow_runner()


def ruff(code: str, path: str) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("ruff", path=str(Path(sys.executable).parent)) or "ruff"
    return subprocess.run(
        [binary, "check", "--no-cache", "--select", "TID251", "--stdin-filename", path, "-"],
        input=code, capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("code", "banned"),
    [
        ("import datetime\nnow = datetime.datetime.now()\n", "datetime.datetime.now"),
        ("from datetime import datetime\nnow = datetime.utcnow()\n", "datetime.datetime.utcnow"),
        ("import time\n", "time"),
        ("import random\n", "random"),
        ("from uuid import uuid4\n", "uuid.uuid4"),
        ("import os\n", "os"),
        ("from pathlib import Path\n", "pathlib"),
        ("import threading\n", "threading"),
        ("import asyncio\nasyncio.to_thread(print)\n", "asyncio.to_thread"),
    ],
)
def test_workflow_code_that_reads_the_clock_randomness_or_the_machine_fails_the_lint(code, banned):
    result = ruff(code, "workflows/new_workflow.py")
    assert result.returncode == 1 and f"`{banned}` is banned" in result.stdout, result.stdout + result.stderr
    assert ruff(code, "activities/new_activity.py").returncode == 0  # activities do I/O: that is their job


def test_the_workflow_code_as_it_is_passes_the_lint():
    for path in sorted((ROOT / "workflows").glob("*.py")):
        result = ruff(path.read_text(), f"workflows/{path.name}")
        assert result.returncode == 0, result.stdout
