"""The store on PostgreSQL and SQLite through the same code."""

import asyncio
import itertools
from datetime import UTC, datetime, timedelta

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

from routing.config import AgentProfile, ExecutionProfile, WorkspaceConfig
from routing.decider import HealthState
from store.engine import make_engine
from store.migrate import migrate
from store.repository import Store
from store.rows import TurnClose

T0 = datetime(2026, 11, 29, 12, tzinfo=UTC)


async def migrated(url: str) -> Store:
    await migrate(url)
    return Store(url)


async def test_migrations_create_exactly_the_tables_the_models_describe(db_url):
    await migrate(db_url)
    await migrate(db_url)  # idempotent: a second upgrade is a no-op
    engine = make_engine(db_url)
    async with engine.connect() as conn:
        diff = await conn.run_sync(lambda c: compare_metadata(MigrationContext.configure(c), SQLModel.metadata))
    await engine.dispose()
    assert diff == []


async def test_configuration_round_trips(db_url):
    store = await migrated(db_url)
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


async def test_transcripts_are_append_only_and_snapshots_belong_to_one_run(db_url):
    store = await migrated(db_url)
    assert await store.append_transcript("r1", 1, "user", "hello from r1")
    assert not await store.append_transcript("r1", 1, "user", "a retry never overwrites")
    await store.append_transcript("r1", 2, "assistant", "answer r1")
    await store.append_transcript("r2", 1, "user", "hello from r2")
    snapshot = await store.read_transcript("r1", 1)
    assert [(e.seq, e.content) for e in snapshot] == [(1, "hello from r1")]
    assert [e.content for e in await store.read_transcript("r1", 99)] == ["hello from r1", "answer r1"]
    assert [e.content for e in await store.read_transcript("r2", 99)] == ["hello from r2"]
    await store.close()


async def test_attempt_rows_are_idempotent_under_concurrent_retries(db_url):
    store = await migrated(db_url)
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


async def test_health_scopes_backoff_steps_and_restore(db_url):
    store = await migrated(db_url)
    await store.set_health("a", None, HealthState.degraded, T0 + timedelta(seconds=30), "rate_limited", "r1")
    await store.set_health("a", None, HealthState.degraded, T0 + timedelta(seconds=60), "rate_limited", "r2")
    await store.set_health("a", "m-old", HealthState.user_action_required, None, "model_unavailable", "r2")
    rows = {(r.provider, r.model): r for r in await store.health_rows()}
    assert rows[("a", "")].backoff_step == 1
    records = {(h.provider, h.model): h for h in await store.list_health()}
    assert records[("a", None)].retry_at == T0 + timedelta(seconds=60)
    assert records[("a", "m-old")].state is HealthState.user_action_required
    await store.restore_health("a", "m-new", "r3")  # a success on another model leaves m-old's record alone
    records = {(h.provider, h.model): h.state for h in await store.list_health()}
    assert records == {("a", None): HealthState.healthy, ("a", "m-old"): HealthState.user_action_required}
    assert await store.clear_health("a", "m-old") == 1
    await store.close()


async def test_run_messages_are_idempotent_by_key(db_url):
    store = await migrated(db_url)
    for _ in range(3):
        await store.add_run_message("k1", "r1", "model_selection_warning", {"reason": "requested_not_advertised"})
    assert len(await store.list_run_messages("r1")) == 1
    await store.close()


async def test_upgrade_from_the_previous_revision_keeps_data(db_url):
    await migrate(db_url, "0001")
    store = Store(db_url)
    await store.save_agent(AgentProfile(name="coder", model="m1"))
    await store.append_transcript("r1", 1, "user", "kept")
    await migrate(db_url)  # 0001 -> head
    assert (await store.get_agent("coder")).model == "m1"
    assert [e.content for e in await store.read_transcript("r1", 1)] == ["kept"]
    await store.observe_catalog("a", ["m1", "m2"], "r1")
    await store.observe_catalog("a", ["m2"], "r2")  # the latest observation replaces the earlier one
    assert await store.observed_catalogs(["a", "b"]) == {"a": ["m2"]}
    await store.close()


