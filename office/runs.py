"""Submitting and reading runs through the Temporal client. Input is validated before anything starts."""

import random
import re
import uuid
from collections.abc import Sequence
from datetime import timedelta
from typing import NamedTuple

from pydantic import BaseModel
from temporalio.client import (
    Client,
    WorkflowExecutionDescription,
    WorkflowFailureError,
    WorkflowHandle,
    WorkflowUpdateFailedError,
)
from temporalio.client import WorkflowExecutionStatus as Status
from temporalio.common import (
    Priority,
    SearchAttributeKey,
    SearchAttributePair,
    TypedSearchAttributes,
    WorkflowIDReusePolicy,
)
from temporalio.exceptions import ApplicationError, FailureError, WorkflowAlreadyStartedError
from temporalio.service import RPCError

from activities.gate import ask_by_signal
from contracts import search_attributes as sa
from contracts.queues import TASK_QUEUE
from office.run_input import SubmitError, validate_limits, validate_text
from routing.backlog import PRIORITY_KEY, GateAsk, QueueView, RunPriority, ScopeKind, Waiting, gate_id
from routing.config import WorkspaceConfig
from routing.conversation import Say, SayAccepted, say_problem
from routing.run import RUN_ID_MAX, RUN_ID_PATTERN, RunRequest, RunStatus, RunView
from routing.validation import text_problem
from store.repository import Store
from workflows.gate import GateWorkflow
from workflows.office_run import OfficeRunWorkflow

# A run asked for at submission sleeps this long at most before it asks its gate by itself (its grant wakes it
# earlier: this bounds only a lost ask). Long, so a flooding workspace's backlog stays off the workers; spread, so a
# flood still queued when its delays end wakes a few runs at a time rather than all at once (each run's waking is
# one workflow task on the workers every workspace shares).
ASKED_START_DELAY = timedelta(minutes=10)
ASKED_START_SPREAD = timedelta(minutes=10)


def asked_start_delay(rand: float) -> timedelta:
    """The start delay of a run asked for at submission, `rand` in [0, 1): ASKED_START_DELAY plus its share of the
    spread."""
    return ASKED_START_DELAY + ASKED_START_SPREAD * rand


ENDED = (RunStatus.completed, RunStatus.failed, RunStatus.cancelled)
RunHandle = WorkflowHandle[OfficeRunWorkflow, RunView]  # an office run's workflow, whose result is its view
SCHEDULED_BY = SearchAttributeKey.for_keyword("TemporalScheduledById")  # set by the server on a scheduled run


class RunIdTaken(SubmitError):
    """The id belongs to a run already (running or finished): ids are never reused."""


def known_tiers(ws: WorkspaceConfig) -> list[str]:
    """The workspace's default tier and every tier a provider overrides."""
    return sorted({ws.default_tier} | {t for p in ws.providers.values() for t in p.tiers})


async def validate_submission(
    store: Store,
    workspace: str,
    agent: str,
    prompt: str,
    pin_providers: Sequence[str] = (),
    tier: str | None = None,
    follow_ups: Sequence[str] = (),
    pin_model: str | None = None,
) -> "Validated":
    validate_text(prompt, follow_ups, pin_model)
    ws, profile = await store.configs(workspace, agent)
    if ws is None:
        known = ", ".join(w.name for w in await store.list_workspaces()) or "none yet"
        raise SubmitError(
            "workspace", f"{workspace!r} does not exist (known: {known}); create it with `office workspace set`"
        )
    if profile is None:
        known = ", ".join(a.name for a in await store.list_agents()) or "none yet"
        raise SubmitError("agent", f"{agent!r} does not exist (known: {known}); create it with `office profile set`")
    if tier is not None and tier not in known_tiers(ws):
        raise SubmitError(
            "tier",
            f"{tier!r} is not a tier of workspace {workspace!r} (its tiers: {', '.join(known_tiers(ws))}); "
            f"omit --tier for {ws.default_tier!r}",
        )
    unknown = [p for p in pin_providers if p not in ws.providers]
    if unknown:
        raise SubmitError(
            "pin-provider",
            f"{', '.join(unknown)} not in workspace {workspace!r} (its providers: {', '.join(ws.providers)})",
        )
    return Validated(profile.model, ws.max_concurrent_runs)


