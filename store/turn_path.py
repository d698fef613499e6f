"""A run's per-turn statements on PostgreSQL, through asyncpg itself.

Every run reads its configuration at submit and at route resolution, and every turn is admitted (opening the
turn) and closed (answer, attempt row, restored health). Through SQLAlchemy these were 17 round trips at
~0.5 ms of worker CPU each, a third of the worker's CPU per run; here they are 10, at ~0.17 ms. The statements,
transactions and row locks are those of the SQLAlchemy path in store.repository, which SQLite (the embedded
default) keeps using; the store suite runs both. Writes stay idempotent by primary key."""

import json
from datetime import datetime
from typing import Any

import asyncpg

from routing.capacity import Admission, CallRequest, CallSucceeded, CapacityPolicy, admit, step
from routing.config import AgentProfile, WorkspaceConfig
from routing.decider import HealthState
from routing.route import HealthRecord
from routing.selection import Pins, SelectionKind, SelectionSource
from store.rows import TurnOpening, capacity_of, health_event, save_capacity
from store.tables import HealthEventRow, ProviderHealthRow, TranscriptEntryRow

CONFIGS = """
SELECT (SELECT config FROM workspaces WHERE name = $1) AS workspace,
       (SELECT json_build_object('name', name, 'model', model, 'fallback_model', fallback_model,
                                 'auto_fallback', auto_fallback, 'pinned_providers', pinned_providers)
          FROM agent_profiles WHERE name = $2) AS agent,
       (SELECT json_agg(json_build_object('kind', kind, 'value', value)) FROM selections
         WHERE $3 AND agent = $2 AND source = $4) AS pins
"""
HEALTH = (
    "SELECT provider, provider_key, model, state, retry_at, last_code FROM provider_health "
    "WHERE provider_key = ANY($1::varchar[])"
)
# Columns by name, not `*`: a column added online would void asyncpg's cached statements (0A000) mid-run.
HEALTH_ROW = ", ".join(column.name for column in ProviderHealthRow.__table__.columns)  # type: ignore[attr-defined]
LOCK_HEALTH = f"SELECT {HEALTH_ROW} FROM provider_health WHERE provider_key = $1 AND model = '' FOR UPDATE"
CREATE_HEALTH = (  # healthy, with the table's defaults (SQLAlchemy applies them client-side)
    "INSERT INTO provider_health (provider_key, model, provider, state, updated_at, backoff_step, failure_streak, "
    "window_requests, window_retries, window_failures, window_limited, rate_stated) "
    "VALUES ($1, '', $2, $3, $4, 0, 0, 0, 0, 0, 0, false) ON CONFLICT DO NOTHING"
)
CAPACITY_COLUMNS = (
    "state", "retry_at", "backoff_step", "failure_streak", "probe_holder", "probe_expires", "window_start",
    "window_requests", "window_retries", "window_failures", "window_limited", "next_slot_at", "learned_rpm",
    "learned_at", "rate_stated", "limited_at", "last_code", "last_run_id", "updated_at",
)  # fmt: skip
SAVE_HEALTH = (
    "UPDATE provider_health SET "
    + ", ".join(f"{c} = ${i + 3}" for i, c in enumerate(CAPACITY_COLUMNS))
    + " WHERE provider_key = $1 AND model = $2"
)
# The user's message (if absent) and the run's snapshot before it: the inserted row is not visible to the
# statement that inserts it, so the caller appends the message unless the snapshot already ends with it.
OPEN_TURN = """
WITH opened AS (
    INSERT INTO transcript_entries (run_id, seq, role, content, provider, created_at)
    VALUES ($1, $2, 'user', $3, NULL, $4) ON CONFLICT DO NOTHING
)
SELECT run_id, seq, role, content, provider, created_at FROM transcript_entries
 WHERE run_id = $1 AND seq <= $2 ORDER BY seq
"""
ANSWER = (
    "INSERT INTO transcript_entries (run_id, seq, role, content, provider, created_at) "
    "VALUES ($1, $2, 'assistant', $3, $4, $5) ON CONFLICT DO NOTHING"
)
RESTORABLE = (  # store.repository.RESTORABLE, locked: read, step and written back with no other writer between
    f"SELECT {HEALTH_ROW} FROM provider_health WHERE provider_key = $1 AND model = ANY($2::varchar[]) "
    "AND (state <> $3 OR failure_streak > 0) FOR UPDATE"
)
HEALTH_EVENT = (
    "INSERT INTO health_events (provider, provider_key, model, state, retry_at, code, run_id, at) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
)


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


