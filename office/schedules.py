"""Recurring runs on Temporal Schedules: each action starts a normal office run (OfficeRunWorkflow with a RunRequest
validated as `office submit` validates one). The request names no run id: Temporal appends the time to the
schedule's id for each run, and the run takes that workflow id as its run id (workflows/scheduled.py); the server
marks each run with the schedule's id (TemporalScheduledById), which `office runs list` shows.

A scheduled run's priority (`batch` by default) is kept in the run's and the schedule's memo: runs are not yet
scheduled by priority, so it is recorded for when they are, and changes nothing today."""

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

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
from contracts.queues import TASK_QUEUE
from office.run_input import SubmitError, validate_limits
from office.runs import validate_submission
from routing.run import RunRequest, RunStatus
from store.repository import Store
from workflows.office_run import OfficeRunWorkflow

Priority = Literal["interactive", "default", "batch"]
PRIORITIES: tuple[Priority, ...] = ("interactive", "default", "batch")
OVERLAP = {
    "skip": ScheduleOverlapPolicy.SKIP,
    "buffer-one": ScheduleOverlapPolicy.BUFFER_ONE,
    "buffer-all": ScheduleOverlapPolicy.BUFFER_ALL,
    "cancel-other": ScheduleOverlapPolicy.CANCEL_OTHER,
    "terminate-other": ScheduleOverlapPolicy.TERMINATE_OTHER,
    "allow-all": ScheduleOverlapPolicy.ALLOW_ALL,
}
# A schedule's runs are named NAME-<time>: the name leaves room for the time within a run id's 200 characters.
NAME_PATTERN = r"^[a-z0-9][a-z0-9_.-]{0,62}$"
CRON_FIELD = re.compile(r"^[0-9A-Za-z*/,?#-]+$")
INTERVAL = re.compile(r"^(\d+)(s|m|h|d)$")
UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}
WORKFLOW_TYPE = "OfficeRunWorkflow"


def validate_name(name: str) -> None:
    if not re.match(NAME_PATTERN, name):
        raise SubmitError(
            "name",
            f"{name!r} is not a schedule name: use 1-63 lowercase letters, digits and . _ - (e.g. nightly-tests)",
        )


def cron_problem(cron: str) -> str | None:
    """What is plainly wrong with a cron string, before the server checks the rest (None: nothing seen)."""
    text = cron.strip()
    if text.startswith("@"):  # @daily, @hourly, @every 10m, … (the server knows them)
        return None
    fields = text.split()
    if len(fields) not in (5, 6, 7) or not all(CRON_FIELD.match(f) for f in fields):
        return f'{cron!r} is not a cron expression: give five fields, minute hour day month weekday, e.g. "0 3 * * *"'
    return None


def parse_interval(text: str) -> timedelta:
    """`30s`, `15m`, `2h`, `1d` → the interval; SubmitError naming --interval otherwise."""
    found = INTERVAL.match(text.strip())
    if not found or int(found.group(1)) < 1:
        raise SubmitError("interval", f"{text!r} is not an interval: give a whole number and s, m, h or d, e.g. 30m")
    return timedelta(**{UNITS[found.group(2)]: int(found.group(1))})


def spec_text(cron: str | None, every: timedelta | None) -> str:
    return f"cron {cron}" if cron else f"every {int(every.total_seconds()) if every else 0}s"


@dataclass
class ScheduleRequest:
    """What `office schedule create` asks for."""

    name: str
    workspace: str
    agent: str
    prompt: str
    cron: str | None = None
    every: timedelta | None = None
    overlap: str = "skip"
    priority: Priority = "batch"
    tier: str | None = None
    max_cost_usd: float | None = None
    max_tokens: int | None = None
    task_queue: str = TASK_QUEUE

    def check_offline(self) -> None:
        """What needs neither Temporal nor the store: the name, the spec, the policies and the budget."""
        validate_name(self.name)
        if (self.cron is None) == (self.every is None):
            raise SubmitError("cron", 'give exactly one of --cron "0 3 * * *" or --interval 1h')
        if self.cron is not None and (problem := cron_problem(self.cron)):
            raise SubmitError("cron", problem)
        if self.overlap not in OVERLAP:
            raise SubmitError("overlap", f"{self.overlap!r} is not a policy; use one of {', '.join(OVERLAP)}")
        if self.priority not in PRIORITIES:
            raise SubmitError("priority", f"{self.priority!r} is not a priority; use one of {', '.join(PRIORITIES)}")
        validate_limits(self.max_cost_usd, self.max_tokens)


async def create_schedule(client: Client, store: Store, req: ScheduleRequest) -> ScheduleHandle:
    """Validates like `office submit` (the workspace, agent, tier and prompt) and creates the schedule."""
    req.check_offline()
    model = await validate_submission(store, req.workspace, req.agent, req.prompt, tier=req.tier)
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
