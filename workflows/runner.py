"""The workflow sandbox: workflow modules are re-imported for every run, except the pure ones they use
(the routing domain and the contracts), which pass through. Nothing with I/O is importable from a workflow."""

import compileall
from pathlib import Path

from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

PURE_MODULES = ("routing", "contracts")


def precompile() -> bool:
    """The sandbox re-imports this package for every run. Where Python writes no bytecode of its own
    (PYTHONDONTWRITEBYTECODE, set by many container images and CI runners) every run would compile it from
    source again, ~4.5 ms of worker CPU a run: write it once here. On a read-only tree runs keep compiling."""
    return bool(compileall.compile_dir(Path(__file__).parent, maxlevels=0, quiet=2))


def workflow_runner() -> SandboxedWorkflowRunner:
    precompile()
    return SandboxedWorkflowRunner(restrictions=SandboxRestrictions.default.with_passthrough_modules(*PURE_MODULES))
