"""Submitting runs on a test stack as `office submit` does, and waiting for their end.

    view = await run_to_end(stack, ws, agent, "Plan the refactor", follow_ups=["Now write step 1"])

Every argument of `office.runs.submit` can be given; the stack's client, store and task queue are the defaults."""

import asyncio
from typing import Any, TypedDict, Unpack

from temporalio.client import Client, WorkflowHandle
from temporalio.common import WorkflowIDReusePolicy

from office.runs import submit, wait_for_view
from routing.run import RunView
from testkit.stack import Stack

PROMPT = "Fix the failing test"


class SubmitOptions(TypedDict, total=False):
    """The keyword arguments of `office.runs.submit`."""

    run_id: str | None
    tier: str | None
    task_queue: str
    id_reuse_policy: WorkflowIDReusePolicy
    pin_providers: list[str] | None
    pin_model: str | None
    follow_ups: list[str] | None
    full_history: bool


async def submit_run(
    stack: Stack,
    workspace: str,
    agent: str,
    prompt: str = PROMPT,
    *,
    client: Client | None = None,
    **options: Unpack[SubmitOptions],
) -> WorkflowHandle[Any, Any]:
    """Starts a run through `client` (by default the stack's) on the stack's task queue unless `task_queue` says
    otherwise; returns its handle."""
    options.setdefault("task_queue", stack.task_queue)
    return await submit(client or stack.client, stack.store, workspace, agent, prompt, **options)


async def run_to_end(
    stack: Stack,
    workspace: str,
    agent: str,
    prompt: str = PROMPT,
    *,
    client: Client | None = None,
    within_s: float | None = None,
    **options: Unpack[SubmitOptions],
) -> RunView:
    """Submits a run as `submit_run` does and returns its view once it has ended (completed, failed or cancelled);
    `within_s`: fail with TimeoutError if it has not ended by then."""
    handle = await submit_run(stack, workspace, agent, prompt, client=client, **options)
    async with asyncio.timeout(within_s):
        return await wait_for_view(client or stack.client, handle.id)