async def test_shared_breaker_opens_on_a_failing_window_and_lets_one_probe_through(db_url):
    from routing.capacity import CapacityPolicy

    store = await migrated(db_url)
    policy = CapacityPolicy(min_volume=4, failure_ratio=0.5)
    opened = []
    for i in range(4):
        assert (await store.admit_call("p", f"r{i}", is_retry=False, policy=policy)).allowed
        opened.append(await store.note_failure("p", "provider_unavailable", f"r{i}", policy))
    assert opened == [False, False, False, True]  # judged only once the window holds min_volume requests
    assert not await store.note_failure("p", "rate_limited", "r5", policy)  # capacity is not breakage
    [row] = await store.health_rows()
    assert row.state == "degraded" and row.retry_at is not None
    refused = await store.admit_call("p", "r9", is_retry=False, policy=policy)
    assert (refused.allowed, refused.rule) == (False, "breaker.open") and refused.retry_after_s > 0

    # Cooling over: exactly one of many concurrent callers becomes the half-open probe.
    async with store.db() as s:
        from sqlalchemy import update as sa_update

        from store.tables import ProviderHealthRow

        await s.execute(sa_update(ProviderHealthRow).values(retry_at=utcnow_minus(1)))
        await s.commit()
    answers = await asyncio.gather(*[store.admit_call("p", f"c{i}", False, policy=policy) for i in range(8)])
    assert sum(a.allowed for a in answers) == 1 and [a.probe for a in answers if a.allowed] == [True]
    assert {a.rule for a in answers if not a.allowed} == {"breaker.probe_in_flight"}
    await store.restore_health("p", None, "c0")  # the probe succeeded: closed for everyone
    assert (await store.admit_call("p", "r10", False, policy=policy)).allowed
    await store.close()


async def test_an_expired_probe_lease_passes_to_the_next_caller(db_url):
    """A probe holder that died must not keep the provider closed past its lease."""
    from sqlalchemy import update as sa_update

    from store.tables import ProviderHealthRow

    store = await migrated(db_url)
    await store.admit_call("p", "r0", is_retry=False)
    async with store.db() as s:
        await s.execute(
            sa_update(ProviderHealthRow).values(
                state="degraded", retry_at=utcnow_minus(5), probe_holder="dead-run", probe_expires=utcnow_minus(1)
            )
        )
        await s.commit()
    admission = await store.admit_call("p", "r1", is_retry=False)
    assert admission.allowed and admission.probe
    [row] = await store.health_rows()
    assert row.probe_holder == "r1"
    await store.close()


async def test_retry_budget_is_shared_and_has_a_floor(db_url):
    from routing.capacity import CapacityPolicy

    store = await migrated(db_url)
    policy = CapacityPolicy(budget_floor=2, budget_ratio=0.1)
    verdicts = [(await store.admit_call("p", "r", is_retry=True, policy=policy)).allowed for _ in range(4)]
    assert verdicts == [True, True, False, False]
    other = Store(db_url)  # another worker sees the same budget
    refused = await other.admit_call("p", "r2", is_retry=True, policy=policy)
    assert (refused.allowed, refused.rule) == (False, "budget.retries_exhausted")
    assert (await other.admit_call("p", "r3", is_retry=False, policy=policy)).allowed  # first tries still pass
    await other.close()
    await store.close()


async def test_retry_after_is_a_floor_for_every_caller_of_the_provider(db_url):
    store = await migrated(db_url)
    await store.set_health("p", None, HealthState.short_retry, utcnow_plus(5), "rate_limited", "r1")
    admission = await store.admit_call("p", "r2", is_retry=False)
    assert admission.allowed and 4 < admission.wait_s <= 5
    await store.close()


def utcnow_minus(seconds: float):
    from store.repository import utcnow

    return utcnow() - timedelta(seconds=seconds)


def utcnow_plus(seconds: float):
    from store.repository import utcnow

    return utcnow() + timedelta(seconds=seconds)


async def test_a_quota_paces_calls_across_workers(db_url):
    store, other = await migrated(db_url), Store(db_url)
    admissions = [
        await s.admit_call("p", f"r{i}", False, requests_per_minute=60)
        for i, s in enumerate([store, other, store, other])
    ]
    assert admissions[0].wait_s == 0
    slots = [a.slot_at for a in admissions]
    assert all((b - a).total_seconds() >= 1.0 for a, b in itertools.pairwise(slots))  # one slot a second, whoever asks
    await other.close()
    await store.close()


