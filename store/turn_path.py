"""A run's per-turn statements on PostgreSQL, through asyncpg itself.

Every run reads its configuration at submit and at route resolution, and every turn is admitted (opening the
turn) and closed (answer, attempt row, restored health). Through SQLAlchemy these were many round trips,
each costly in worker CPU (docs/benchmarks.md); here a happy turn takes 2 (one more when this
process has not seen the provider key's row yet), each a statement that commits on its own, no BEGIN/COMMIT:
- admission reads the provider key's row, applies the pure capacity rules, and writes the new state only if the
  row still holds what was read (compare-and-set on every capacity column), opening the turn in that same
  statement; a row changed meanwhile is read again, and after a few misses the locked transaction decides;
- a close with nothing to restore writes the answer and the attempt row in one statement; one with a provider
  to restore (its row is not healthy, or it has a failure streak) takes the locked transaction.
Either way the outcome is one a serial order of the same calls gives: the transactions and row locks of the
SQLAlchemy path in store.capacity_locking, which SQLite (the embedded backend) keeps using; both pass one contract
suite (tests/store/test_capacity_contract.py). Statements are used by store.capacity_cas and store.configuration.
Writes stay idempotent by primary key."""

import asyncio
import json
from datetime import datetime
from typing import Any

from routing.capacity import Admission, CallRequest, CallSucceeded, CapacityPolicy, admit, step
from routing.config import AgentProfile, WorkspaceConfig
from routing.decider import HealthState
from routing.route import HealthRecord
from routing.selection import Pins, SelectionSource
from store.columns import insert_sql, names, table_of
from store.database import Connection, StoreInvariantError
from store.rows import (
    CAPACITY_COLUMNS,
    Closed,
    TurnClose,
    TurnOpening,
    capacity_of,
    health_event,
    save_capacity,
)
from store.selections import pins_from
from store.tables import AgentProfileRow, HealthEventRow, ProviderHealthRow, TranscriptEntryRow

# Every column list below comes from the table definitions (store.columns); tests/store/test_columns.py checks
# that each statement names every column of its table.
PROVIDER_HEALTH, TRANSCRIPT = table_of(ProviderHealthRow), table_of(TranscriptEntryRow)
HEALTH_EVENTS = table_of(HealthEventRow)
AGENT_COLUMNS = names(table_of(AgentProfileRow), without=("updated_at",))  # an AgentProfile's fields
CONFIGS = f"""
SELECT (SELECT config FROM workspaces WHERE name = $1) AS workspace,
       (SELECT json_build_object({", ".join(f"'{c}', {c}" for c in AGENT_COLUMNS)})
          FROM agent_profiles WHERE name = $2) AS agent,
       (SELECT json_agg(json_build_object('kind', kind, 'value', value)) FROM selections
         WHERE $3 AND agent = $2 AND source = $4) AS pins
"""
HEALTH_RECORD_COLUMNS = tuple(HealthRecord.model_fields)  # a HealthRecord's fields are provider_health columns
HEALTH = f"SELECT {', '.join(HEALTH_RECORD_COLUMNS)} FROM provider_health WHERE provider_key = ANY($1::varchar[])"
# Columns by name, not `*`: a column added online would void asyncpg's cached statements (0A000) mid-run.
HEALTH_COLUMNS = names(PROVIDER_HEALTH)
HEALTH_ROW = ", ".join(HEALTH_COLUMNS)
TRANSCRIPT_COLUMNS = names(TRANSCRIPT)
READ_HEALTH = f"SELECT {HEALTH_ROW} FROM provider_health WHERE provider_key = $1 AND model = ''"
LOCK_HEALTH = f"{READ_HEALTH} FOR UPDATE"
CREATE_HEALTH = insert_sql(  # healthy, every other column at the table's default
    PROVIDER_HEALTH,
    {"provider_key": "$1", "model": "''", "provider": "$2", "state": "$3", "updated_at": "$4"},
    tail=" ON CONFLICT DO NOTHING",
)
SAVE_HEALTH = (
    "UPDATE provider_health SET "
    + ", ".join(f"{c} = ${i + 3}" for i, c in enumerate(CAPACITY_COLUMNS))
    + " WHERE provider_key = $1 AND model = $2"
)
# Admission without a lock: the new capacity state ($8…) is written only if every column still holds what the
# caller holds ($8 + n…), and the turn opens ($3) only then. Every line carries `applied`, the row as it was before
# this statement (what to admit by next, when not applied) and one transcript entry (t_*) of the snapshot.
# $2: the admission changed the state (else nothing is written: the row is only compared).
UNCHANGED = " AND ".join(
    f"{c} IS NOT DISTINCT FROM ${i + 8 + len(CAPACITY_COLUMNS)}" for i, c in enumerate(CAPACITY_COLUMNS)
)


