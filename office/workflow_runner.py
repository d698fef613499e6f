"""How a worker runs workflow code: outside the SDK's sandbox unless OFFICE_WORKFLOW_SANDBOX=1.

The sandbox re-imports the workflow module for every run and runs every activation, and every payload's
serialization context (several per command), through `exec` inside its importer, a large share of the worker's CPU
per run (docs/benchmarks.md). What it guards here is small: its restrictions see only the workflow module itself,
since everything that module imports (the rest of workflows/, routing, contracts) is passed through and calls the
real modules unchecked. What keeps workflow code deterministic instead covers all of it, before any run:
- workflows/ruff.toml bans the clock, randomness, ids, the environment, files, threads and sockets in workflows/
  (`make lint`), and the import contracts keep activities, the store and HTTP out of it;
- the workflow logic tests and the replay of every recorded history run inside the sandbox, so a call it
  restricts fails the suite; the replay runs outside it too, as the workers do.
OFFICE_WORKFLOW_SANDBOX=1 puts a worker's runs back inside it (e.g. while trying out new workflow code)."""

import compileall
import os
from pathlib import Path

from temporalio.worker import UnsandboxedWorkflowRunner, WorkflowRunner
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

import workflows

PURE_MODULES = ("routing", "contracts")  # passed through the sandbox: re-importing them per run buys nothing
SANDBOX_VARIABLE = "OFFICE_WORKFLOW_SANDBOX"
SWITCH = {"1": True, "true": True, "on": True, "0": False, "false": False, "off": False, "": False}


def precompile() -> bool:
    """The sandbox re-imports the workflow package for every run. Where Python writes no bytecode of its own
    (PYTHONDONTWRITEBYTECODE, set by many container images and CI runners) every run would compile it from
    source again: write it once here. On a read-only tree runs keep compiling."""
    return bool(compileall.compile_dir(Path(workflows.__file__).parent, maxlevels=0, quiet=2))


def sandbox_from_env() -> bool:
    raw = os.environ.get(SANDBOX_VARIABLE, "").strip().lower()
    if raw not in SWITCH:
        raise ValueError(f"{SANDBOX_VARIABLE} must be 1 (runs inside the SDK's sandbox) or 0, not {raw!r}")
    return SWITCH[raw]


def workflow_runner(sandboxed: bool | None = None) -> WorkflowRunner:
    """`sandboxed`: inside the SDK's sandbox (None: as OFFICE_WORKFLOW_SANDBOX says, outside by default)."""
    if not (sandbox_from_env() if sandboxed is None else sandboxed):
        return UnsandboxedWorkflowRunner()
    precompile()
    return SandboxedWorkflowRunner(restrictions=SandboxRestrictions.default.with_passthrough_modules(*PURE_MODULES))
