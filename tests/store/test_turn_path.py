"""A run's per-turn store calls behave alike on both backends (PostgreSQL answers them through asyncpg itself,
SQLite through SQLAlchemy): what a run reads at submit and route resolution, a turn's admission with its
opening, and its close with the restored health."""

from datetime import UTC, datetime

from routing.capacity import CallRequest
from routing.config import AgentProfile, ExecutionProfile, WorkspaceConfig
from routing.decider import HealthState
from routing.identity import provider_key
from routing.selection import SelectionKind, UserSelection
from store.migrate import migrate
from store.preferences import PreferenceWriter
from store.repository import Store, TurnOpening
from store.rows import TurnClose
from store.tables import SelectionRow

T0 = datetime(2026, 11, 30, 12, tzinfo=UTC)
OURS = ExecutionProfile(base_url="https://ours.example/v1", credential_env="OURS_KEY")
THEIRS = ExecutionProfile(base_url="https://theirs.example/v1", credential_env="THEIRS_KEY")


async def configured(url: str) -> Store:
    await migrate(url)
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


async def test_submit_and_route_resolution_read_what_was_saved_and_only_the_users_pins(db_url):
    store = await configured(db_url)
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


async def test_a_turn_opens_once_however_often_its_admission_repeats(db_url):
    store = await configured(db_url)
    key = provider_key(OURS)
    await store.append_transcript("r1", 1, "user", "first")
    await store.append_transcript("r1", 2, "assistant", "answer", "ours")
    answers = [
        await store.admit_and_open("ours", CallRequest("r1"), TurnOpening("r1", 3, "second"), key=key) for _ in range(2)
    ]
    for admission, snapshot in answers:
        assert admission.allowed
        assert [(e.seq, e.role, e.content) for e in snapshot or []] == [
            (1, "user", "first"), (2, "assistant", "answer"), (3, "user", "second"),
        ]  # fmt: skip
    assert [e.content for e in await store.read_transcript("r1", 9)] == ["first", "answer", "second"]
    [row] = await store.health_rows()  # created healthy at the first admission, both calls counted
    assert (row.provider_key, row.state, row.window_requests) == (key, "healthy", 2)
    await store.close()


async def test_a_success_restores_the_providers_health_once_with_its_audit_event(db_url):
    store = await configured(db_url)
    key = provider_key(OURS)
    await store.set_health("ours", None, HealthState.user_action_required, None, "auth_required", "r0", key=key)
    await store.set_health("ours", "m1", HealthState.degraded, T0, "model_capacity", "r0", key=key)
    await store.set_health("ours", "m9", HealthState.degraded, T0, "model_capacity", "r0", key=key)
    results = [await store.close_turn(answered("r1", key)) for _ in range(2)]
    assert [(r.inserted, r.answer) for r in results] == [(True, "answer"), (False, "answer")]
    states = {r.model: r.state for r in await store.health_rows()}
    assert states == {"": "healthy", "m1": "healthy", "m9": "degraded"}  # another model's record stands
    restored = [e for e in await store.health_events(run_id="r1")]
    assert sorted((e.model, e.state) for e in restored) == [("", "healthy"), ("m1", "healthy")]
    assert [a.outcome for a in await store.list_attempts("r1")] == ["succeeded"]
    await store.close()


async def test_a_connection_the_server_dropped_is_an_outage_once_and_not_handed_out_again():
    import asyncpg
    import pytest

    from activities.bookkeeping import is_outage
    from tests.postgres import fresh_database

    async with fresh_database() as url:  # a connection dropped by the server needs a server
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


async def test_a_success_starts_the_failure_streak_over_so_scattered_failures_never_open_the_breaker(db_url):
    """The breaker opens after `failure_streak` failures *in a row*: a provider failing 1 call in 5 for ever
    stays closed (its window ratio is low too), and a streak reset alone writes no health event."""
    store = await configured(db_url)
    key = provider_key(OURS)
    for i in range(61):  # 12 failures, each after four successes
        run = f"r{i}"
        await store.admit_and_open("ours", CallRequest(run), TurnOpening(run, 1, "hi"), key=key)
        if i % 5 == 4:
            assert not await store.note_failure("ours", "provider_unavailable", run, key=key)
        else:
            await store.close_turn(answered(run, key))
    [row] = await store.health_rows()
    assert (row.state, row.failure_streak) == ("healthy", 0)
    assert await store.health_events() == []
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
    from tests.postgres import fresh_database

    async with fresh_database() as url:
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

    from tests.postgres import fresh_database

    async with fresh_database() as url:
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

    from tests.postgres import fresh_database

    async with fresh_database() as url:
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
    from tests.postgres import fresh_database

    async with fresh_database() as url:
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


async def test_an_admission_never_stands_on_a_row_another_worker_changed():
    """This process holds the row as its last admission left it; another worker opens the breaker meanwhile: the
    next admission here is refused by the open breaker, and one after the other worker's count is counted on top."""
    from tests.postgres import fresh_database

    async with fresh_database() as url:
        store, key = await configured(url), provider_key(OURS)
        other = Store(url)
        await store.admit_and_open("ours", CallRequest("r1"), TurnOpening("r1", 1, "hi"), key=key)
        cooling_until = datetime.now(UTC).replace(year=2099)
        await other.set_health("ours", None, HealthState.degraded, cooling_until, "x", "r0", key=key)
        refused, snapshot = await store.admit_and_open("ours", CallRequest("r2"), TurnOpening("r2", 1, "hi"), key=key)
        assert (refused.allowed, refused.rule, snapshot) == (False, "breaker.open", None)
        assert await store.read_transcript("r2", 9) == []  # a refused turn does not open
        await other.clear_health("ours")
        await other.admit_and_open("ours", CallRequest("r3"), None, key=key)
        admitted, _ = await store.admit_and_open("ours", CallRequest("r4"), TurnOpening("r4", 1, "hi"), key=key)
        assert admitted.allowed
        [row] = await store.health_rows()
        assert row.window_requests == 2  # r3 and r4 since the clear: the other worker's call was not overwritten
        await other.close()
        await store.close()


async def test_an_admission_that_waits_for_another_workers_write_counts_on_top_of_it():
    """Another worker holds the provider's row and changes it while this process's admission waits for it: the
    admission's compare misses, and it is counted on the row as the other worker left it (nothing overwritten)."""
    import asyncio

    import asyncpg

    from testkit.eventually import eventually
    from tests.postgres import fresh_database

    async with fresh_database() as url:
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