class Validated(NamedTuple):
    """What a valid submission starts with: the agent profile's model, its workspace's ceiling (None: none)."""

    model: str
    max_concurrent_runs: int | None


async def submit(
    client: Client,
    store: Store,
    workspace: str,
    agent: str,
    prompt: str,
    run_id: str | None = None,
    tier: str | None = None,
    task_queue: str = TASK_QUEUE,
    id_reuse_policy: WorkflowIDReusePolicy = WorkflowIDReusePolicy.REJECT_DUPLICATE,
    pin_providers: list[str] | None = None,
    pin_model: str | None = None,
    follow_ups: list[str] | None = None,
    full_history: bool = True,
    max_cost_usd: float | None = None,
    max_tokens: int | None = None,
    priority: RunPriority = RunPriority.default,
) -> RunHandle:
    valid = await validate_submission(
        store, workspace, agent, prompt, pin_providers or [], tier, follow_ups or [], pin_model
    )
    requested_model = pin_model or valid.model
    validate_limits(max_cost_usd, max_tokens)
    run_id = run_id or f"run-{uuid.uuid4().hex[:12]}"
    if len(run_id) > RUN_ID_MAX or not re.match(RUN_ID_PATTERN, run_id):
        raise SubmitError(
            "run-id", f"use 1-{RUN_ID_MAX} letters, digits and . _ : - (starting with a letter or digit), or omit it"
        )
    request = RunRequest(
        run_id=run_id,
        workspace=workspace,
        agent=agent,
        prompt=prompt.strip(),
        tier=tier,
        pin_providers=pin_providers or [],
        pin_model=pin_model,
        follow_ups=follow_ups or [],
        full_history=full_history,
        max_cost_usd=max_cost_usd,
        max_tokens=max_tokens,
        priority=priority,
    )
    first_line = prompt.strip().splitlines()[0][:80]
    try:
        return await start_request(
            client, request, task_queue, requested_model, first_line, id_reuse_policy, valid.max_concurrent_runs
        )
    except WorkflowAlreadyStartedError:
        raise RunIdTaken(
            "run-id",
            f"{run_id!r} is already the id of a run (its transcript and attempts are its own); see it with "
            f"`office runs show {run_id}`, or submit with another id",
        ) from None


async def start_request(
    client: Client,
    request: RunRequest,
    task_queue: str,
    requested_model: str,
    first_line: str,
    id_reuse_policy: WorkflowIDReusePolicy = WorkflowIDReusePolicy.REJECT_DUPLICATE,
    max_concurrent_runs: int | None = None,
) -> RunHandle:
    """Starts a validated request with its summary and the search attributes it is listed by from its start.

    A run of a workspace with a ceiling (`max_concurrent_runs`) is asked for here: it starts in a start delay,
    queued, with no task of its own, and its workspace's gate asks nobody's worker until the run's grant wakes it
    (so a flooding workspace's backlog costs the workers nothing while it waits). Should its ask be lost (this
    process killed between the two calls), the run wakes at the delay's end and asks by itself."""
    workspace, agent, run_id = request.workspace, request.agent, request.run_id
    link = [SearchAttributePair(sa.CONTINUES, request.continues.run_id)] if request.continues else []
    gate = gate_id(ScopeKind.workspace, workspace) if max_concurrent_runs else None
    if gate is not None:
        request = request.model_copy(update={"asked_gate": gate})
    status = RunStatus.queued if gate is not None else RunStatus.running
    handle = await client.start_workflow(
        OfficeRunWorkflow.run,
        request,
        id=run_id,
        task_queue=task_queue,
        static_summary=f"{agent} in {workspace}: {first_line}",
        static_details=f"Office run of agent profile **{agent}** in workspace **{workspace}** "
        f"(requested model `{requested_model}`).",
        search_attributes=TypedSearchAttributes(
            [
                SearchAttributePair(sa.STATUS, status.value),
                SearchAttributePair(sa.WORKSPACE, workspace),
                SearchAttributePair(sa.AGENT, agent),
                SearchAttributePair(sa.REQUESTED_MODEL, requested_model),
                SearchAttributePair(sa.FALLBACK_COUNT, 0),
                *link,
            ]
        ),
        run_timeout=timedelta(days=7),
        id_reuse_policy=id_reuse_policy,
        priority=temporal_priority(request),
        start_delay=asked_start_delay(random.random()) if gate is not None else None,
    )
    if gate is not None and max_concurrent_runs:
        # Its place in line is its start time as the server has it, as for a run that asks by itself: runs submitted
        # at once are served in the server's order, not in the order their submitters' calls came back.
        started = (await handle.describe()).start_time
        waiting = Waiting(run_id=run_id, workspace=workspace, priority=request.priority, limit=max_concurrent_runs,
                          submitted_at=started, wake=True)  # fmt: skip
        await ask_by_signal(client, GateAsk(gate=gate, waiting=waiting), task_queue)
    return handle