async def test_concurrent_calls_on_many_workers_lose_no_count(db_url):
    """Every admission and every failure is counted in the shared window, however many race (the row lock)."""
    from routing.capacity import CapacityPolicy

    store, other = await migrated(db_url), Store(db_url)
    policy = CapacityPolicy(min_volume=100)  # keep the breaker closed: this is about the counts
    answers = await asyncio.gather(
        *[s.admit_call("p", f"r{i}", is_retry=i % 4 == 0, policy=policy) for i, s in enumerate([store, other] * 10)]
    )
    retries = [a for i, a in enumerate(answers) if i % 4 == 0]
    assert all(a.allowed for i, a in enumerate(answers) if i % 4)  # first tries always pass
    assert sum(a.allowed for a in retries) == policy.budget_floor  # five retries raced for a budget of three
    await asyncio.gather(*[s.note_failure("p", "timeout", f"r{i}", policy) for i, s in enumerate([store, other] * 6)])
    [row] = await store.health_rows()
    assert (row.window_requests, row.window_retries, row.window_failures, row.failure_streak) == (18, 3, 12, 12)
    await other.close()
    await store.close()


# --- provider identity: health, breaker, budget and pacer belong to what they describe -------------------------
def two_workspaces_naming_claude() -> tuple[WorkspaceConfig, WorkspaceConfig]:
    a = WorkspaceConfig(
        name="team-a",
        provider_order=["claude"],
        providers={"claude": ExecutionProfile(base_url="https://proxy.a.example/v1", credential_env="A_KEY")},
    )
    b = WorkspaceConfig(
        name="team-b",
        provider_order=["claude", "backup"],
        providers={
            "claude": ExecutionProfile(base_url="https://api.b.example/v1", credential_env="B_KEY"),
            "backup": ExecutionProfile(base_url="https://backup.example/v1"),
        },
    )
    return a, b


async def test_two_workspaces_providers_of_one_name_keep_separate_health(db_url):
    from routing.identity import provider_key

    store = await migrated(db_url)
    a, b = two_workspaces_naming_claude()
    await store.save_workspace(a)
    await store.save_workspace(b)
    key_a, key_b = provider_key(a.providers["claude"]), provider_key(b.providers["claude"])
    await store.set_health("claude", None, HealthState.user_action_required, None, "auth_required", "r1", key=key_a)
    assert [h.state for h in await store.list_health(b)] == []  # b's claude is another provider
    [mine] = await store.list_health(a)
    assert (mine.provider, mine.provider_key, mine.state) == ("claude", key_a, HealthState.user_action_required)
    by_names = await store.list_health(["claude", "backup"])  # the old call: every identity of those names
    assert {h.provider_key for h in by_names} == {key_a}
    for i in range(6):  # b's breaker opens on its own failures only
        await store.admit_call("claude", f"b{i}", False, key=key_b)
        await store.note_failure("claude", "provider_unavailable", f"b{i}", key=key_b)
    refused = await store.admit_call("claude", "b9", False, key=key_b)
    assert not refused.allowed
    assert [(r.provider_key, r.state) for r in await store.health_rows() if r.provider_key == key_a] == [
        (key_a, "user_action_required")
    ]
    try:
        await store.key_for("claude")  # a bare name that stands for two providers is refused, not guessed
        raise AssertionError("ambiguous name accepted")
    except ValueError as err:
        assert "2 different providers" in str(err)
    assert await store.clear_health(key_a) == 1  # the operator can name one identity by its key
    await store.close()


async def test_workspaces_sharing_endpoint_and_key_share_protection(db_url):
    from routing.identity import provider_key

    store = await migrated(db_url)
    shared = ExecutionProfile(base_url="https://api.example/v1", credential_env="TEAM_KEY")
    a = WorkspaceConfig(name="a", provider_order=["claude"], providers={"claude": shared})
    b = WorkspaceConfig(name="b", provider_order=["anthropic"], providers={"anthropic": shared})
    await store.save_workspace(a)
    await store.save_workspace(b)
    await store.set_health("claude", None, HealthState.degraded, T0 + timedelta(days=9999), "overloaded", "r1")
    [seen_by_b] = await store.list_health(b)
    assert seen_by_b.provider_key == provider_key(shared) and seen_by_b.state is HealthState.degraded
    await store.close()


