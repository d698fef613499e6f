"""Builds the worker: workflows, activities (with their store and HTTP client), and the sandbox setup."""

import asyncio
import contextlib
from collections.abc import AsyncIterator

import httpx
from temporalio.client import Client
from temporalio.worker import Worker

from activities.routing_state import RouteStateActivities
from activities.session import SessionActivities
from activities.watchdog import WatchdogActivities
from office.settings import Settings
from office.telemetry import configure_telemetry
from office.temporal_client import connect
from store.repository import Store
from workflows.office_run import OfficeRunWorkflow
from workflows.watchdog import WatchdogWorkflow


@contextlib.asynccontextmanager
async def office_worker(client: Client, database_url: str, task_queue: str) -> AsyncIterator[Worker]:
    store = Store(database_url)
    # Retries are off in the transport (httpx default); Temporal's attempts are the only retries.
    async with httpx.AsyncClient(transport=httpx.AsyncHTTPTransport(retries=0)) as http:
        route_state = RouteStateActivities(store)
        sessions = SessionActivities(store, http)
        watchdog = WatchdogActivities(store)
        worker = Worker(
            client, task_queue=task_queue, workflows=[OfficeRunWorkflow, WatchdogWorkflow],
            activities=[route_state.open_transcript, route_state.resolve_route, route_state.record_attempt,
                        sessions.start_session, sessions.run_session, watchdog.sweep_automatic_selections],
            max_concurrent_activities=200,
        )
        async with worker:
            yield worker
    await store.close()


async def run_worker_forever() -> None:
    configure_telemetry("office-worker")
    settings = Settings.from_env()
    client = await connect()
    async with office_worker(client, settings.database_url, settings.task_queue):
        await asyncio.Event().wait()
