"""Notifications a workspace asks for, pure: the `notify:` endpoints, the events, and the names a delivery is known
by (no I/O; safe in the workflow sandbox).

    notify:
      - url: https://hooks.example.com/office
        events: [completed, failed, parked]
        secret_env: OFFICE_CRED_WEBHOOK_SECRET

Each event of a run is delivered to every endpoint that lists it, as a Standard Webhook signed with the secret the
named variable holds on the worker. Workflow histories carry only event names and the endpoint's index: the URL and
the secret are read by the activity that posts, from the store and the worker's environment.
"""

import re
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator

from routing.validation import http_url_problem

ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
LABEL = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,62}$")


class NotifyEvent(StrEnum):
    completed = "completed"  # the run ended with every turn answered
    failed = "failed"  # the run ended failed (its code and actionable message are in the payload)
    parked = "parked"  # the run waits for a person (credentials, plan, a decision) or for provider capacity
    awaiting_permission = "awaiting_permission"  # the agent asks a person for a permission
    budget = "budget"  # the run reached its workspace's spending limit


EVENT_NAMES = ", ".join(e.value for e in NotifyEvent)


class NotifyEndpoint(BaseModel):
    """One webhook receiver. `secret_env` names a variable on the worker holding the Standard Webhooks signing
    secret (`whsec_…` or base64); it is never the secret itself."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    url: str
    """The receiver's http(s) URL. The worker POSTs each event to it as a Standard Webhook and follows no
    redirect; addresses of the worker's own machine and networks are refused unless the worker allows them
    (OFFICE_NOTIFY_ALLOW_PRIVATE=1)."""
    events: list[NotifyEvent] = Field(min_length=1)
    """The events delivered to this endpoint: completed, failed, parked, awaiting_permission, budget."""
    secret_env: str
    """The name of a variable on the worker holding the endpoint's signing secret (`whsec_…`, as Standard Webhooks
    receivers issue them): it signs the `webhook-signature` header. Admitted like credential_env
    (OFFICE_CRED_… names always; others through OFFICE_CREDENTIAL_ENV_ALLOW)."""
    name: str | None = None
    """A label for the endpoint in logs and records (default notify.<index>)."""
    include_prompt: bool = False
    """Put the run's prompt (its first message) into the payload as `prompt`. Off by default: payloads leave the
    office, and a prompt may hold what a receiver should not see."""
    max_attempts: int = Field(default=12, ge=1, le=50)
    """Deliveries tried per event before the endpoint is recorded dead for it (about 2.5 hours with the default
    first_retry_s); a run never waits for them."""
    first_retry_s: float = Field(default=5.0, gt=0, le=3600)
    """Seconds before the first retry; each later wait doubles, up to an hour."""

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        problem = http_url_problem(value, example="https://hooks.example.com/office")
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("events", mode="before")
    @classmethod
    def _events(cls, value: object) -> object:
        if isinstance(value, str):
            value = [value]
        if isinstance(value, list):
            unknown = [str(v) for v in value if str(v) not in NotifyEvent.__members__]
            if unknown:
                raise ValueError(f"{', '.join(unknown)} is not an event; use any of {EVENT_NAMES}")
            if len(set(value)) != len(value):
                raise ValueError("lists an event more than once")
        return value

    @field_validator("secret_env")
    @classmethod
    def _env_name(cls, value: str) -> str:
        if not ENV_NAME.match(value):
            raise ValueError(
                "must be the NAME of an environment variable on the worker (e.g. OFFICE_CRED_WEBHOOK_SECRET), "
                "never the secret itself"
            )
        return value

    @field_validator("name")
    @classmethod
    def _label(cls, value: str | None) -> str | None:
        if value is not None and not LABEL.match(value):
            raise ValueError("must be a short name (lowercase letters, digits, . _ -), e.g. team-slack")
        return value

    def label(self, index: int) -> str:
        return self.name or f"notify.{index}"


def subscribed(endpoints: list[NotifyEndpoint]) -> list[str]:
    """The events any endpoint lists, in the order of NotifyEvent."""
    wanted = {e for endpoint in endpoints for e in endpoint.events}
    return [e.value for e in NotifyEvent if e in wanted]


def targets(endpoints: list[NotifyEndpoint], event: str) -> list[int]:
    """The indexes of the endpoints that list `event`."""
    return [i for i, endpoint in enumerate(endpoints) if event in endpoint.events]


def message_id(execution: str, event: str, occurrence: int) -> str:
    """The `webhook-id` of a run's `occurrence`-th `event`: the same for every retry and every endpoint, so a
    receiver de-duplicates; `execution` (the run's first Temporal run id) tells a resubmitted run id apart."""
    return f"msg_{execution}_{event}_{occurrence}"


def notify_workflow_id(run_id: str, event: str, occurrence: int, execution: str) -> str:
    """The id of the workflow that delivers one event: found next to its run in the Temporal UI."""
    return f"{run_id}/notify/{event}-{occurrence}/{execution}"
