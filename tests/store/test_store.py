"""The store on PostgreSQL and SQLite through the same code: schema, configuration, transcripts, attempts,
messages, catalogs and store faults. Capacity has its own contract suite (test_capacity_contract.py)."""

import asyncio
from datetime import UTC, datetime

import pytest
import sqlalchemy
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

from activities.attempts import store_attempt
from contracts.activities import AttemptRecord
from routing.classifier import CATALOGUE_VERSION, FailureSignal, classify
from routing.config import AgentProfile, ExecutionProfile, WorkspaceConfig
from routing.decider import RoutingContext, RunState, decide
from routing.run import AttemptOutcome, Candidate
from store.engine import make_engine
from store.migrate import migrate
from store.repository import Store
from store.rows import TurnClose

T0 = datetime(2026, 11, 29, 12, tzinfo=UTC)


async def test_migrations_create_exactly_the_tables_the_models_describe(db_url):
    await migrate(db_url)
    await migrate(db_url)  # idempotent: a second upgrade is a no-op
    engine = make_engine(db_url)
    async with engine.connect() as conn:
        diff = await conn.run_sync(lambda c: compare_metadata(MigrationContext.configure(c), SQLModel.metadata))
    await engine.dispose()
    assert diff == []


async def test_configuration_round_trips(migrated_db_url):
    store = Store(migrated_db_url)
    ws = WorkspaceConfig(
        name="team",
        provider_order=["a", {"provider": "b", "emergency": True}],
        providers={
            "a": ExecutionProfile(base_url="http://a", credential_env="A_KEY"),
            "b": ExecutionProfile(base_url="http://b"),
        },
    )
    await store.save_workspace(ws)
    assert await store.get_workspace("team") == ws
    await store.save_agent(AgentProfile(name="coder", model="m1", fallback_model="m2"))
    await store.save_agent(AgentProfile(name="coder", model="m3"))  # replace, not duplicate
    assert [a.model for a in await store.list_agents()] == ["m3"]
    await store.close()


async def test_transcripts_are_append_only_and_snapshots_belong_to_one_run(migrated_db_url):
    store = Store(migrated_db_url)
    assert await store.append_transcript("r1", 1, "user", "hello from r1")
    assert not await store.append_transcript("r1", 1, "user", "a retry never overwrites")
    await store.append_transcript("r1", 2, "assistant", "answer r1")
    await store.append_transcript("r2", 1, "user", "hello from r2")
    snapshot = await store.read_transcript("r1", 1)
    assert [(e.seq, e.content) for e in snapshot] == [(1, "hello from r1")]
    assert [e.content for e in await store.read_transcript("r1", 99)] == ["hello from r1", "answer r1"]
    assert [e.content for e in await store.read_transcript("r2", 99)] == ["hello from r2"]
    await store.close()


async def test_attempt_rows_are_idempotent_under_concurrent_retries(migrated_db_url):
    store = Store(migrated_db_url)
    row = {
        "run_id": "r1",
        "seq": 1,
        "provider": "a",
        "execution_profile": "a/standard",
        "outcome": "failed",
        "code": "auth_required",
        "started_at": T0,
        "finished_at": T0,
    }
    results = await asyncio.gather(*[store.record_attempt(dict(row)) for _ in range(5)])
    assert sorted(results) == [False, False, False, False, True]
    assert [(a.seq, a.code) for a in await store.list_attempts("r1")] == [(1, "auth_required")]
    await store.close()


async def test_a_failed_attempt_keeps_the_rules_catalogue_that_classified_it(migrated_db_url):
    store = Store(migrated_db_url)
    profile = ExecutionProfile(base_url="http://a")
    cand = Candidate(provider="a", execution_profile="a/std", profile=profile, tier="std", requested_model="m")
    failure = classify(FailureSignal(status=401, body='{"error":{"type":"authentication_error"}}'), T0)
    state = RunState(attempts=1, max_attempts=8, other_candidate_eligible=True)
    decision = decide(failure, RoutingContext.office, state, rand=0.5)
    record = AttemptRecord(
        run_id="r1", seq=1, candidate=cand, effective_model=None, outcome=AttemptOutcome.failed, failure=failure,
        decision=decision, started_at=T0, finished_at=T0,
    )  # fmt: skip
    await store_attempt(store, record)
    [row] = await store.list_attempts("r1")
    assert row.catalogue == CATALOGUE_VERSION and row.code == failure.code.value
    await store.close()


