"""An ephemeral stack for tests, benchmarks and the history recorder: a real Temporal dev server
(in memory), the provider simulator, a migrated database and an in-process worker."""

import asyncio
import contextlib
import os
import sys
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

from temporalio.client import Client

from contracts.activities import TASK_QUEUE
from office.simulator.config import SimConfig, SimProvider
from office.simulator.server import RemoteSimulator, SimulatorServer
from office.temporal_client import connect
from office.temporal_server import TemporalDevServer
from office.worker_runtime import office_worker
from routing.config import AgentProfile, ExecutionProfile, WorkspaceConfig
from store.migrate import migrate
from store.repository import Store


@dataclass
class Stack:
    temporal: TemporalDevServer
    simulator: SimulatorServer | RemoteSimulator
    store: Store
    client: Client
    database_url: str
    task_queue: str

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
        per_provider: dict[str, dict] | None = None,
        **profile_fields: object,
    ) -> tuple[str, str, dict[str, str]]:
        """Creates uniquely named simulated providers, a workspace ordering them as given, and an agent.
        A provider given as an ExecutionProfile (an ACP agent) is used as it is.
        Returns (workspace, agent, {short name: provider name})."""
        tag = uuid.uuid4().hex[:8]
        names = {short: f"{short}-{tag}" for short in providers}
        given = {short: prov for short, prov in providers.items() if isinstance(prov, ExecutionProfile)}
        for short, prov in providers.items():
            if isinstance(prov, SimProvider):
                await self.simulator.set_provider(names[short], prov)
        workspace = WorkspaceConfig(
            name=f"ws-{tag}",
            provider_order=[{"provider": names[s], "emergency": s in emergency} for s in providers],  # type: ignore[misc]
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
        agent = AgentProfile(
            name=f"agent-{tag}", model=model, fallback_model=fallback_model, auto_fallback=auto_fallback
        )
        await self.store.save_workspace(workspace)
        await self.store.save_agent(agent)
        return workspace.name, agent.name, names


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
    the task queues, as a team's workers do)."""
    temporal = await TemporalDevServer(headless=not ui).start()  # the browser test looks at the UI
    simulator = await (RemoteSimulator() if simulator_process else SimulatorServer(SimConfig())).start()
    store = None
    try:
        await migrate(database_url)
        store = Store(database_url)
        client = await connect(address=temporal.address, namespace="default")
        stack = Stack(temporal, simulator, store, client, database_url, task_queue)
        if worker and worker_process:
            async with contextlib.AsyncExitStack() as workers:
                for _ in range(worker_processes):
                    await workers.enter_async_context(_worker_process(temporal.address, database_url, task_queue))
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


@contextlib.asynccontextmanager
async def _worker_process(address: str, database_url: str, task_queue: str) -> AsyncIterator[None]:
    env = {
        **os.environ,
        "TEMPORAL_ADDRESS": address,
        "TEMPORAL_NAMESPACE": "default",
        "OFFICE_DATABASE_URL": database_url,
        "OFFICE_TASK_QUEUE": task_queue,
        "OFFICE_OTEL_EXPORTER": "none",
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
        yield
    finally:
        proc.terminate()
        await proc.wait()
