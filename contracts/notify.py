"""What a run's notification workflow and its activities exchange (no URLs, no secrets: the activities read the
endpoint from the store by its index in the workspace, and its secret from the worker's environment)."""

from datetime import datetime
from typing import Literal

from pydantic import BaseModel

NOTIFY_WORKFLOW = "NotifyWorkflow"
NOTIFY_UNDELIVERED = "NotificationUndelivered"  # the notification workflow's failure: an endpoint is dead for it
NOTIFY_SETTING = "NotifySetting"  # non-retryable: the endpoint cannot be posted to as configured (named setting)


class NotifyRequest(BaseModel):
    """One event of one run, as the run's own workflow saw it."""

    run_id: str
    workspace: str
    agent: str
    event: str
    occurrence: int  # the run's n-th event of this kind (a run may park more than once)
    message_id: str  # the `webhook-id`: the same for every endpoint and every retry
    at: datetime  # when the event happened (the payload's timestamp: the same for every retry)
    status: str
    message: str | None = None
    error_code: str | None = None
    park_reason: str | None = None  # a parked run's: what it waits for (`unreadable_failure`: a person's decision)


class NotifyTarget(BaseModel):
    """An endpoint that wants the event: its index in the workspace's `notify` list and how it is retried."""

    index: int
    label: str
    max_attempts: int
    first_retry_s: float


class NotifyDelivery(BaseModel):
    request: NotifyRequest
    target: NotifyTarget


class DeliveryOutcome(BaseModel):
    label: str
    # skipped: the endpoint was removed or no longer wants the event; dead: it never took it, not retried again
    state: Literal["delivered", "skipped", "dead"]
    detail: str  # "HTTP 204"; or why the endpoint is dead for this event (status code or error, never a body)


class NotifyResult(BaseModel):
    event: str
    deliveries: list[DeliveryOutcome]
