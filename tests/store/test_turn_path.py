"""The PostgreSQL hot path (store.turn_path through asyncpg itself): what a run reads at submit and route
resolution (on both backends), and what only compare-and-set on a real server can show: round trips per turn,
pooled connections the server dropped or a cancellation left in a transaction, a column added online, and
writes racing another worker's lock. What every capacity implementation does is test_capacity_contract.py."""

from datetime import UTC, datetime

from routing.capacity import CallRequest
from routing.config import AgentProfile, ExecutionProfile, WorkspaceConfig
from routing.decider import HealthState
from routing.identity import provider_key
from routing.selection import SelectionKind, UserSelection
from store.preferences import PreferenceWriter
from store.repository import Store, TurnOpening
from store.rows import TurnClose
from store.tables import SelectionRow

T0 = datetime(2026, 11, 30, 12, tzinfo=UTC)
OURS = ExecutionProfile(base_url="https://ours.example/v1", credential_env="OURS_KEY")
THEIRS = ExecutionProfile(base_url="https://theirs.example/v1", credential_env="THEIRS_KEY")


async def configured(url: str) -> Store:
    """A store on the migrated database `url`, with two workspaces and an agent pinned to `ours`."""
    store = Store(url)
    await store.save_workspace(WorkspaceConfig(name="team", provider_order=["ours"], providers={"ours": OURS}))
    await store.save_workspace(WorkspaceConfig(name="other", provider_order=["theirs"], providers={"theirs": THEIRS}))
    await store.save_agent(AgentProfile(name="coder", model="m1", fallback_model="m0", pinned_providers=["ours"]))
    return store


def attempt(run_id: str, seq: int, key: str) -> dict:
    return {
        "run_id": run_id,
        "seq": seq,
        "provider": "ours",
        "provider_key": key,
        "execution_profile": "ours/standard",
        "requested_model": "m1",
        "effective_model": "m1",
        "outcome": "succeeded",
        "started_at": T0,
        "finished_at": T0,
    }


def answered(run: str, key: str) -> TurnClose:
    """Turn 1's answer and its attempt row, as an executor closes them."""
    return TurnClose(run, 2, "answer", "ours", attempt(run, 1, key), "m1")


async def test_submit_and_route_resolution_read_what_was_saved_and_only_the_users_pins(migrated_db_url):
    store = await configured(migrated_db_url)
    assert await store.configs("nope", "nobody") == (None, None)
    ws, agent = await store.configs("team", "coder")
    assert ws is not None and ws.providers["ours"] == OURS
    assert agent == AgentProfile(name="coder", model="m1", fallback_model="m0", pinned_providers=["ours"])
    await store.set_health("theirs", None, HealthState.degraded, T0, "overloaded", "r0", key=provider_key(THEIRS))
    await store.set_health("ours", "m1", HealthState.degraded, T0, "model_capacity", "r0", key=provider_key(OURS))
    async with store.db() as s:  # legacy data that is not a preference: never read as one
        s.add(SelectionRow(agent="coder", kind="provider", value=["theirs"], source="auto", created_at=T0))
        await s.commit()
    _, _, health, pins = await store.route_inputs("team", "coder", with_pins=True)
    assert [(h.provider, h.model, h.state) for h in health] == [("ours", "m1", HealthState.degraded)]
    assert (pins.providers, pins.model) == ([], None)
    writer = PreferenceWriter(store)
    await writer.set_user_selection(UserSelection(agent="coder", kind=SelectionKind.model, value=["m2"], actor="u"))
    _, _, _, pins = await store.route_inputs("team", "coder", with_pins=True)
    assert pins.model == "m2"
    _, _, _, unpinned = await store.route_inputs("team", "coder", with_pins=False)
    assert unpinned.model is None
    assert await store.route_inputs("nope", "coder", with_pins=True) == (None, agent, [], pins)
    await store.close()


async def test_a_connection_the_server_dropped_is_an_outage_once_and_not_handed_out_again():
    import asyncpg
    import pytest

    from activities.bookkeeping import is_outage
    from tests.postgres import migrated_database

    async with migrated_database() as url:  # a connection dropped by the server needs a server
        store = await configured(url)
        key = provider_key(OURS)
        await store.admit_and_open("ours", CallRequest("r1"), TurnOpening("r1", 1, "hi"), key=key)  # pooled now
        admin = await asyncpg.connect(store.url)
        await admin.fetch(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
            store.url.rsplit("/", 1)[1],
        )
        await admin.close()
        with pytest.raises(Exception) as dropped:
            await store.admit_and_open("ours", CallRequest("r2"), TurnOpening("r2", 1, "hi"), key=key)
        assert is_outage(dropped.value)
        admission, snapshot = await store.admit_and_open("ours", CallRequest("r3"), TurnOpening("r3", 1, "hi"), key=key)
        assert admission.allowed and [e.content for e in snapshot or []] == ["hi"]
        await store.close()


async def waiting_for_a_lock(admin, database: str) -> int:
    return await admin.fetchval(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'", database
    )