def temporal_priority(request: RunRequest) -> Priority:
    """Temporal's priority for the run's workflow tasks and (inherited) its activities: its class, and its
    workspace as the fairness key, so a workspace with a thousand runs backlogged does not starve another's
    (fairness needs the server's `matching.enableFairness`; without it the key is ignored)."""
    return Priority(priority_key=PRIORITY_KEY[request.priority], fairness_key=request.workspace[:64])


def _from_failure(err: WorkflowFailureError) -> RunView | None:
    cause = err.cause
    if isinstance(cause, ApplicationError) and cause.details and isinstance(cause.details[0], dict):
        try:
            return RunView.model_validate(cause.details[0])
        except ValueError:
            return None
    return None


def _from_search_attributes(
    run_id: str, attrs: TypedSearchAttributes, status: RunStatus, message: str | None = None
) -> RunView:
    return RunView(
        run_id=run_id,
        status=status,
        workspace=attrs.get(sa.WORKSPACE) or "",
        agent=attrs.get(sa.AGENT) or "",
        provider=attrs.get(sa.PROVIDER),
        requested_model=attrs.get(sa.REQUESTED_MODEL),
        effective_model=attrs.get(sa.EFFECTIVE_MODEL),
        error_code=attrs.get(sa.ERROR_CODE),
        fallback_count=attrs.get(sa.FALLBACK_COUNT) or 0,
        message=message,
    )


async def run_view(client: Client, run_id: str) -> RunView:
    """The run's view, with the schedule that started it (the server's TemporalScheduledById), if one did."""
    handle = client.get_workflow_handle_for(OfficeRunWorkflow.run, run_id)
    desc = await handle.describe()
    view = await _view_of(handle, desc)
    view.schedule_id = desc.typed_search_attributes.get(SCHEDULED_BY) or view.schedule_id
    if view.status is RunStatus.queued and view.queue is None:  # asked at submission: in its start delay
        view.queue = asleep_in_queue(desc, view.workspace)
    if view.status is RunStatus.queued and view.queue is not None:  # its place, as its gate has it now
        view.queue.position = await queue_position(client, view.queue.gate, run_id)
    return view


async def _view_of(handle: RunHandle, desc: WorkflowExecutionDescription) -> RunView:
    run_id, attrs = handle.id, desc.typed_search_attributes
    if desc.status == Status.RUNNING:
        try:
            view = await handle.query(OfficeRunWorkflow.status)
        except Exception:
            view = None
        if view is None:
            status = RunStatus(attrs.get(sa.STATUS) or RunStatus.running.value)
            return _from_search_attributes(run_id, attrs, status)
        return view
    if desc.status == Status.COMPLETED:
        return await handle.result()
    if desc.status == Status.FAILED:
        try:
            await handle.result()
        except WorkflowFailureError as err:
            view = _from_failure(err)
            if view is not None:
                return view
            return _from_search_attributes(run_id, attrs, RunStatus.failed, str(err.cause or err))
    if desc.status == Status.CANCELED:
        return _from_search_attributes(run_id, attrs, RunStatus.cancelled, "cancelled by the user")
    ended = desc.status.name.lower() if desc.status is not None else "ended"
    return _from_search_attributes(run_id, attrs, RunStatus.failed, f"workflow {ended}")


