"""`office runs explain`: three timelines for one run.
1. live: what the run selected at each step and why (workflow history + attempts),
2. durable: what durable state changed while it ran (provider health it wrote, preference changes),
3. cleanup: what the watchdog touched (audit records naming this run, or made during it)."""

from collections.abc import Callable
from datetime import datetime
from typing import Any

from rich.markup import escape
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


# --- the report as readable lines (`office runs explain` without --json) ----------------------------------------
def _time(at: str | None) -> str:
    """An ISO time as `2026-12-02 06:12:52` (UTC), or `-`."""
    if not at:
        return "-"
    try:
        return datetime.fromisoformat(at.replace("Z", "+00:00")).strftime("%Y-%m-%d %H:%M:%S")
    except ValueError:
        return at


def _text(value: Any) -> str:
    """A value as words: lists joined with commas, mappings as `key=value`, nothing for None."""
    if value is None:
        return ""
    if isinstance(value, dict):
        return " ".join(f"{k}={_text(v)}" for k, v in value.items() if v not in (None, "", [], {}))
    if isinstance(value, list | tuple):
        return ",".join(_text(v) for v in value)
    return str(value)


# History event types as the timeline names them (others: their type's words).
_EVENT_NAMES = {
    "activity_task_scheduled": "activity scheduled",
    "activity_task_completed": "activity completed",
    "activity_task_failed": "activity failed",
    "activity_task_timed_out": "activity timed out",
    "workflow_execution_signaled": "signal",
    "workflow_execution_update_accepted": "update accepted",
    "upsert_workflow_search_attributes": "search attributes",
    "workflow_execution_completed": "run completed",
    "workflow_execution_failed": "run failed",
    "workflow_execution_canceled": "run cancelled",
}


def _line(at: str | None, kind: str, what: str) -> str:
    return escape(f"  {_time(at)}  {kind:<18}  {what}".rstrip())


def _history_what(step: dict[str, Any]) -> str:
    if "activity" in step:
        return f"{step['activity']}" + (f": {step['summary']}" if step.get("summary") else "")
    if "seconds" in step:
        return f"{step['seconds']:g} s" + (f": {step['summary']}" if step.get("summary") else "")
    if "failure" in step:
        return str(step["failure"])
    if "signal" in step:
        return str(step["signal"])
    if "update" in step:
        args = " ".join(_text(a) for a in step.get("args") or [])
        return f"{step['update']}" + (f" {args}" if args else "")
    if "search_attributes" in step:
        return _text(step["search_attributes"])
    return ""


def _durable_what(d: dict[str, Any]) -> str:
    if d.get("kind") == "provider_health":
        scope = d["provider"] + (f" model {d['model']}" if d.get("model") else "")
        retry = f", retry at {_time(d['retry_at'])}" if d.get("retry_at") else ""
        code = f" ({d['code']})" if d.get("code") else ""
        run = f", by run {d['run_id']}" if d.get("run_id") else ""
        return f"{scope} -> {d['state']}{code}{retry}{run}"
    return (
        f"{d.get('action', 'set')} {d['selection']}={_text(d['value'])} for agent {d['agent']} by {d['actor']} "
        f"(source {d['source']}): {d.get('reason') or ''}"
    ).rstrip(": ")


def _cleanup_what(c: dict[str, Any]) -> str:
    by = f", written by run {c['written_by_run']}" if c.get("written_by_run") else ""
    return (
        f"cleared {c['selection']}={_text(c['value'])} for agent {c['agent']} (source {c['source']}{by}) by "
        f"{c['actor']}: {c.get('reason') or ''}"
    ).rstrip(": ")


def timeline_lines(report: dict[str, Any]) -> list[str]:
    """The three timelines, one `time  kind  what` line per event (rich markup only in the headings)."""
    lines = ["[bold]1. live run: what it selected and why[/]"]
    for a in report["selected"]:
        failed = f" [{a['error_code']}] {a['decision']}: {a['reason']}" if a["error_code"] else ""
        lines.append(
            escape(
                f"  attempt {a['seq']}: {a['provider']} model={a['model'] or a['requested_model']} "
                f"source={a['source']} → {a['outcome']}{failed}"
            )
        )
    lines += [
        _line(s["at"], _EVENT_NAMES.get(s["event"], s["event"].replace("_", " ")), _history_what(s))
        for s in report["live"]
    ]
    lines.append("[bold]2. durable state changed during the run[/]")
    lines += [_line(d["at"], d["kind"].replace("_", " "), _durable_what(d)) for d in report["durable"]] or ["  (none)"]
    lines.append("[bold]3. cleanup[/]")
    lines += [_line(c["at"], "watchdog", _cleanup_what(c)) for c in report["cleanup"]] or ["  (none)"]
    return lines
