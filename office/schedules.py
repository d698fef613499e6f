"""Recurring runs on Temporal Schedules: each action starts a normal office run (OfficeRunWorkflow with a RunRequest
validated as `office submit` validates one). The request names no run id: Temporal appends the time to the
schedule's id for each run, and the run takes that workflow id as its run id (workflows/scheduled.py); the server
marks each run with the schedule's id (TemporalScheduledById), which `office runs list` shows.

A scheduled run's priority (`batch` by default) is kept in the run's and the schedule's memo: runs are not yet
scheduled by priority, so it is recorded for when they are, and changes nothing today."""

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from temporalio.client import (
    Client,
    Schedule,
    ScheduleActionStartWorkflow,
    ScheduleAlreadyRunningError,
    ScheduleHandle,
    ScheduleIntervalSpec,
    ScheduleListActionStartWorkflow,
    ScheduleOverlapPolicy,
    SchedulePolicy,
    ScheduleSpec,
    ScheduleState,
)
from temporalio.common import SearchAttributePair, TypedSearchAttributes
from temporalio.service import RPCError, RPCStatusCode

from contracts import search_attributes as sa
from office.run_input import SubmitError
from office.runs import validate_submission
from office.schedule_request import OVERLAP_POLICIES, ScheduleRequest
from routing.run import RunRequest, RunStatus
from store.repository import Store
from workflows.office_run import OfficeRunWorkflow

OVERLAP = {name: ScheduleOverlapPolicy[name.upper().replace("-", "_")] for name in OVERLAP_POLICIES}
WORKFLOW_TYPE = "OfficeRunWorkflow"


def spec_text(cron: str | None, every: timedelta | None) -> str:
    return f"cron {cron}" if cron else f"every {int(every.total_seconds()) if every else 0}s"


async def create_schedule(client: Client, store: Store, req: ScheduleRequest) -> ScheduleHandle:
    """Validates like `office submit` (the workspace, agent, tier and prompt) and creates the schedule."""
    req.check_offline()
    model = (await validate_submission(store, req.workspace, req.agent, req.prompt, tier=req.tier)).model
    run = RunRequest(workspace=req.workspace, agent=req.agent, prompt=req.prompt.strip(), tier=req.tier,
                     max_cost_usd=req.max_cost_usd, max_tokens=req.max_tokens)  # fmt: skip
    memo = {"priority": req.priority, "schedule": req.name}
    first_line = req.prompt.strip().splitlines()[0][:60]
    action = ScheduleActionStartWorkflow(
        OfficeRunWorkflow.run,
        run,
        id=req.name,  # Temporal appends the time: each run's id is NAME-<time>
        task_queue=req.task_queue,
        run_timeout=timedelta(days=7),
        memo=memo,
        static_summary=f"{req.agent} in {req.workspace} (schedule {req.name}): {first_line}",
        typed_search_attributes=TypedSearchAttributes(
            [
                SearchAttributePair(sa.STATUS, RunStatus.running.value),
                SearchAttributePair(sa.WORKSPACE, req.workspace),
                SearchAttributePair(sa.AGENT, req.agent),
                SearchAttributePair(sa.REQUESTED_MODEL, model),
                SearchAttributePair(sa.FALLBACK_COUNT, 0),
            ]
        ),
    )
    spec = (
        ScheduleSpec(cron_expressions=[req.cron])
        if req.cron is not None
        else ScheduleSpec(intervals=[ScheduleIntervalSpec(every=req.every or timedelta(hours=1))])
    )
    schedule = Schedule(
        action=action,
        spec=spec,
        policy=SchedulePolicy(overlap=OVERLAP[req.overlap]),
        state=ScheduleState(note=f"office runs of {req.agent} in {req.workspace}"),
    )
    details = {**memo, "workspace": req.workspace, "agent": req.agent, "spec": spec_text(req.cron, req.every),
               "overlap": req.overlap}  # fmt: skip
    try:
        return await client.create_schedule(req.name, schedule, memo=details)
    except ScheduleAlreadyRunningError:
        raise SubmitError(
            "name",
            f"schedule {req.name!r} exists already; delete it (`office schedule delete {req.name}`) or pick another",
        ) from None
    except RPCError as err:
        if err.status == RPCStatusCode.INVALID_ARGUMENT:
            field_name = "cron" if req.cron is not None else "interval"
            raise SubmitError(field_name, f"the server refused it: {err.message}") from None
        raise


@dataclass
class ScheduleSummary:
    name: str
    workspace: str | None
    agent: str | None
    spec: str | None
    priority: str | None
    overlap: str | None
    paused: bool
    note: str | None
    next_runs: list[datetime] = field(default_factory=list)
    recent_runs: list[str] = field(default_factory=list)  # workflow ids of the latest runs it started

    def as_json(self) -> dict[str, Any]:
        return {**self.__dict__, "next_runs": [t.isoformat() for t in self.next_runs]}


async def list_schedules(client: Client) -> list[ScheduleSummary]:
    """The office run schedules (other schedules on the namespace, such as the watchdog's, are left out)."""
    found: list[ScheduleSummary] = []
    async for entry in await client.list_schedules():
        action = entry.schedule.action if entry.schedule else None
        if not isinstance(action, ScheduleListActionStartWorkflow) or action.workflow != WORKFLOW_TYPE:
            continue
        memo = await entry.memo()
        state = entry.schedule.state if entry.schedule else None
        found.append(
            ScheduleSummary(
                name=entry.id,
                workspace=memo.get("workspace"),
                agent=memo.get("agent"),
                spec=memo.get("spec"),
                priority=memo.get("priority"),
                overlap=memo.get("overlap"),
                paused=bool(state and state.paused),
                note=state.note if state else None,
                next_runs=list(entry.info.next_action_times[:3]) if entry.info else [],
                recent_runs=[
                    a.action.workflow_id
                    for a in (entry.info.recent_actions if entry.info else [])
                    if hasattr(a.action, "workflow_id")
                ][-3:],
            )
        )
    return sorted(found, key=lambda s: s.name)


async def office_schedule(client: Client, name: str) -> ScheduleHandle:
    """The handle of office run schedule `name`; SubmitError naming it when there is none."""
    handle = client.get_schedule_handle(name)
    try:
        described = await handle.describe()
    except RPCError as err:
        if err.status == RPCStatusCode.NOT_FOUND:
            raise SubmitError("name", f"there is no schedule {name!r}; see `office schedule list`") from None
        raise
    action = described.schedule.action
    if not isinstance(action, ScheduleActionStartWorkflow) or action.workflow != WORKFLOW_TYPE:
        raise SubmitError("name", f"schedule {name!r} does not start office runs; `office` leaves it alone")
    return handle
