"""Rows <-> the pure domain: a provider key's health row as routing.capacity's state and back, its audit
event, and the turn opening both store paths (SQLAlchemy, and asyncpg in store.turn_path) write."""

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, overload

from routing.capacity import CapacityState, ProbeLease, Window
from routing.decider import HealthState
from store.columns import table_of
from store.tables import HealthEventRow, ProviderHealthRow


def utcnow() -> datetime:
    return datetime.now(UTC)


@overload
def as_utc(value: datetime) -> datetime: ...
@overload
def as_utc(value: None) -> None: ...
@overload
def as_utc(value: datetime | None) -> datetime | None: ...
def as_utc(value: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes; everything here is UTC."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=UTC)


@dataclass(frozen=True)
class TurnOpening:
    """A turn's user message, appended (idempotently) when its call is admitted."""

    run_id: str
    user_seq: int
    text: str


@dataclass(frozen=True)
class TurnClose:
    """A turn's answer and its succeeded attempt row, written together (Store.close_turn)."""

    run_id: str
    seq: int  # the answer's transcript entry
    answer: str
    provider: str
    attempt: dict[str, Any]  # the attempt row's columns
    effective_model: str | None


@dataclass(frozen=True)
class Closed:
    """A closed turn: whether its attempt row is new (count it once), and the answer the transcript holds for
    the turn (this attempt's, or a lost attempt's that got in first: the run returns that one)."""

    inserted: bool
    answer: str


# --- provider health rows <-> the pure capacity state ---------------------------------------------------
def capacity_of(row: ProviderHealthRow) -> CapacityState:
    """The row as routing.capacity's state (SQLite loads datetimes naive: they are UTC)."""
    probe = (
        ProbeLease(holder=row.probe_holder, expires=as_utc(row.probe_expires) or datetime.min.replace(tzinfo=UTC))
        if row.probe_holder is not None
        else None
    )
    return CapacityState(
        health=HealthState(row.state),
        retry_at=as_utc(row.retry_at),
        backoff_step=row.backoff_step,
        failure_streak=row.failure_streak,
        probe=probe,
        window=Window(
            start=as_utc(row.window_start),
            requests=row.window_requests,
            retries=row.window_retries,
            failures=row.window_failures,
            limited=row.window_limited,
        ),
        next_slot_at=as_utc(row.next_slot_at),
        learned_rpm=row.learned_rpm,
        learned_at=as_utc(row.learned_at),
        rate_stated=bool(row.rate_stated),
        limited_at=as_utc(row.limited_at),
        last_code=row.last_code,
        last_run_id=row.last_run_id,
        changed_at=as_utc(row.updated_at),
    )


# The provider scope's identity (the primary key) and its display name; every other column is capacity state,
# which `capacity_of` reads and `capacity_values` writes (tests/store/test_columns.py holds them to the table).
HEALTH_IDENTITY = ("provider_key", "model", "provider")
CAPACITY_COLUMNS: tuple[str, ...] = tuple(
    column.name for column in table_of(ProviderHealthRow).columns if column.name not in HEALTH_IDENTITY
)


def capacity_values(row: ProviderHealthRow, state: CapacityState) -> dict[str, Any]:
    """The state as the row's capacity columns (`CAPACITY_COLUMNS`)."""
    return {
        "state": state.health.value,
        "retry_at": state.retry_at,
        "backoff_step": state.backoff_step,
        "failure_streak": state.failure_streak,
        "probe_holder": state.probe.holder if state.probe else None,
        "probe_expires": state.probe.expires if state.probe else None,
        "window_start": state.window.start,
        "window_requests": state.window.requests,
        "window_retries": state.window.retries,
        "window_failures": state.window.failures,
        "window_limited": state.window.limited,
        "next_slot_at": state.next_slot_at,
        "learned_rpm": state.learned_rpm,
        "learned_at": state.learned_at,
        "rate_stated": state.rate_stated,
        "limited_at": state.limited_at,
        "last_code": state.last_code,
        "last_run_id": state.last_run_id,
        "updated_at": state.changed_at or row.updated_at,
    }


def save_capacity(row: ProviderHealthRow, state: CapacityState) -> None:
    """Writes the state back; only columns whose value changed end up in the UPDATE."""
    for column, value in capacity_values(row, state).items():
        current = getattr(row, column)
        if isinstance(current, datetime):
            current = as_utc(current)
        if current != value:
            setattr(row, column, value)


def health_event(row: ProviderHealthRow, now: datetime, code: str | None) -> HealthEventRow:
    """The append-only record of a health write, in the same transaction as the write."""
    return HealthEventRow(
        provider=row.provider,
        provider_key=row.provider_key,
        model=row.model,
        state=row.state,
        retry_at=row.retry_at,
        code=code,
        run_id=row.last_run_id,
        at=now,
    )
