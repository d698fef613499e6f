"""An ephemeral stack for tests, benchmarks and the history recorder: a real Temporal dev server
(in memory), the provider simulator, a migrated database and an in-process worker."""

import asyncio
import contextlib
import os
import sys
import uuid
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

from activities.git.runner import DEV_MODE_ENV
from contracts.queues import TASK_QUEUE
from office.simulator.config import SimConfig, SimProvider
from office.simulator.server import RemoteSimulator, SimulatorServer
from office.temporal_client import connect
from office.temporal_server import TemporalDevServer
from office.worker_runtime import office_worker
from routing.config import AgentProfile, ExecutionProfile, ProviderEntry, WorkspaceConfig
from routing.sandbox import SandboxSettings
from store.migrate import migrate
from store.repository import Store
from testkit.eventually import eventually


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time process `pid` has used so far; 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


@dataclass
class WorkerProcess:
    """An `office worker` subprocess: its pid, for readiness checks and resident-memory sampling."""

    process: asyncio.subprocess.Process

    @property
    def pid(self) -> int:
        return self.process.pid

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.pid)

    def rss_mb(self) -> float:
        """Resident memory now (VmRSS), in MiB; 0 once the process is gone."""
        try:
            status = Path(f"/proc/{self.pid}/status").read_text()
        except OSError:
            return 0.0
        kib = next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)
        return kib / 1024


class Workspace(NamedTuple):
    """What `Stack.workspace` created: unpacks as `ws, agent, p = await stack.workspace(...)`."""

    name: str  # the workspace's
    agent: str  # the agent profile's
    providers: dict[str, str]  # the short name a test gave each provider -> its unique name in the workspace


@dataclass
class Stack:
    temporal: TemporalDevServer
    simulator: SimulatorServer | RemoteSimulator
    store: Store
    client: Client
    database_url: str
    task_queue: str
    workers: list[WorkerProcess] = field(default_factory=list)  # with worker_process: the running workers

    async def workspace(
        self,
        providers: dict[str, SimProvider | ExecutionProfile],
        *,
        model: str = "sim-small",
        fallback_model: str | None = None,
        auto_fallback: bool = False,
        credential_env: str | None = None,
        emergency: tuple[str, ...] = (),
        default_models: dict[str, str] | None = None,
        per_provider: dict[str, dict[str, Any]] | None = None,
        sandbox: str | None = None,
        unreadable_failure_wait: float | None = None,
        **profile_fields: Any,
    ) -> Workspace:
        """Creates uniquely named simulated providers, a workspace ordering them as given, and an agent.
        A provider given as an ExecutionProfile (an ACP agent) is used as it is; `sandbox="none"` runs the
        workspace's agents outside the sandbox."""
        tag = uuid.uuid4().hex[:8]
        names = {short: f"{short}-{tag}" for short in providers}
        given = {short: prov for short, prov in providers.items() if isinstance(prov, ExecutionProfile)}
        for short, prov in providers.items():
            if isinstance(prov, SimProvider):
                await self.simulator.set_provider(names[short], prov)
        workspace = WorkspaceConfig(
            name=f"ws-{tag}",
            provider_order=[ProviderEntry(provider=names[s], emergency=s in emergency) for s in providers],
            providers={
                names[s]: given.get(s)
                or ExecutionProfile(
                    base_url=self.simulator.provider_url(names[s]),
                    credential_env=credential_env,
                    default_model=(default_models or {}).get(s),
                    **(profile_fields | (per_provider or {}).get(s, {})),
                )
                for s in providers
            },
        )
        if sandbox is not None:
            workspace = workspace.model_copy(update={"sandbox": SandboxSettings.model_validate(sandbox)})
        if unreadable_failure_wait is not None:
            workspace = workspace.model_copy(update={"unreadable_failure_wait": unreadable_failure_wait})
        agent = AgentProfile(
            name=f"agent-{tag}", model=model, fallback_model=fallback_model, auto_fallback=auto_fallback
        )
        await self.store.save_workspace(workspace)
        await self.store.save_agent(agent)
        return Workspace(workspace.name, agent.name, names)


