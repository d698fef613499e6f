"""Submitting runs on a test stack as `office submit` does, and waiting for their end.

    view = await run_to_end(stack, ws, agent, "Plan the refactor", follow_ups=["Now write step 1"])

Every argument of `office.runs.submit` can be given; the stack's client, store and task queue are the defaults."""

import asyncio
from typing import Any, TypedDict, Unpack

from temporalio.client import Client, WorkflowHandle
from temporalio.common import WorkflowIDReusePolicy

from office.runs import submit, wait_for_view
from routing.backlog import RunPriority
from routing.run import RunView
from testkit.stack import Stack

PROMPT = "Fix the failing test"
Handle = WorkflowHandle[Any, Any]


class RunOptions(TypedDict, total=False):
    """The keyword arguments of `office.runs.submit`, and the client to submit through (by default the stack's:
    another for an encrypting client or another server)."""

    client: Client
    run_id: str | None
    tier: str | None
    task_queue: str
    id_reuse_policy: WorkflowIDReusePolicy
    pin_providers: list[str] | None
    pin_model: str | None
    follow_ups: list[str] | None
    full_history: bool
    max_cost_usd: float | None
    max_tokens: int | None
    priority: RunPriority


class EndOptions(RunOptions, total=False):
    within_s: float | None  # fail with TimeoutError unless the run has ended by then


async def submit_run(stack: Stack, ws: str, agent: str, prompt: str = PROMPT, **options: Unpack[RunOptions]) -> Handle:
    """Starts a run on the stack's task queue unless `task_queue` says otherwise; returns its handle."""
    settings: dict[str, Any] = {"task_queue": stack.task_queue, **options}
    client = settings.pop("client", stack.client)
    return await submit(client, stack.store, ws, agent, prompt, **settings)


async def run_to_end(stack: Stack, ws: str, agent: str, prompt: str = PROMPT, **options: Unpack[EndOptions]) -> RunView:
    """Submits a run as `submit_run` does and returns its view once it has ended (completed, failed or cancelled)."""
    settings: dict[str, Any] = dict(options)
    async with asyncio.timeout(settings.pop("within_s", None)):
        handle = await submit_run(stack, ws, agent, prompt, **settings)
        return await wait_for_view(settings.get("client", stack.client), handle.id)