async def test_run_messages_are_idempotent_by_key(migrated_db_url):
    store = Store(migrated_db_url)
    for _ in range(3):
        await store.add_run_message("k1", "r1", "model_selection_warning", {"reason": "requested_not_advertised"})
    assert len(await store.list_run_messages("r1")) == 1
    await store.close()


async def test_upgrade_from_the_previous_revision_keeps_data(db_url):
    await migrate(db_url, "0001")
    store = Store(db_url)
    async with store.engine.begin() as conn:  # written as 0001's schema has it (today's rows have more columns)
        await conn.execute(
            sqlalchemy.text(
                "INSERT INTO agent_profiles (name, model, auto_fallback, pinned_providers, updated_at) "
                "VALUES ('coder', 'm1', false, '[]', CURRENT_TIMESTAMP)"
            )
        )
    await store.append_transcript("r1", 1, "user", "kept")
    await migrate(db_url)  # 0001 -> head
    assert (await store.get_agent("coder")).model == "m1"
    assert [e.content for e in await store.read_transcript("r1", 1)] == ["kept"]
    await store.observe_catalog("a", ["m1", "m2"], "r1")
    await store.observe_catalog("a", ["m2"], "r2")  # the latest observation replaces the earlier one
    assert await store.observed_catalogs(["a", "b"]) == {"a": ["m2"]}
    await store.close()


async def test_store_faults_are_told_apart_from_bad_data_on_the_real_database(migrated_db_url):
    """A terminated connection is an outage to wait out; a NUL byte PostgreSQL refuses is bad data, refused
    once with a message that names what was written (SQLite stores it as U+FFFD after the boundary)."""
    import asyncpg
    from temporalio.exceptions import ApplicationError

    from activities.bookkeeping import close_turn, is_outage, open_turn
    from contracts.failures import STORE_REJECTED

    store = Store(migrated_db_url)
    snapshot = await open_turn(store, "r1", 1, "a\x00b")  # cleaned at the boundary on both backends
    assert [e.content for e in snapshot] == ["a\ufffdb"]
    if store.engine.dialect.name == "postgresql":
        try:
            await store.append_transcript("r1", 3, "user", "raw\x00nul")
            raise AssertionError("PostgreSQL accepted a NUL byte")
        except Exception as err:
            assert not is_outage(err)
        with pytest.raises(ApplicationError) as refused:
            too_long = {"run_id": "r1", "seq": 1, "provider": "p" * 100, "provider_key": "k", "outcome": "succeeded"}
            row = too_long | {"execution_profile": "p/s", "started_at": T0, "finished_at": T0}
            await close_turn(store, TurnClose("r1", 2, "ok", "p", row, None))
        assert refused.value.type == STORE_REJECTED and "[SQL" not in refused.value.message
        assert "recording the answer of turn 1 of r1" in refused.value.message
        admin = await asyncpg.connect(store.url)
        name = store.url.rsplit("/", 1)[1]
        await store.read_transcript("r1", 1)  # a pooled connection …
        await admin.fetch(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
            name,
        )
        try:
            await store.read_transcript("r1", 1)  # … the server terminated
            raise AssertionError("the dead connection answered")
        except Exception as err:
            assert is_outage(err)
        await admin.close()
        assert [e.content for e in await store.read_transcript("r1", 1)] == ["a\ufffdb"]  # and the store is back
    await store.close()


@pytest.mark.parametrize(
    "url, says",
    [
        ("sqlite:///.office-data/office.db", True),
        ("sqlite+aiosqlite:///tmp/office.db", True),
        ("postgresql://office@db:5432/office", False),
    ],
)
def test_a_worker_on_the_embedded_backend_is_told_that_more_hosts_need_postgresql(url, says):
    from store.engine import embedded_notice

    notice = embedded_notice(url)
    assert (notice is not None) is says
    if notice:
        assert "several hosts need PostgreSQL" in notice and "OFFICE_DATABASE_URL=postgresql://" in notice
