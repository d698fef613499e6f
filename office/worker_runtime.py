"""Builds the worker: workflows, activities (with their store and HTTP client), and one rate-limited worker
per provider queue for providers with a configured quota."""

import asyncio
import contextlib
import gc
import logging
import signal
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
from temporalio.client import Client
from temporalio.worker import FixedSizeSlotSupplier, Worker, WorkerTuner

from activities.acp_session import AcpActivities, LiveAgents, reap_idle_forever, reap_orphaned_agents
from activities.boundary import RunBoundary
from activities.budget import BudgetActivities
from activities.executors.http_pool import ShardedTransport
from activities.executors.sandbox import SandboxUnavailable, check_bubblewrap
from activities.gate import GateActivities
from activities.git.mirrors import Mirrors
from activities.notify import NotifyActivities
from activities.relink import RelinkActivities
from activities.routing_state import RouteStateActivities
from activities.session import SessionActivities
from activities.watchdog import WatchdogActivities
from activities.workdir import private_dir
from contracts.activities import acp_start_queue, provider_queue
from contracts.gate import gate_queue
from office.agent_slots import AgentSlots
from office.settings import Settings, WorkerSizing, ui_url_from_env, work_dir_from_env
from office.telemetry import configure_telemetry
from office.temporal_client import connect
from office.workflow_runner import workflow_runner
from store.engine import embedded_notice
from store.repository import Store
from workflows.gate import GateWorkflow
from workflows.notify import NotifyWorkflow
from workflows.office_run import OfficeRunWorkflow
from workflows.watchdog import WatchdogWorkflow

log = logging.getLogger(__name__)
GATE_WORKFLOW_TASKS = 4  # gates are few, and each takes one workflow task at a time
GC_YOUNG_THRESHOLD = 10_000  # objects allocated between young collections (CPython: 700)


class ProviderQueues:
    """Keeps one worker per provider queue whose `max_task_queue_activities_per_second` is the provider's
    quota, so all workers together never dispatch more than the quota (the server enforces it)."""

    def __init__(
        self, client: Client, store: Store, base_queue: str, sessions: SessionActivities, refresh_s: float = 2.0
    ):
        self.client, self.store, self.base_queue, self.sessions = client, store, base_queue, sessions
        self.refresh_s = refresh_s
        self._workers: dict[str, tuple[float, Worker, asyncio.Task[None]]] = {}

    async def quotas(self) -> dict[str, float]:
        """Per provider, the strictest requests-per-minute any workspace configures."""
        found: dict[str, float] = {}
        for ws in await self.store.list_workspaces():
            for name, profile in ws.providers.items():
                if profile.requests_per_minute:
                    found[name] = min(found.get(name, profile.requests_per_minute), profile.requests_per_minute)
        return found

    async def sync(self) -> None:
        for provider, rpm in (await self.quotas()).items():
            current = self._workers.get(provider)
            if current is not None and current[0] == rpm:
                continue
            if current is not None:
                await self._stop(provider)
            worker = Worker(
                self.client,
                task_queue=provider_queue(self.base_queue, provider),
                activities=[self.sessions.session_turn],
                max_concurrent_activities=100,
                max_task_queue_activities_per_second=rpm / 60.0,
            )
            self._workers[provider] = (rpm, worker, asyncio.create_task(worker.run()))

    async def _stop(self, provider: str) -> None:
        _, worker, task = self._workers.pop(provider)
        await worker.shutdown()
        with contextlib.suppress(Exception):
            await task

    async def run(self) -> None:
        while True:
            try:
                await self.sync()
            except Exception:
                log.exception("could not refresh provider queues")
            await asyncio.sleep(self.refresh_s)

    async def close(self) -> None:
        for provider in list(self._workers):
            await self._stop(provider)


def worker_queue(task_queue: str) -> str:
    """This worker process's own queue: turns of the agent sessions it holds are routed here."""
    return f"{task_queue}-worker-{uuid.uuid4().hex[:12]}"