def asleep_in_queue(desc: WorkflowExecutionDescription, workspace: str) -> QueueView:
    """What a run asked for at submission shows while it sleeps in its start delay (no task has run, so no query
    answers): its workspace's gate, its class (from its Temporal priority), queued since its start."""
    key = desc.raw_description.workflow_execution_info.priority.priority_key
    priority = next((p for p, k in PRIORITY_KEY.items() if k == key), RunPriority.default)
    return QueueView(gate=gate_id(ScopeKind.workspace, workspace), priority=priority, queued_at=desc.start_time)


async def queue_position(client: Client, gate: str, run_id: str) -> int | None:
    """A queued run's place in its gate's backlog (1: served next); None when the gate cannot say."""
    try:
        return await client.get_workflow_handle(gate).query(GateWorkflow.position, run_id)
    except Exception:  # a position is a courtesy: the run's view stands without it
        return None


async def wait_for_view(client: Client, run_id: str) -> RunView:
    handle = client.get_workflow_handle_for(OfficeRunWorkflow.run, run_id)
    try:
        return await handle.result()
    except WorkflowFailureError as err:
        view = _from_failure(err)
        if view is not None:
            return view
    return await run_view(client, run_id)  # cancelled, terminated, timed out: read what the server indexed


async def list_views(client: Client, limit: int = 50, query: str | None = None) -> list[RunView]:
    q = 'WorkflowType = "OfficeRunWorkflow"' + (f" AND ({query})" if query else "")
    ids = [wf.id async for wf in client.list_workflows(q, limit=limit)]
    return [await run_view(client, run_id) for run_id in ids]


class SayRefused(ValueError):
    """`say` was not accepted: the run ended, or the text cannot be sent. One line for the user."""


def ended_line(run_id: str, status: RunStatus) -> str:
    return f"run {run_id} has ended ({status.value}): it takes no more turns; submit a new run with `office submit`"


async def say(client: Client, run_id: str, text: str) -> SayAccepted:
    """Adds a turn to a live or idle run; returns once the run accepted it (not once it is answered)."""
    if problem := say_problem(text, waiting=[]) or text_problem(text):
        raise SayRefused(problem)
    handle = client.get_workflow_handle_for(OfficeRunWorkflow.run, run_id)
    try:
        return await handle.execute_update(OfficeRunWorkflow.say, Say(text=text))
    except WorkflowUpdateFailedError as err:  # the run's validator refused it
        raise SayRefused(f"run {run_id}: {err.cause.message if isinstance(err.cause, FailureError) else err}") from None
    except RPCError as err:
        if "already completed" not in err.message:  # e.g. no such run: the caller's NOT_FOUND handling
            raise
    view = await run_view(client, run_id)  # Temporal's "workflow execution already completed": which end
    raise SayRefused(ended_line(run_id, view.status if view.status in ENDED else RunStatus.completed))


class TurnText(BaseModel):
    turn: int  # 1 for the prompt
    said: str
    answer: str | None  # None: not answered (yet)


async def turn_texts(store: Store, run_id: str) -> list[TurnText]:
    """Every turn of the run, what was said and the whole answer, from the run's transcript in the store."""
    entries = await store.read_transcript(run_id, 2**31 - 1)  # every entry (seq is an int column)
    said = {e.seq: e.content for e in entries if e.role == "user" and e.seq % 2 == 1}
    answers = {e.seq: e.content for e in entries if e.role == "assistant" and e.seq % 2 == 0}
    return [TurnText(turn=seq // 2 + 1, said=text, answer=answers.get(seq + 1)) for seq, text in sorted(said.items())]
