"""The hand-written hot path (store.turn_path) and the health row mapping (store.rows) see every column of the
tables they write: their column lists come from the table definitions, and a column added to a table is named by
every statement that writes it, at its default, or the mapping that should carry it fails here."""

import re
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Boolean, Column, Integer, MetaData, String, Table

from routing.capacity import CapacityState, ProbeLease, Window
from routing.config import AgentProfile
from routing.decider import HealthState
from routing.route import HealthRecord
from store import turn_path
from store.columns import insert_sql, names, table_of
from store.rows import CAPACITY_COLUMNS, HEALTH_IDENTITY, capacity_of, capacity_values, save_capacity
from store.tables import AgentProfileRow, HealthEventRow, ProviderHealthRow, TranscriptEntryRow

T0 = datetime(2026, 12, 1, 12, tzinfo=UTC)
INSERT = re.compile(r"INSERT INTO (\w+) \(([^)]*)\)")


def columns(model: type) -> set[str]:
    return {c.name for c in table_of(model).columns}


def inserted(statement: str) -> dict[str, set[str]]:
    """Per table, the columns the statement's INSERTs name."""
    return {table: {c.strip() for c in listed.split(",")} for table, listed in INSERT.findall(statement)}


@pytest.mark.parametrize(
    "name, table, model",
    [
        ("CREATE_HEALTH", "provider_health", ProviderHealthRow),
        ("OPEN_TURN", "transcript_entries", TranscriptEntryRow),
        ("CAS_ADMIT", "transcript_entries", TranscriptEntryRow),
        ("ANSWER", "transcript_entries", TranscriptEntryRow),
        ("ANSWER_FROM_SELECT", "transcript_entries", TranscriptEntryRow),
    ],
)
def test_every_insert_of_the_hot_path_names_every_column_of_its_table(name, table, model):
    assert inserted(getattr(turn_path, name))[table] == columns(model), name


def test_a_health_event_written_through_asyncpg_carries_every_column_but_its_number():
    assert inserted(turn_path.HEALTH_EVENT)["health_events"] == columns(HealthEventRow) - {"id"}


def test_the_health_row_is_read_whole_and_its_capacity_written_whole():
    assert set(turn_path.HEALTH_COLUMNS) == columns(ProviderHealthRow)
    assert set(HEALTH_IDENTITY) | set(CAPACITY_COLUMNS) == columns(ProviderHealthRow)
    assert re.findall(r"(\w+) = \$", turn_path.SAVE_HEALTH) == [*CAPACITY_COLUMNS, "provider_key", "model"]


def full_state() -> CapacityState:
    """A capacity state with every field away from its default."""
    return CapacityState(
        health=HealthState.degraded,
        retry_at=T0 + timedelta(seconds=30),
        backoff_step=2,
        failure_streak=3,
        probe=ProbeLease("probe-run", T0 + timedelta(seconds=120)),
        window=Window(start=T0, requests=9, retries=2, failures=4, limited=1),
        next_slot_at=T0 + timedelta(seconds=2),
        learned_rpm=42.0,
        learned_at=T0,
        rate_stated=True,
        limited_at=T0,
        last_code="provider_unavailable",
        last_run_id="r9",
        changed_at=T0,
    )


def test_every_capacity_column_is_written_and_read_back():
    """A column added to provider_health that the capacity state does not carry fails here: the mapping writes
    exactly the capacity columns, and a state survives the row."""
    row = ProviderHealthRow(provider_key="k", model="", provider="p", state="healthy", updated_at=T0)
    assert set(capacity_values(row, full_state())) == set(CAPACITY_COLUMNS)
    save_capacity(row, full_state())
    assert capacity_of(row) == full_state()


UTC_TIMES = st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC))
MAYBE_TIME = st.none() | UTC_TIMES
COUNTS = st.integers(0, 10_000)
STATES = st.builds(
    CapacityState,
    health=st.sampled_from(HealthState),
    retry_at=MAYBE_TIME,
    backoff_step=st.integers(0, 20),
    failure_streak=COUNTS,
    probe=st.none() | st.builds(ProbeLease, holder=st.text(min_size=1, max_size=20), expires=UTC_TIMES),
    window=st.builds(Window, start=MAYBE_TIME, requests=COUNTS, retries=COUNTS, failures=COUNTS, limited=COUNTS),
    next_slot_at=MAYBE_TIME,
    last_code=st.none() | st.text(max_size=40),
    last_run_id=st.none() | st.text(max_size=40),
    changed_at=UTC_TIMES,
    learned_rpm=st.none() | st.floats(0.01, 1e6),
    learned_at=MAYBE_TIME,
    rate_stated=st.booleans(),
    limited_at=MAYBE_TIME,
)


@settings(max_examples=200, deadline=None)
@given(before=STATES, after=STATES)
def test_any_capacity_state_survives_the_row_it_is_saved_to(before, after):
    """Whatever the row held, saving a state and reading it back gives that state."""
    row = ProviderHealthRow(provider_key="k", model="", provider="p", state="healthy", updated_at=T0)
    save_capacity(row, before)
    save_capacity(row, after)
    assert capacity_of(row) == after


def test_what_a_run_reads_names_the_profiles_and_records_fields():
    assert set(turn_path.AGENT_COLUMNS) == set(AgentProfile.model_fields) == columns(AgentProfileRow) - {"updated_at"}
    assert set(turn_path.HEALTH_RECORD_COLUMNS) == set(HealthRecord.model_fields)
    assert set(HealthRecord.model_fields) <= columns(ProviderHealthRow)


# --- the derivation itself, on a table with a column added ------------------------------------------------------
def with_added(column: Column[object]) -> Table:
    table = table_of(TranscriptEntryRow).to_metadata(MetaData())
    table.append_column(column)
    return table


GIVEN = {"run_id": "$1", "seq": "$2", "role": "'user'", "content": "$3", "provider": "NULL", "created_at": "$4"}


@pytest.mark.parametrize(
    "column, value",
    [
        (Column("added", Integer, nullable=True), "NULL"),
        (Column("added", Integer, nullable=False, default=0), "0"),
        (Column("added", Boolean, nullable=False, default=False), "false"),
        (Column("added", String(20), nullable=False, default="it's"), "'it''s'"),
    ],
    ids=["nullable", "integer default", "boolean default", "text default"],
)
def test_a_column_added_to_a_table_is_inserted_at_its_default(column, value):
    statement = insert_sql(with_added(column), GIVEN)
    assert inserted(statement)["transcript_entries"] == columns(TranscriptEntryRow) | {"added"}
    assert statement.endswith(f"VALUES ($1, $2, 'user', $3, NULL, $4, {value})")


def test_a_column_added_without_a_value_to_give_is_refused_when_the_statement_is_built():
    with pytest.raises(ValueError, match="NOT NULL without a default"):
        insert_sql(with_added(Column("added", Integer, nullable=False)), GIVEN)
    with pytest.raises(ValueError, match="no column"):
        insert_sql(table_of(TranscriptEntryRow), GIVEN | {"nope": "1"})


def test_columns_the_database_numbers_are_left_to_it():
    assert "id" not in names(table_of(HealthEventRow))
    assert names(table_of(TranscriptEntryRow), without=("created_at",))[-1] == "provider"
