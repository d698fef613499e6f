"""The worker's trust boundary: an activity acts only for an office run, and only on what the store configures.

Temporal does not decide which workflow may schedule which activity on which queue: anyone who reaches the
frontend can schedule the office's activities by name, from a workflow of their own on a queue of their own,
with input of their own. So every activity that executes something, sends a credential or writes for a run
checks, before it does anything:

1. **The run is an office run**: the activity was scheduled by the workflow its input names (`run_id` is the
   scheduling workflow's id, as the server tells the worker) and that workflow run registered itself in the store
   from its own route resolution: a local activity, which runs only inside a workflow task the office's own
   workflow code completes on an office worker, and which refuses remote calls. A run with no registration
   (started before registrations existed) is asked of the server once: an `OfficeRunWorkflow`, running, on this
   office's task queue; then registered. Checked once per workflow run per worker process (kept in a bounded map).
2. **What it acts on is what the store holds**: the execution profile (command, base URL, credential variable,
   environment) is the one the store holds for the run's workspace under the provider name the input gives,
   never the profile the input carries; so is the repository and the permission policy. The workspace is re-read at most
   every few seconds per worker; a workspace changed mid-run takes effect on the next attempt, and a profile
   that was removed ends the attempt as `invalid_configuration` naming it.

Local activities (route resolution, attempt recording) run inside the office's own workflow task: they refuse to
run as remote activities at all (`local_only`)."""

import time
from collections import OrderedDict
from dataclasses import dataclass

from temporalio import activity
from temporalio.api.common.v1 import WorkflowExecution
from temporalio.api.enums.v1 import WorkflowExecutionStatus
from temporalio.api.workflowservice.v1 import DescribeWorkflowExecutionRequest
from temporalio.common import SearchAttributeKey

from activities.bookkeeping import store_retrying
from contracts.failures import configuration_failure, refused
from contracts.search_attributes import WORKSPACE
from routing.codes import Phase
from routing.config import WorkspaceConfig
from routing.run import Candidate
from store.repository import Store

OFFICE_WORKFLOW = "OfficeRunWorkflow"
RUNS_KEPT = 10_000  # workflow runs whose check passed, per worker process
CONFIG_TTL_S = 5.0  # how long a worker acts on a workspace it read before reading it again


def local_only(name: str) -> None:
    """For activities the workflow runs as local activities: a remote call of one is refused."""
    if not activity.info().is_local:
        raise refused(f"{name} runs only as a local activity of an office run")


@dataclass(frozen=True)
class Configured:
    """What the store holds for an attempt: the candidate with the stored profile, and the workspace."""

    candidate: Candidate
    workspace: WorkspaceConfig


class RunBoundary:
    def __init__(self, store: Store, task_queue: str) -> None:
        self.store, self.task_queue = store, task_queue
        self._runs: OrderedDict[str, str] = OrderedDict()  # workflow run id -> its workspace, checked
        self._workspaces: dict[str, tuple[float, WorkspaceConfig | None]] = {}

    async def check_run(self, run_id: str) -> str:
        """Refuses unless the scheduling workflow is the office run `run_id`; returns the run's workspace. The
        proof is the run's registration, which only its own route resolution writes; a run with none (started
        before registrations) is asked of the server and registered then."""
        info = activity.info()
        if info.workflow_id != run_id or info.workflow_type != OFFICE_WORKFLOW:
            raise refused("this activity acts only for the office run that scheduled it")
        run = info.workflow_run_id or ""
        known = self._runs.get(run)
        if known is not None:
            self._runs.move_to_end(run)
            return known
        registered = await store_retrying(lambda: self.store.registered_run(run), f"checking run {run_id}")
        if registered is not None and registered.run_id == run_id:
            return self._remember(run, registered.workspace)
        workspace = await self.check_caller(OFFICE_WORKFLOW)
        await store_retrying(lambda: self.store.register_run(run, run_id, workspace), f"registering run {run_id}")
        return workspace

    async def register(self, run_id: str, workspace: str) -> None:
        """Route resolution's (a local activity of the office's own workflow code): the run's registration in
        the store, for every worker, and in this worker's memory, so its first activity here reads nothing."""
        run = activity.info().workflow_run_id or ""
        if self._runs.get(run) == workspace:  # a route resolved again (after a park): registered already
            return
        await self.store.register_run(run, run_id, workspace)
        self._remember(run, workspace)

    async def check_caller(self, workflow_type: str) -> str:
        """Refuses unless the scheduling workflow is a running `workflow_type` on this office's task queue, as
        the server records it; returns the workspace the server indexed for it ("" when none)."""
        info = activity.info()
        if info.workflow_type != workflow_type:
            raise refused(f"this activity is scheduled only by {workflow_type}")
        run = info.workflow_run_id or ""
        known = self._runs.get(run)
        if known is not None:
            self._runs.move_to_end(run)
            return known
        described = await activity.client().workflow_service.describe_workflow_execution(
            DescribeWorkflowExecutionRequest(
                namespace=info.workflow_namespace or "",
                execution=WorkflowExecution(workflow_id=info.workflow_id or "", run_id=run),
            )
        )
        execution = described.workflow_execution_info
        if execution.type.name != workflow_type or described.execution_config.task_queue.name != self.task_queue:
            raise refused(f"the scheduling workflow is not an office {workflow_type} on {self.task_queue}")
        if execution.status != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING:
            raise refused("the scheduling workflow is not running")
        return self._remember(run, _keyword(execution.search_attributes.indexed_fields, WORKSPACE))

    def _remember(self, run: str, workspace: str) -> str:
        self._runs[run] = workspace
        while len(self._runs) > RUNS_KEPT:
            self._runs.popitem(last=False)
        return workspace

    async def configured(self, run_id: str, workspace: str, cand: Candidate) -> Configured:
        """`check_run`, then the candidate as the store configures it for the run's workspace."""
        indexed = await self.check_run(run_id)
        name = workspace or indexed
        if indexed and workspace and indexed != workspace:
            raise refused("the workspace named is not the run's")
        ws = await self._workspace(name)
        profile = ws.providers.get(cand.provider) if ws is not None else None
        if ws is None or profile is None:
            raise configuration_failure(
                f"providers.{cand.provider}",
                f"workspace {name!r} has no provider {cand.provider!r} (removed while the run was going?); add it "
                "back or resubmit the run",
                cand.provider,
                Phase.session_start,
            )
        return Configured(candidate=cand.model_copy(update={"profile": profile}), workspace=ws)

    async def workspace_of(self, run_id: str) -> WorkspaceConfig | None:
        """`check_run`, then the run's workspace as the store holds it (None: it was removed)."""
        return await self._workspace(await self.check_run(run_id))

    async def _workspace(self, name: str) -> WorkspaceConfig | None:
        now = time.monotonic()
        cached = self._workspaces.get(name)
        if cached is not None and now - cached[0] < CONFIG_TTL_S:
            return cached[1]
        ws = await store_retrying(lambda: self.store.get_workspace(name), f"reading workspace {name}") if name else None
        self._workspaces[name] = (now, ws)
        return ws


def _keyword(fields: object, key: SearchAttributeKey[str]) -> str:
    """A keyword search attribute's value from the server's indexed fields ("" when absent)."""
    payload = getattr(fields, "get", lambda _k: None)(key.name)
    if payload is None:
        return ""
    data = str(payload.data.decode("utf-8", "replace")).strip()
    return data.strip('"') if data.startswith('"') else data
