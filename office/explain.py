"""`office runs explain`: three timelines for one run.
1. live: what the run selected at each step and why (workflow history + attempts),
2. durable: what durable state changed while it ran (provider health it wrote, preference changes),
3. cleanup: what the watchdog touched (audit records naming this run, or made during it)."""

from collections.abc import Callable
from datetime import datetime
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from office.runs import run_view
from store.repository import Store, as_utc


def _decode(client: Client, payload: Any) -> Any:
    try:
        return client.data_converter.payload_converter.from_payload(payload)
    except Exception:
        return None


def _summary(client: Client, event: Any) -> str | None:
    if event.HasField("user_metadata") and event.user_metadata.HasField("summary"):
        summary: str | None = _decode(client, event.user_metadata.summary)
        return summary
    return None


def _history_step(client: Client, event: Any) -> dict[str, Any] | None:
    kind = EventType.Name(event.event_type).removeprefix("EVENT_TYPE_").lower()
    at = event.event_time.ToDatetime().isoformat() + "Z"
    details: dict[int, Callable[[], dict[str, Any]]] = {
        EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED: lambda: {
            "activity": event.activity_task_scheduled_event_attributes.activity_type.name,
            "summary": _summary(client, event),
        },
        EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED: lambda: {
            "failure": event.activity_task_failed_event_attributes.failure.message
        },
        EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT: lambda: {
            "failure": event.activity_task_timed_out_event_attributes.failure.message
        },
        EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED: lambda: {},
        EventType.EVENT_TYPE_TIMER_STARTED: lambda: {
            "seconds": event.timer_started_event_attributes.start_to_fire_timeout.ToTimedelta().total_seconds(),
            "summary": _summary(client, event),
        },
        EventType.EVENT_TYPE_TIMER_FIRED: lambda: {},
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED: lambda: {
            "signal": event.workflow_execution_signaled_event_attributes.signal_name
        },
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED: lambda: {
            "update": event.workflow_execution_update_accepted_event_attributes.accepted_request.input.name,
            "args": [
                _decode(client, p)
                for p in event.workflow_execution_update_accepted_event_attributes.accepted_request.input.args.payloads
            ],
        },
        EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES: lambda: {
            "search_attributes": {
                k: _decode(client, v)
                for k, v in event.upsert_workflow_search_attributes_event_attributes.search_attributes.indexed_fields.items()  # noqa: E501
            }
        },
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED: lambda: {},
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED: lambda: {
            "failure": event.workflow_execution_failed_event_attributes.failure.message
        },
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED: lambda: {},
    }
    attrs = details.get(event.event_type)
    if attrs is None:
        return None
    return {"at": at, "event": kind, **{k: v for k, v in attrs().items() if v is not None}}


def _iso(value: datetime | None) -> str | None:
    value = as_utc(value)
    return value.isoformat() if value else None


async def explain_run(client: Client, store: Store, run_id: str) -> dict[str, Any]:
    view = await run_view(client, run_id)
    handle = client.get_workflow_handle(run_id)
    desc = await handle.describe()
    started, closed = desc.start_time, desc.close_time
    history = await handle.fetch_history()
    live = [step for event in history.events if (step := _history_step(client, event))]
    health = await store.health_events(run_id=run_id)
    prefs = await store.selection_events(since=started, until=closed)
    cleanup = [
        e
        for e in await store.selection_events()
        if e.actor.startswith("watchdog")
        and (e.written_by_run == run_id or (started <= as_utc(e.at) and (closed is None or as_utc(e.at) <= closed)))
    ]
    return {
        "run": view.model_dump(mode="json"),
        "selected": [
            a.model_dump(
                mode="json",
                include={
                    "seq",
                    "provider",
                    "model",
                    "requested_model",
                    "source",
                    "outcome",
                    "error_code",
                    "catalogue",
                    "decision",
                    "reason",
                },
            )
            for a in view.attempts
        ],
        "live": live,
        "durable": (
            [
                {
                    "at": _iso(h.at),
                    "kind": "provider_health",
                    "provider": h.provider,
                    "model": h.model or None,
                    "state": h.state,
                    "retry_at": _iso(h.retry_at),
                    "code": h.code,
                    "run_id": h.run_id,
                }
                for h in health
            ]
            + [
                {
                    "at": _iso(e.at),
                    "kind": "preference",
                    "agent": e.agent,
                    "selection": e.kind,
                    "value": e.value,
                    "source": e.source,
                    "action": e.action,
                    "actor": e.actor,
                    "reason": e.reason,
                }
                for e in prefs
                if not e.actor.startswith("watchdog")
            ]
        ),
        "cleanup": [
            {
                "at": _iso(e.at),
                "agent": e.agent,
                "selection": e.kind,
                "value": e.value,
                "source": e.source,
                "actor": e.actor,
                "written_by_run": e.written_by_run,
                "reason": e.reason,
            }
            for e in cleanup
        ],
    }