async def test_close_turn_is_idempotent_by_run_and_attempt_and_restores_its_own_identity(db_url):
    from routing.identity import provider_key

    store = await migrated(db_url)
    a, b = two_workspaces_naming_claude()
    key_a, key_b = provider_key(a.providers["claude"]), provider_key(b.providers["claude"])
    for key in (key_a, key_b):
        await store.set_health("claude", None, HealthState.user_action_required, None, "auth_required", "r0", key=key)
    attempt = {
        "run_id": "r1",
        "seq": 1,
        "provider": "claude",
        "provider_key": key_a,
        "execution_profile": "claude/standard",
        "outcome": "succeeded",
        "started_at": T0,
        "finished_at": T0,
    }
    await store.append_transcript("r1", 1, "user", "hi")
    results = [await store.close_turn(TurnClose("r1", 2, "answer", "claude", attempt, None)) for _ in range(3)]
    assert [r.inserted for r in results] == [True, False, False]
    assert [e.content for e in await store.read_transcript("r1", 9)] == ["hi", "answer"]
    states = {r.provider_key: r.state for r in await store.health_rows()}
    assert states == {key_a: "healthy", key_b: "user_action_required"}
    await store.close()


@pytest.mark.parametrize("unhealthy", [False, True], ids=["one-statement close", "locked close"])
async def test_a_lost_workers_late_close_never_gives_a_turn_two_answers(db_url, unhealthy):
    """Attempt 1's worker stalled: the workflow booked it as lost and sent the turn again as attempt 2, and the
    stalled worker came back and closed attempt 1 too, after the booking or before it. Either way the turn has
    one answer, the one the retry returns, and one succeeded attempt: attempt 1 stays booked as lost."""
    from routing.identity import provider_key

    a, _ = two_workspaces_naming_claude()
    key = provider_key(a.providers["claude"])
    store = await migrated(db_url)
    if unhealthy:  # a provider with a failure streak takes the locked close
        await store.set_health("claude", None, HealthState.short_retry, None, "timeout", "r0", key=key)
    for run, late_first in (("after", False), ("first", True)):
        base = {"run_id": run, "provider": "claude", "provider_key": key, "execution_profile": "claude/standard",
                "started_at": T0, "finished_at": T0}  # fmt: skip
        lost = base | {"seq": 1, "outcome": "failed", "code": "worker_lost", "decision": "short_retry"}
        late, retry = base | {"seq": 1, "outcome": "succeeded"}, base | {"seq": 2, "outcome": "succeeded"}
        await store.append_transcript(run, 1, "user", "hi")
        if late_first:
            assert (await store.close_turn(TurnClose(run, 2, "late answer", "claude", late, None))).inserted
            assert await store.record_attempt(lost, supersede_success=True)  # the booking wins over the late row
        else:
            assert await store.record_attempt(lost, supersede_success=True)
            closed = await store.close_turn(TurnClose(run, 2, "late answer", "claude", late, None))
            assert not closed.inserted  # the booked attempt is the fence: no late answer either
            assert [e.content for e in await store.read_transcript(run, 9)] == ["hi"]
        closed = await store.close_turn(TurnClose(run, 2, "the answer", "claude", retry, None))
        expected = "late answer" if late_first else "the answer"
        assert (closed.inserted, closed.answer) == (True, expected)  # what the run returns is what it keeps
        assert [e.content for e in await store.read_transcript(run, 9)] == ["hi", expected]
        assert [(r.seq, r.outcome, r.code) for r in await store.list_attempts(run)] == [
            (1, "failed", "worker_lost"),
            (2, "succeeded", None),
        ]
        assert not await store.record_attempt(lost, supersede_success=True)  # a retried booking changes nothing
    await store.close()


async def test_store_faults_are_told_apart_from_bad_data_on_the_real_database(db_url):
    """A terminated connection is an outage to wait out; a NUL byte PostgreSQL refuses is bad data, refused
    once with a message that names what was written (SQLite stores it as U+FFFD after the boundary)."""
    import asyncpg
    import pytest
    from temporalio.exceptions import ApplicationError

    from activities.bookkeeping import close_turn, is_outage, open_turn
    from contracts.failures import STORE_REJECTED

    store = await migrated(db_url)
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
