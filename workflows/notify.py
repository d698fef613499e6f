"""A run's notifications: each event the workspace's webhooks want starts a workflow of its own that delivers it.

The run only starts that workflow (a child it abandons: it outlives the run and never reports back into its
result), so a receiver that is slow, down or dead never delays or fails the run. The delivery workflow asks an
activity which endpoints want the event, posts to each with Temporal's retries (bounded per endpoint:
`max_attempts`, and a day in all), and fails naming the endpoints that never took it, so a dead endpoint shows in
the Temporal UI and the worker's log and is never retried forever. A worker that stops mid-delivery loses
nothing: the workflow and its retries live on the server.

    await self._notify(NotifyEvent.parked)     # from the run, where its status changes
"""

import asyncio
from collections.abc import Callable
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError, WorkflowAlreadyStartedError

with workflow.unsafe.imports_passed_through():
    from contracts import stubs
    from contracts.failures import FOREIGN_CALL_REFUSED
    from contracts.notify import (
        NOTIFY_SETTING,
        NOTIFY_UNDELIVERED,
        NOTIFY_WORKFLOW,
        DeliveryOutcome,
        NotifyDelivery,
        NotifyRequest,
        NotifyResult,
        NotifyTarget,
    )
    from routing.notify import NotifyEvent, message_id, notify_workflow_id
    from routing.run import RunView

# Runs recorded before notifications started no delivery workflows; asked only when an event has a subscriber.
NOTIFY = "notify-webhooks-v1"
READ_RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_interval=timedelta(seconds=30))
ATTEMPT_TIMEOUT = timedelta(seconds=30)  # one POST (the client's own timeout is shorter)
GIVE_UP_AFTER = timedelta(days=1)  # whatever an endpoint's retry settings say
LONGEST_WAIT = timedelta(hours=1)  # between two attempts at one endpoint


class Notifier:
    """The run's side: which events the workspace wants (from its route plan) and how many of each it sent."""

    def __init__(self, view: Callable[[], RunView]) -> None:
        self._view = view
        self.events: list[str] = []  # the workspace's subscriptions, as its last route resolution read them
        self.sent: dict[str, int] = {}  # per event: a run continued as new carries this and `events` along

    async def __call__(self, event: NotifyEvent) -> None:
        """Starts the event's delivery, if any endpoint wants it, and returns once the server has it."""
        if event.value not in self.events or not workflow.patched(NOTIFY):
            return
        view, info = self._view(), workflow.info()
        occurrence = self.sent[event.value] = self.sent.get(event.value, 0) + 1
        execution = info.first_execution_run_id  # the same across continue-as-new; new for a resubmitted run id
        req = NotifyRequest(
            run_id=view.run_id,
            workspace=view.workspace,
            agent=view.agent,
            event=event.value,
            occurrence=occurrence,
            message_id=message_id(execution, event.value, occurrence),
            at=workflow.now(),
            status=view.status.value,
            message=view.message,
            error_code=view.error_code,
            park_reason=view.park_reason.value if view.park_reason else None,
        )
        try:
            handle = await workflow.start_child_workflow(
                NotifyWorkflow.run,
                req,
                id=notify_workflow_id(view.run_id, event.value, occurrence, execution),
                task_queue=info.task_queue,
                parent_close_policy=workflow.ParentClosePolicy.ABANDON,
                static_summary=f"notify: {event.value}",
            )
        except WorkflowAlreadyStartedError:  # started before this run's history was reset: it delivers already
            return
        handle.add_done_callback(_outcome_seen)  # the run never waits for it; its failure is the delivery's record


def _outcome_seen(task: "asyncio.Task[NotifyResult]") -> None:
    if not task.cancelled():
        task.exception()


@workflow.defn(name=NOTIFY_WORKFLOW)
class NotifyWorkflow:
    @workflow.run
    async def run(self, req: NotifyRequest) -> NotifyResult:
        targets = await workflow.execute_activity(
            stubs.notify_targets,
            req,
            start_to_close_timeout=ATTEMPT_TIMEOUT,
            schedule_to_close_timeout=GIVE_UP_AFTER,
            retry_policy=READ_RETRY,
        )
        outcomes = await asyncio.gather(*(self._deliver(req, t) for t in targets))
        result = NotifyResult(event=req.event, deliveries=list(outcomes))
        dead = [o for o in outcomes if o.state == "dead"]
        if dead:
            said = "; ".join(f"{o.label}: {o.detail}" for o in dead)
            raise ApplicationError(
                f"run {req.run_id}'s {req.event} event was not delivered ({said}); not retried again",
                result.model_dump(mode="json"),
                type=NOTIFY_UNDELIVERED,
                non_retryable=True,
            )
        return result

    async def _deliver(self, req: NotifyRequest, target: NotifyTarget) -> DeliveryOutcome:
        retry = RetryPolicy(
            initial_interval=timedelta(seconds=target.first_retry_s),
            backoff_coefficient=2.0,
            maximum_interval=max(LONGEST_WAIT, timedelta(seconds=target.first_retry_s)),
            maximum_attempts=target.max_attempts,
            non_retryable_error_types=[NOTIFY_SETTING, FOREIGN_CALL_REFUSED],
        )
        try:
            return await workflow.execute_activity(
                stubs.deliver_notification,
                NotifyDelivery(request=req, target=target),
                start_to_close_timeout=ATTEMPT_TIMEOUT,
                schedule_to_close_timeout=GIVE_UP_AFTER,
                retry_policy=retry,
                summary=f"POST {req.event} to {target.label}",
            )
        except ActivityError as err:
            cause = err.cause
            detail = cause.message if isinstance(cause, ApplicationError) else str(cause or err)
            workflow.logger.warning(
                "notify: endpoint %s did not take run %s's %s event (%s); recorded as dead for it, not retried",
                target.label,
                req.run_id,
                req.event,
                detail,
            )
            return DeliveryOutcome(label=target.label, state="dead", detail=detail)