def _user_message(run_id: str, seq: str, content: str, at: str) -> dict[str, str]:
    return {"run_id": run_id, "seq": seq, "role": "'user'", "content": content, "provider": "NULL", "created_at": at}


OPEN_IF_APPLIED = insert_sql(
    TRANSCRIPT,
    _user_message("$4", "$5", "$6", "$7"),
    "SELECT {values} FROM applied WHERE $3",
    " ON CONFLICT DO NOTHING",
)
CAS_ADMIT = f"""
WITH current AS (
    SELECT {HEALTH_ROW} FROM provider_health WHERE provider_key = $1 AND model = ''
), saved AS (
    UPDATE provider_health SET {", ".join(f"{c} = ${i + 8}" for i, c in enumerate(CAPACITY_COLUMNS))}
     WHERE provider_key = $1 AND model = '' AND $2 AND {UNCHANGED}
    RETURNING 1
), applied AS (  -- written, or (nothing to write) the row is still what the caller holds
    SELECT 1 FROM current WHERE CASE WHEN $2 THEN EXISTS (SELECT 1 FROM saved) ELSE {UNCHANGED} END
), opened AS (
    {OPEN_IF_APPLIED}
)
SELECT EXISTS (SELECT 1 FROM applied) AS applied, current.*,
       {", ".join(f"t.{c} AS t_{c}" for c in TRANSCRIPT_COLUMNS)}
  FROM (SELECT 1) AS one
  LEFT JOIN current ON true
  LEFT JOIN transcript_entries AS t ON $3 AND EXISTS (SELECT 1 FROM applied) AND t.run_id = $4 AND t.seq <= $5
 ORDER BY t.seq
"""  # fmt: skip
CAS_TRIES = 3  # reads of a row others keep changing, before the locked transaction decides
# The user's message (if absent) and the run's snapshot before it: the inserted row is not visible to the
# statement that inserts it, so the caller appends the message unless the snapshot already ends with it.
OPEN_TURN = f"""
WITH opened AS (
    {insert_sql(TRANSCRIPT, _user_message("$1", "$2", "$3", "$4"), tail=" ON CONFLICT DO NOTHING")}
)
SELECT {", ".join(TRANSCRIPT_COLUMNS)} FROM transcript_entries
 WHERE run_id = $1 AND seq <= $2 ORDER BY seq
"""


def _answer(run_id: str, seq: str, content: str, provider: str, at: str) -> dict[str, str]:
    return {"run_id": run_id, "seq": seq, "role": "'assistant'", "content": content, "provider": provider,
            "created_at": at}  # fmt: skip


ANSWER = insert_sql(TRANSCRIPT, _answer("$1", "$2", "$3", "$4", "$5"), tail=" ON CONFLICT DO NOTHING")
ANSWER_FROM_SELECT = insert_sql(  # parameters after the close's three: run, seq, answer, provider, at
    TRANSCRIPT, _answer("$4", "$5", "$6", "$7", "$8"), "SELECT {values} {{unless}}", " ON CONFLICT DO NOTHING"
)
STORED = "SELECT content FROM transcript_entries WHERE run_id = ${} AND seq = ${}"  # the turn's answer, if any
# A close with nothing to restore: no row of the provider key (provider-wide, the model that ran) is unhealthy or
# has a failure streak; then the answer and the attempt are written, else nothing is and the locked close runs.
TO_RESTORE = (  # store.capacity.RESTORABLE
    "FROM provider_health WHERE provider_key = $1 AND model = ANY($2::varchar[]) "
    "AND (state <> $3 OR failure_streak > 0)"
)
RESTORABLE_ANY = f"SELECT 1 {TO_RESTORE}"
RESTORABLE = f"SELECT {HEALTH_ROW} {TO_RESTORE} FOR UPDATE"  # locked: read, step and written back, no writer between
HEALTH_EVENT_COLUMNS = names(HEALTH_EVENTS)
HEALTH_EVENT = insert_sql(HEALTH_EVENTS, {c: f"${i + 1}" for i, c in enumerate(HEALTH_EVENT_COLUMNS)})


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


