"""The workflow sandbox: workflow modules are re-imported for every run, except the pure ones they use
(the routing domain and the contracts), which pass through. Nothing with I/O is importable from a workflow."""

from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

PURE_MODULES = ("routing", "contracts")


def workflow_runner() -> SandboxedWorkflowRunner:
    return SandboxedWorkflowRunner(restrictions=SandboxRestrictions.default.with_passthrough_modules(*PURE_MODULES))