@contextlib.asynccontextmanager
async def ephemeral_stack(
    database_url: str,
    task_queue: str = TASK_QUEUE,
    worker: bool = True,
    ui: bool = True,
    simulator_process: bool = False,
    worker_process: bool = False,
    worker_processes: int = 1,
) -> AsyncIterator[Stack]:
    """`worker_process`: run `worker_processes` workers as `office worker`, each in its own process (they share
    the task queues, as a team's workers do). Its workers run for development (OFFICE_DEV_MODE=1: repositories on
    this machine's disk are accepted), in process and in their own processes alike."""
    temporal = await TemporalDevServer(headless=not ui).start()  # the browser test looks at the UI
    simulator = await (RemoteSimulator() if simulator_process else SimulatorServer(SimConfig())).start()
    store = None
    dev_mode_before = os.environ.get(DEV_MODE_ENV)
    os.environ[DEV_MODE_ENV] = "1"
    try:
        await migrate(database_url)
        store = Store(database_url)
        client = await connect(address=temporal.address, namespace="default")
        stack = Stack(temporal, simulator, store, client, database_url, task_queue)
        if worker and worker_process:
            async with worker_processes_for(stack, worker_processes) as running:
                stack.workers = running
                yield stack
        elif worker:
            async with office_worker(client, database_url, task_queue):
                yield stack
        else:
            yield stack
    finally:
        if store is not None:
            await store.close()
        await simulator.stop()
        temporal.stop()
        if dev_mode_before is None:
            os.environ.pop(DEV_MODE_ENV, None)
        else:
            os.environ[DEV_MODE_ENV] = dev_mode_before


@contextlib.asynccontextmanager
async def worker_processes_for(
    stack: Stack, count: int, env: Mapping[str, str] | None = None
) -> AsyncIterator[list[WorkerProcess]]:
    """`count` more `office worker` processes on the stack's server, store and task queue; `env` is added to
    theirs (e.g. OFFICE_MAX_* sizing). Stopped (SIGTERM, then waited for) on exit."""
    async with contextlib.AsyncExitStack() as workers:
        running = [
            await workers.enter_async_context(
                worker_process(stack.temporal.address, stack.database_url, stack.task_queue, env or {})
            )
            for _ in range(count)
        ]
        yield running


async def until_polling(
    stack: Stack,
    workers: list[WorkerProcess],
    within_s: float = 60,
    queue: str | None = None,
    client: Client | None = None,
) -> None:
    """Waits until every worker process polls the stack's workflow task queue (or `queue`, on `client`'s server): it
    has imported and connected, so a measurement that starts now does not time the workers' start-up."""
    client = client or stack.client
    wanted = {w.pid for w in workers}
    await eventually(
        lambda: poller_pids(client, queue or stack.task_queue, TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW),
        until=lambda pids: wanted <= pids,
        timeout=within_s,
        what="the workers polling",
    )


# What a busy dev server answers now and then to DescribeTaskQueue; the next call usually succeeds.
_TRANSIENT_RPC_STATUSES = frozenset(
    {RPCStatusCode.CANCELLED, RPCStatusCode.UNAVAILABLE, RPCStatusCode.DEADLINE_EXCEEDED}
)


async def poller_pids(client: Client, queue: str, queue_type: TaskQueueType.ValueType) -> set[int]:
    """The process ids of the workers polling `queue` now (from their `pid@host` identities); an empty set when the
    server answered with a transient status, so a caller polling with `eventually` simply asks again."""
    request = DescribeTaskQueueRequest(
        namespace=client.namespace, task_queue=TaskQueue(name=queue), task_queue_type=queue_type
    )
    try:
        pollers = (await client.workflow_service.describe_task_queue(request)).pollers
    except RPCError as error:
        if error.status in _TRANSIENT_RPC_STATUSES:
            return set()
        raise
    return {int(p.identity.split("@", 1)[0]) for p in pollers if p.identity.split("@", 1)[0].isdigit()}


@contextlib.asynccontextmanager
async def worker_process(
    address: str, database_url: str, task_queue: str, extra_env: Mapping[str, str]
) -> AsyncIterator[WorkerProcess]:
    """One `office worker` process on the server at `address` and `task_queue`, with `extra_env` added to its
    environment; stopped (SIGTERM, then waited for) on exit unless it was killed meanwhile."""
    env = {
        **os.environ,
        "TEMPORAL_ADDRESS": address,
        "TEMPORAL_NAMESPACE": "default",
        "OFFICE_DATABASE_URL": database_url,
        "OFFICE_TASK_QUEUE": task_queue,
        "OFFICE_OTEL_EXPORTER": "none",
        **extra_env,
    }
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "office.cli",
        "worker",
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        yield WorkerProcess(proc)
    finally:
        if proc.returncode is None:
            proc.terminate()
        await proc.wait()