async def configs(
    conn: Connection, workspace: str, agent: str, with_pins: bool = False
) -> tuple[WorkspaceConfig | None, AgentProfile | None, Pins]:
    """The workspace, the agent profile and (`with_pins`) the user's pins, in one statement."""
    row = await conn.fetchrow(CONFIGS, workspace, agent, with_pins, SelectionSource.user.value)
    if row is None:
        raise StoreInvariantError("a SELECT without FROM returned no row")
    ws, profile = _json(row["workspace"]), _json(row["agent"])
    # Only source=user rows: anything else is not a preference.
    pins = pins_from([(selection["kind"], _json(selection["value"])) for selection in _json(row["pins"]) or []])
    return (
        WorkspaceConfig.model_validate(ws) if ws is not None else None,
        AgentProfile.model_validate(profile) if profile is not None else None,
        pins,
    )


async def health(conn: Connection, keys: set[str]) -> list[HealthRecord]:
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


async def _save(conn: Connection, row: ProviderHealthRow) -> None:
    await conn.execute(SAVE_HEALTH, row.provider_key, row.model, *(getattr(row, c) for c in CAPACITY_COLUMNS))


class KnownRows:
    """Per provider key, the health row as this process last read or wrote it, and a lock that makes this
    process's admissions to the key take turns: each is then admitted against the row as the previous one left
    it, in one statement, and only another process's write in between costs a second (the compare-and-set
    misses and hands back the row as it is). What is held is never trusted: every write compares it."""

    def __init__(self) -> None:
        self._rows: dict[str, dict[str, Any]] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def lock(self, key: str) -> asyncio.Lock:
        return self._locks.setdefault(key, asyncio.Lock())

    def get(self, key: str) -> dict[str, Any] | None:
        return self._rows.get(key)

    def put(self, key: str, row: dict[str, Any] | None) -> None:
        if row is None:
            self._rows.pop(key, None)
        else:
            self._rows[key] = row


def _snapshot(rows: list[Any], opening: TurnOpening, now: datetime, prefix: str = "") -> list[TranscriptEntryRow]:
    """The run's entries up to the turn's user message: the inserted row is not visible to the statement that
    inserts it, so it is appended unless the snapshot already ends with it (an admission repeated)."""
    snapshot = [
        TranscriptEntryRow(**{c: r[prefix + c] for c in TRANSCRIPT_COLUMNS})
        for r in rows
        if r[prefix + "run_id"] is not None
    ]
    if not snapshot or snapshot[-1].seq != opening.user_seq:
        snapshot.append(
            TranscriptEntryRow(
                run_id=opening.run_id, seq=opening.user_seq, role="user", content=opening.text, provider=None,
                created_at=now,
            )
        )  # fmt: skip
    return snapshot


async def _admit_unlocked(
    conn: Connection,
    held: dict[str, Any],
    fresh: bool,
    request: CallRequest,
    opening: TurnOpening | None,
    policy: CapacityPolicy,
    now: datetime,
) -> tuple[tuple[Admission, list[TranscriptEntryRow] | None] | None, dict[str, Any] | None]:
    """The admission of the row as held, written (with the turn's opening) only if the row still is that; then
    the row as it is now. Not decided (None) when it had changed: then the row as it was found. A decision that
    writes nothing stands on a `fresh` row (read by this call) without a statement; on a held one it is checked."""
    row = ProviderHealthRow(**held)
    before = capacity_of(row)
    after, admission = admit(before, now, request, policy)
    opens = opening is not None and admission.allowed and admission.wait_s <= 0
    if after == before and not opens and fresh:
        return (admission, None), held
    save_capacity(row, after)
    new, old = [getattr(row, c) for c in CAPACITY_COLUMNS], [held[c] for c in CAPACITY_COLUMNS]
    turn = opening or TurnOpening("", 0, "")
    rows = await conn.fetch(
        CAS_ADMIT, row.provider_key, after != before, opens, turn.run_id, turn.user_seq, turn.text, now, *new, *old
    )
    found = {c: rows[0][c] for c in held} if rows[0]["provider_key"] is not None else None
    if not rows[0]["applied"]:
        return None, found
    written = held | dict(zip(CAPACITY_COLUMNS, new, strict=True)) if after != before else held
    return (admission, _snapshot(rows, turn, now, "t_") if opens else None), written