async def configs(
    conn: asyncpg.Connection, workspace: str, agent: str, with_pins: bool = False
) -> tuple[WorkspaceConfig | None, AgentProfile | None, Pins]:
    """The workspace, the agent profile and (`with_pins`) the user's pins, in one statement."""
    row = await conn.fetchrow(CONFIGS, workspace, agent, with_pins, SelectionSource.user.value)
    assert row is not None
    ws, profile = _json(row["workspace"]), _json(row["agent"])
    pins = Pins()
    for selection in _json(row["pins"]) or []:  # only source=user rows: anything else is not a preference
        value = _json(selection["value"])
        if selection["kind"] == SelectionKind.provider.value:
            pins.providers = list(value)
        elif selection["kind"] == SelectionKind.model.value and value:
            pins.model = value[0]
    return (
        WorkspaceConfig.model_validate(ws) if ws is not None else None,
        AgentProfile.model_validate(profile) if profile is not None else None,
        pins,
    )


async def health(conn: asyncpg.Connection, keys: set[str]) -> list[HealthRecord]:
    rows = await conn.fetch(HEALTH, sorted(keys))
    return [
        HealthRecord(
            provider=r["provider"],
            provider_key=r["provider_key"],
            model=r["model"] or None,
            state=HealthState(r["state"]),
            retry_at=r["retry_at"],
            last_code=r["last_code"],
        )
        for r in rows
    ]


async def _save(conn: asyncpg.Connection, row: ProviderHealthRow) -> None:
    await conn.execute(SAVE_HEALTH, row.provider_key, row.model, *(getattr(row, c) for c in CAPACITY_COLUMNS))


async def admit_and_open(
    conn: asyncpg.Connection,
    key: str,
    provider: str,
    request: CallRequest,
    opening: TurnOpening | None,
    policy: CapacityPolicy,
    now: datetime,
) -> tuple[Admission, list[TranscriptEntryRow] | None]:
    """store.Store.admit_and_open: the provider key's row locked, admitted by the pure capacity rules, saved if
    changed, and the turn opened when the call may go at once; one transaction."""

    async with conn.transaction():
        record = await conn.fetchrow(LOCK_HEALTH, key)
        if record is None:
            await conn.execute(CREATE_HEALTH, key, provider, HealthState.healthy.value, now)
            record = await conn.fetchrow(LOCK_HEALTH, key)
        row = ProviderHealthRow(**dict(record))
        before = capacity_of(row)
        after, admission = admit(before, now, request, policy)
        if after != before:
            save_capacity(row, after)
            await _save(conn, row)
        snapshot = None
        if opening is not None and admission.allowed and admission.wait_s <= 0:
            rows = await conn.fetch(OPEN_TURN, opening.run_id, opening.user_seq, opening.text, now)
            snapshot = [TranscriptEntryRow(**dict(r)) for r in rows]
            if not snapshot or snapshot[-1].seq != opening.user_seq:
                snapshot.append(
                    TranscriptEntryRow(
                        run_id=opening.run_id,
                        seq=opening.user_seq,
                        role="user",
                        content=opening.text,
                        provider=None,
                        created_at=now,
                    )
                )
    return admission, snapshot


async def close_turn(
    conn: asyncpg.Connection,
    run_id: str,
    seq: int,
    answer: str,
    provider: str,
    attempt: dict[str, Any],
    effective_model: str | None,
    now: datetime,
) -> bool:
    """store.Store.close_turn: the answer, the attempt row and (when the attempt is new) the restored health of
    the provider key, provider-wide and for the model that ran; one transaction."""

    columns = sorted(attempt)
    insert_attempt = (
        f"INSERT INTO attempts ({', '.join(columns)}) VALUES ({', '.join(f'${i + 1}' for i in range(len(columns)))}) "
        "ON CONFLICT DO NOTHING"
    )
    async with conn.transaction():
        await conn.execute(ANSWER, run_id, seq, answer, provider, now)
        inserted = (await conn.execute(insert_attempt, *(attempt[c] for c in columns))) == "INSERT 0 1"
        if inserted:
            models = ["", effective_model or ""]
            for record in await conn.fetch(RESTORABLE, attempt["provider_key"], models, HealthState.healthy.value):
                row = ProviderHealthRow(**dict(record))
                save_capacity(row, step(capacity_of(row), now, CallSucceeded(run_id=run_id)))
                await _save(conn, row)
                if record["state"] == row.state:  # a streak that only starts over is no health change
                    continue
                event: HealthEventRow = health_event(row, now, code=None)
                await conn.execute(
                    HEALTH_EVENT, event.provider, event.provider_key, event.model, event.state, event.retry_at,
                    event.code, event.run_id, event.at,
                )  # fmt: skip
    return inserted
