"""Installs (or updates) the Temporal Schedule that runs the watchdog."""

from datetime import timedelta

from temporalio.client import (
    Client,
    Schedule,
    ScheduleActionStartWorkflow,
    ScheduleAlreadyRunningError,
    ScheduleIntervalSpec,
    ScheduleOverlapPolicy,
    SchedulePolicy,
    ScheduleSpec,
    ScheduleUpdate,
    ScheduleUpdateInput,
)

from contracts.queues import TASK_QUEUE
from contracts.watchdog import SCHEDULE_ID, WatchdogInput
from workflows.watchdog import WatchdogWorkflow


def watchdog_schedule(every: timedelta, max_age: timedelta, task_queue: str) -> Schedule:
    return Schedule(
        action=ScheduleActionStartWorkflow(
            WatchdogWorkflow.run,
            WatchdogInput(max_age_s=max_age.total_seconds()),
            id=f"{SCHEDULE_ID}-run",
            task_queue=task_queue,
            static_summary="watchdog: clear stale automatic selection state",
        ),
        spec=ScheduleSpec(intervals=[ScheduleIntervalSpec(every=every)]),
        policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP),
    )


async def install_watchdog(
    client: Client,
    every: timedelta = timedelta(minutes=10),
    max_age: timedelta = timedelta(hours=1),
    task_queue: str = TASK_QUEUE,
) -> None:
    schedule = watchdog_schedule(every, max_age, task_queue)
    try:
        await client.create_schedule(SCHEDULE_ID, schedule)
    except ScheduleAlreadyRunningError:

        async def replace(_: ScheduleUpdateInput) -> ScheduleUpdate:
            return ScheduleUpdate(schedule=schedule)

        await client.get_schedule_handle(SCHEDULE_ID).update(replace)