async def admit_and_open(
    conn: Connection,
    known: KnownRows,
    key: str,
    provider: str,
    request: CallRequest,
    opening: TurnOpening | None,
    policy: CapacityPolicy,
    now: datetime,
) -> tuple[Admission, list[TranscriptEntryRow] | None]:
    """store.Store.admit_and_open, under `known.lock(key)`: the provider key's row admitted by the pure capacity
    rules and saved if changed, and the turn opened when the call may go at once, atomically (see the module
    notes)."""
    held, fresh = known.get(key), False
    if held is None and (record := await conn.fetchrow(READ_HEALTH, key)) is not None:
        held, fresh = dict(record), True
    for _ in range(CAS_TRIES):
        if held is None:  # the key's first call: its row is created under the lock
            break
        decided, found = await _admit_unlocked(conn, held, fresh, request, opening, policy, now)
        if decided is None and found == held:
            # The write waited for the row and met a newer version than the statement's own read: read it now.
            record = await conn.fetchrow(READ_HEALTH, key)
            found = dict(record) if record is not None else None
        held, fresh = found, True
        known.put(key, held)
        if decided is not None:
            return decided
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
            snapshot = _snapshot(rows, opening, now)
    known.put(key, {c: getattr(row, c) for c in dict(record)})  # committed: the row as it is now
    return admission, snapshot


def _attempt_insert(columns: list[str], first: int, when: str = "") -> str:
    values = ", ".join(f"${i + first}" for i in range(len(columns)))
    source = f"SELECT {values} {when}" if when else f"VALUES ({values})"
    return f"INSERT INTO attempts ({', '.join(columns)}) {source} ON CONFLICT DO NOTHING"


async def close_turn(conn: Connection, close: TurnClose, now: datetime) -> Closed:
    """store.Store.close_turn: the attempt row, the answer only when that row is new (the fence against a lost
    worker's late close) and then the restored health of the provider key, provider-wide and for the model that
    ran; atomically (see the module notes)."""
    run_id, seq, answer, provider, attempt = close.run_id, close.seq, close.answer, close.provider, close.attempt
    columns, models = sorted(attempt), ["", close.effective_model or ""]
    key, healthy = attempt["provider_key"], HealthState.healthy.value
    unless = "WHERE NOT EXISTS (SELECT 1 FROM restorable)"
    happy = await conn.fetchrow(
        f"WITH restorable AS ({RESTORABLE_ANY}), "
        f"attempt AS ({_attempt_insert(columns, 9, unless)} RETURNING 1), "
        f"answer AS ({ANSWER_FROM_SELECT.format(unless='WHERE EXISTS (SELECT 1 FROM attempt)')}) "
        "SELECT EXISTS (SELECT 1 FROM restorable) AS restorable, EXISTS (SELECT 1 FROM attempt) AS inserted, "
        f"({STORED.format(4, 5)}) AS stored",  # as before this statement: a lost attempt's answer that got in first
        key, models, healthy, run_id, seq, answer, provider, now, *(attempt[c] for c in columns),
    )  # fmt: skip
    if happy is None:
        raise StoreInvariantError("a close's statement without FROM returned no row")
    if not happy["restorable"]:
        stored = happy["stored"]
        return Closed(inserted=bool(happy["inserted"]), answer=answer if stored is None else stored)
    async with conn.transaction():
        inserted = (await conn.execute(_attempt_insert(columns, 1), *(attempt[c] for c in columns))) == "INSERT 0 1"
        answered = inserted and (await conn.execute(ANSWER, run_id, seq, answer, provider, now)) == "INSERT 0 1"
        if inserted:
            for record in await conn.fetch(RESTORABLE, key, models, healthy):
                row = ProviderHealthRow(**dict(record))
                save_capacity(row, step(capacity_of(row), now, CallSucceeded(run_id=run_id)))
                await _save(conn, row)
                if record["state"] == row.state:  # a streak that only starts over is no health change
                    continue
                event: HealthEventRow = health_event(row, now, code=None)
                await conn.execute(HEALTH_EVENT, *(getattr(event, c) for c in HEALTH_EVENT_COLUMNS))
        # An answer that got in first (a lost attempt's, or this close's before a lost acknowledgement) stays.
        stored = None if answered else await conn.fetchval(STORED.format(1, 2), run_id, seq)
    return Closed(inserted=inserted, answer=answer if stored is None else stored)