@contextlib.asynccontextmanager
async def office_worker(
    client: Client,
    database_url: str,
    task_queue: str,
    provider_refresh_s: float = 2.0,
    agent_cwd: str | None = None,
    work_dir: str | None = None,
    sizing: WorkerSizing | None = None,
    ui_url: str | None = None,
) -> AsyncIterator[Worker]:
    """`work_dir`: where repository mirrors and per-run working copies live (default OFFICE_WORK_DIR);
    `sizing`: how much this worker takes on at once (default from OFFICE_MAX_* variables); `ui_url`: the Temporal
    UI notifications link runs to (default OFFICE_UI_URL)."""
    work_dir = work_dir or work_dir_from_env()
    try:  # owner-only when this worker creates it
        await asyncio.to_thread(private_dir, Path(work_dir))
    except OSError as err:  # runs that need a working copy fail naming OFFICE_WORK_DIR; the others go on
        log.warning("cannot create the work directory %s (%s): set OFFICE_WORK_DIR", work_dir, err)
    sizing = sizing or WorkerSizing.from_env()
    store = Store(database_url, pool_size=sizing.db_pool_size)
    if notice := embedded_notice(database_url):
        log.warning(notice)
    agents = LiveAgents()
    await reap_orphaned_agents()  # agent trees a crashed worker on this machine left behind
    try:  # said once at start; each sandboxed session start then fails naming the `sandbox` setting
        await check_bubblewrap()
    except SandboxUnavailable as err:
        log.warning("%s; until then this worker starts agent sessions only for workspaces with `sandbox: none`", err)
    # Retries are off in the transport (httpx default) and provider calls get one Temporal attempt each: the
    # workflow's decider is the only retry layer (workflows/turns.py, NO_RETRY).
    # A streamed turn holds its connection for the whole turn: one per activity slot, or turns beyond the pool
    # would wait for a connection (and fail with PoolTimeout) while the provider has capacity.
    async with httpx.AsyncClient(transport=ShardedTransport(sizing.max_concurrent_activities)) as http:
        boundary = RunBoundary(store, task_queue)  # activities act only for office runs, on what the store holds
        route_state = RouteStateActivities(store, boundary, work_dir)
        sessions = SessionActivities(store, http, boundary)
        watchdog = WatchdogActivities(store, boundary)
        notify = NotifyActivities(store, task_queue, ui_url or ui_url_from_env())
        budget = BudgetActivities(store)
        gates = GateActivities(client)
        own_queue = worker_queue(task_queue)
        mirrors = Mirrors(work_dir)  # this worker's repository mirrors: one lock and fetch record per mirror
        acp = AcpActivities(store, own_queue, agents, boundary, agent_cwd, work_dir, mirrors)
        relink = RelinkActivities(store, boundary, mirrors)  # what a retry or continuation of an ended run carries
        slots = AgentSlots(sizing.live_agents_limit(), agents.count)
        agents.on_exit = slots.changed
        log.info(
            "at most %d live agent processes on this worker (%s)",
            slots.limit,
            "OFFICE_MAX_LIVE_AGENTS" if sizing.max_live_agents else "from its memory; OFFICE_MAX_LIVE_AGENTS sets it",
        )
        worker = Worker(
            client,
            task_queue=task_queue,
            workflows=[OfficeRunWorkflow, WatchdogWorkflow, NotifyWorkflow, GateWorkflow],
            activities=[
                route_state.resolve_route,  # local only (it refuses a remote call)
                route_state.record_attempt,  # local only
                budget.check_budget,  # local only
                sessions.session_turn,
                watchdog.sweep_automatic_selections,
                notify.notify_targets,
                notify.deliver_notification,
                relink.carry_over,
                gates.gate_enter,  # local only: ceilings (workflows/gate.py)
                gates.gate_release,  # local only
                gates.gate_ask,  # local only: runs that began before gate-enter-v1
                gates.gate_vanished,  # local only: gates started on this queue before gate-own-queue-v1
                gates.gate_wake,  # local only: the same
            ],
            max_concurrent_activities=sizing.max_concurrent_activities,
            max_cached_workflows=sizing.max_cached_workflows,
            max_concurrent_workflow_tasks=sizing.max_concurrent_workflow_tasks,
            workflow_runner=workflow_runner(),
        )
        session_worker = Worker(
            client,
            task_queue=own_queue,
            activities=[acp.acp_turn, acp.acp_close, acp.acp_answer],
            max_concurrent_activities=100,
        )
        # The gates' own queue and workflow-task slots: a run waits in its workflow task for its gate's answer.
        gate_worker = Worker(
            client,
            task_queue=gate_queue(task_queue),
            workflows=[GateWorkflow],
            activities=[gates.gate_vanished, gates.gate_wake],
            max_concurrent_workflow_tasks=GATE_WORKFLOW_TASKS,
            workflow_runner=workflow_runner(),
        )
        start_worker = Worker(
            client,
            task_queue=acp_start_queue(task_queue),
            activities=[acp.acp_start],
            tuner=WorkerTuner.create_composite(  # only the activity slots matter: this worker runs one activity
                workflow_supplier=FixedSizeSlotSupplier(2),
                activity_supplier=slots,
                local_activity_supplier=FixedSizeSlotSupplier(1),
                nexus_supplier=FixedSizeSlotSupplier(1),
            ),
        )
        queues = ProviderQueues(client, store, task_queue, sessions, provider_refresh_s)
        await queues.sync()
        background = [asyncio.create_task(queues.run()), asyncio.create_task(reap_idle_forever(agents))]
        try:
            # The gate worker stops last: a run's workflow task in flight at shutdown may wait on its gate's answer.
            async with gate_worker, worker, session_worker, start_worker:
                yield worker
        finally:
            for task in background:
                task.cancel()
            await queues.close()
            await agents.close_all()  # never leave agent processes behind
            await notify.close()
    await store.close()


def tune_gc() -> None:
    """A worker's heap is mostly long-lived (modules, cached runs, turns in flight), so Python's full collections
    scan hundreds of MB to free almost nothing: at 1,000 runs in flight they grew to ~0.45 s each, a stall of every
    run in the process (the scale bench's p99). What is loaded at start is frozen out of collections, and young
    collections run less often (CPython's threshold is sized for small scripts): then only ~60 ms ones remain."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])


async def run_worker_forever() -> None:
    # What an operator sizes by (the live agent limit, agent starts waiting for a place) is logged at INFO.
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    configure_telemetry("office-worker")
    settings = Settings.from_env()
    client = await connect()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):  # a stop (docker stop, a deploy) shuts the worker down in order
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    async with office_worker(client, settings.database_url, settings.task_queue, ui_url=settings.ui_url):
        tune_gc()
        await stop.wait()
        # Turns in flight end now as WorkerShutdown (a lost worker, never the provider's) and go to a live worker.
        log.info("stopping: turns in flight move to a live worker")
