"""`office runs retry | continue`: a new run linked to an ended one (routing.relink), through the Temporal client.

What the new run needs of the ended one is read where it is kept: its request (prompt, follow-ups, workspace,
agent, tier, pins) is the ended workflow's input, the first event of its history, decoded through the client's data
converter (and codec); its status and branch are its view; the turns it answered are its transcript in the store.
The new run's own carry-over activity checks all of it again before it copies anything (activities.relink)."""

import re
import uuid

from temporalio.client import Client
from temporalio.client import WorkflowExecutionStatus as Status
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode

from contracts.queues import TASK_QUEUE
from office.run_input import SubmitError, validate_text
from office.runs import RunHandle, RunIdTaken, run_view, start_request, validate_submission
from routing.relink import How, RelinkRefused, answered_turns, refusal, relinked
from routing.run import RUN_ID_MAX, RUN_ID_PATTERN, RunRequest, RunStatus, RunView
from store.repository import Store
from workflows.office_run import OfficeRunWorkflow

__all__ = ["RelinkRefused", "original_request", "relink"]


async def original_request(client: Client, run_id: str) -> RunRequest:
    """The request run `run_id` was started with: its workflow's input, decoded as its workers decoded it."""
    handle = client.get_workflow_handle(run_id)
    try:
        async for event in handle.fetch_history_events(page_size=1):
            started = event.workflow_execution_started_event_attributes
            if started.workflow_type.name != OfficeRunWorkflow.__name__:
                raise RelinkRefused(f"{run_id!r} is not an office run (workflow type {started.workflow_type.name})")
            try:
                [request] = await client.data_converter.decode(started.input.payloads, [RunRequest])
            except ValueError as err:
                raise RelinkRefused(f"run {run_id}'s request cannot be read ({err}); submit it again") from err
            if not isinstance(request, RunRequest):
                raise RelinkRefused(f"run {run_id}'s request cannot be read; submit it again")
            return request
    except RPCError as err:
        if err.status is RPCStatusCode.NOT_FOUND:
            raise RelinkRefused(f"run {run_id!r} does not exist; see `office runs list`") from err
        raise
    raise RelinkRefused(f"run {run_id!r} has no history; submit it again")


async def ended_view(client: Client, run_id: str) -> RunView:
    """The run's view with its attempts and branch. A cancelled run's is asked of its workflow (the server indexes
    only its search attributes), which a worker answers from its history."""
    desc = await client.get_workflow_handle(run_id).describe()
    if desc.status == Status.CANCELED:
        try:
            view = await client.get_workflow_handle_for(OfficeRunWorkflow.run, run_id).query(OfficeRunWorkflow.status)
        except RPCError as err:
            raise RelinkRefused(f"run {run_id}'s state cannot be read ({err.message}); is a worker running?") from err
        if view is not None:
            return view.model_copy(update={"status": RunStatus.cancelled})
    return await run_view(client, run_id)


def _new_id(run_id: str | None) -> str:
    new = run_id or f"run-{uuid.uuid4().hex[:12]}"
    if len(new) > RUN_ID_MAX or not re.match(RUN_ID_PATTERN, new):
        raise SubmitError(
            "run-id", f"use 1-{RUN_ID_MAX} letters, digits and . _ : - (starting with a letter or digit), or omit it"
        )
    return new


async def relink(
    client: Client,
    store: Store,
    run_id: str,
    how: How,
    text: str | None = None,
    new_run_id: str | None = None,
    task_queue: str = TASK_QUEUE,
) -> RunHandle:
    """Starts the run that retries (`how` retry or fresh) or continues (with `text`) the ended run `run_id`.
    Raises RelinkRefused or SubmitError (one line each) and starts nothing when it cannot."""
    if text is not None:
        validate_text(text)
    new_id = _new_id(new_run_id)
    old = await original_request(client, run_id)
    view = await ended_view(client, run_id)
    if why := refusal(run_id, view.status, how):
        raise RelinkRefused(why)
    texts = [old.prompt, *old.follow_ups]
    answered = answered_turns([(r.seq, r.role) for r in await store.read_transcript(run_id, 2 * len(texts))])
    request = relinked(old, new_id, how, answered, text, has_branch=view.result is not None)
    valid = await validate_submission(
        store, request.workspace, request.agent, request.prompt, request.pin_providers, request.tier,
        request.follow_ups, request.pin_model,
    )  # fmt: skip
    newest = request.follow_ups[-1] if how == "continue" and request.follow_ups else request.prompt
    summary = f"{'continues' if how == 'continue' else 'retry of'} {run_id}: {newest.splitlines()[0][:60]}"
    try:
        return await start_request(
            client, request, task_queue, request.pin_model or valid.model, summary,
            max_concurrent_runs=valid.max_concurrent_runs,
        )  # fmt: skip
    except WorkflowAlreadyStartedError:
        raise RunIdTaken("run-id", f"{new_id!r} is already the id of a run; choose another --run-id") from None