async def test_a_success_restoring_health_never_undoes_a_concurrent_change_to_the_row():
    """Another worker changes the provider's row (its window, its learned rate) while a turn closes: the restore
    reads the row under its lock, so the change survives (a read without it wrote the old values back)."""
    import asyncio

    import asyncpg

    from testkit.eventually import eventually
    from tests.postgres import migrated_database

    async with migrated_database() as url:
        store, key = await configured(url), provider_key(OURS)
        await store.set_health("ours", None, HealthState.short_retry, T0, "overloaded", "r0", key=key)
        admin, other = await asyncpg.connect(url), await asyncpg.connect(url)
        database = url.rsplit("/", 1)[1]
        async with other.transaction():
            await other.execute("SELECT 1 FROM provider_health WHERE provider_key = $1 FOR UPDATE", key)
            closing = asyncio.create_task(store.close_turn(answered("r1", key)))
            await eventually(lambda: waiting_for_a_lock(admin, database), timeout=10, what="the close to wait")
            await other.execute(
                "UPDATE provider_health SET window_requests = 99, learned_rpm = 7 WHERE provider_key = $1", key
            )
        assert await closing
        [row] = await store.health_rows()
        assert (row.state, row.window_requests, row.learned_rpm) == ("healthy", 99, 7)
        await admin.close()
        await other.close()
        await store.close()


async def test_a_connection_left_inside_a_transaction_never_goes_back_to_the_pool_holding_its_locks():
    """A cancellation that also interrupts the rollback leaves asyncpg's own transaction open: the connection is
    closed, not pooled, so the provider's row is not locked for everyone after it."""
    import asyncpg

    from tests.postgres import migrated_database

    async with migrated_database() as url:
        store, key = await configured(url), provider_key(OURS)
        await store.admit_and_open("ours", CallRequest("r1"), TurnOpening("r1", 1, "hi"), key=key)
        async with store.database.driver() as conn:  # what an interrupted rollback leaves behind
            await conn.execute("BEGIN")
            await conn.execute("SELECT 1 FROM provider_health WHERE provider_key = $1 FOR UPDATE", key)
        admin = await asyncpg.connect(url)
        async with admin.transaction():
            await admin.execute("SELECT 1 FROM provider_health WHERE provider_key = $1 FOR UPDATE NOWAIT", key)
        admission, _ = await store.admit_and_open("ours", CallRequest("r2"), TurnOpening("r2", 1, "hi"), key=key)
        assert admission.allowed
        await admin.close()
        await store.close()


async def test_a_column_added_online_fails_no_turn():
    """An online migration adds a column to the health table: pooled connections' cached statements name their
    columns, so the next turn is admitted (a `SELECT *` would fail it with 'cached statement plan is invalid')."""
    import asyncpg

    from tests.postgres import migrated_database

    async with migrated_database() as url:
        store, key = await configured(url), provider_key(OURS)
        await store.admit_and_open("ours", CallRequest("r1"), TurnOpening("r1", 1, "hi"), key=key)
        admin = await asyncpg.connect(url)
        await admin.execute("ALTER TABLE provider_health ADD COLUMN added_online integer")
        await admin.close()
        admission, _ = await store.admit_and_open("ours", CallRequest("r2"), TurnOpening("r2", 1, "hi"), key=key)
        assert admission.allowed
        await store.close()


async def test_a_happy_turn_costs_one_statement_to_admit_and_one_to_close():
    """Each statement is a round trip of worker CPU: with this process the only writer of the provider's row, a
    turn is admitted (its opening included) in one and closed (answer, attempt) in one, with no BEGIN/COMMIT."""
    from tests.postgres import migrated_database

    async with migrated_database() as url:
        store, key = await configured(url), provider_key(OURS)
        await store.admit_and_open("ours", CallRequest("r0"), TurnOpening("r0", 1, "hi"), key=key)  # creates the row
        await store.close_turn(answered("r0", key))  # asyncpg learns the types
        statements: list[str] = []
        async with store.database.driver() as conn:  # one connection in the pool: every call below uses it
            conn.add_query_logger(lambda record: statements.append(record.query))
        for run in ("r1", "r2"):
            opening = TurnOpening(run, 1, "hi")
            admission, snapshot = await store.admit_and_open("ours", CallRequest(run), opening, key=key)
            assert admission.allowed and [e.content for e in snapshot or []] == ["hi"]
            assert (await store.close_turn(answered(run, key))).inserted
        assert len(statements) == 4, [s[:60] for s in statements]
        assert [e.content for e in await store.read_transcript("r2", 9)] == ["hi", "answer"]
        [row] = await store.health_rows()
        assert row.window_requests == 3
        assert [a.outcome for a in await store.list_attempts("r2")] == ["succeeded"]
        await store.close()


async def test_an_admission_that_waits_for_another_workers_write_counts_on_top_of_it():
    """Another worker holds the provider's row and changes it while this process's admission waits for it: the
    admission's compare misses, and it is counted on the row as the other worker left it (nothing overwritten)."""
    import asyncio

    import asyncpg

    from testkit.eventually import eventually
    from tests.postgres import migrated_database

    async with migrated_database() as url:
        store, key = await configured(url), provider_key(OURS)
        await store.admit_and_open("ours", CallRequest("r1"), TurnOpening("r1", 1, "hi"), key=key)  # row held here
        admin, other = await asyncpg.connect(url), await asyncpg.connect(url)
        database = url.rsplit("/", 1)[1]
        async with other.transaction():
            await other.execute("SELECT 1 FROM provider_health WHERE provider_key = $1 FOR UPDATE", key)
            opening = TurnOpening("r2", 1, "hi")
            admitting = asyncio.create_task(store.admit_and_open("ours", CallRequest("r2"), opening, key=key))
            await eventually(lambda: waiting_for_a_lock(admin, database), timeout=10, what="the admission to wait")
            await other.execute("UPDATE provider_health SET window_requests = 99 WHERE provider_key = $1", key)
        admission, snapshot = await admitting
        assert admission.allowed and [e.content for e in snapshot or []] == ["hi"]
        [row] = await store.health_rows()
        assert row.window_requests == 100
        assert [e.content for e in await store.read_transcript("r2", 9)] == ["hi"]
        await admin.close()
        await other.close()
        await store.close()
