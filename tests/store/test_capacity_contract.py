"""The capacity contract: what every implementation of store.capacity.Capacity does, run against each of them on
the backends they serve: row locks on SQLite (the embedded backend), compare-and-set on PostgreSQL (the production
backend), and row locks on PostgreSQL (which the compare-and-set path uses for its rarer writes). Admission and its
turn opening, a turn's close and the restore it carries, the shared breaker and its single half-open probe, the
retry budget, the pacer and the learned rate, health evidence, and provider identities."""

import asyncio
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import update

from routing.capacity import CallRequest, CapacityPolicy
from routing.config import ExecutionProfile, WorkspaceConfig
from routing.decider import HealthState
from routing.identity import provider_key
from store.capacity import Capacity
from store.capacity_cas import CompareAndSetCapacity
from store.capacity_locking import LockingCapacity
from store.migrate import migrate
from store.repository import Store
from store.rows import TurnClose, TurnOpening, utcnow
from store.tables import ProviderHealthRow
from tests.postgres import migrated_database

T0 = datetime(2026, 11, 29, 12, tzinfo=UTC)
OURS = ExecutionProfile(base_url="https://ours.example/v1", credential_env="OURS_KEY")
KEY = provider_key(OURS)
IMPLEMENTATIONS: dict[str, type[LockingCapacity]] = {
    "sqlite-locking": LockingCapacity,
    "postgresql-compare-and-set": CompareAndSetCapacity,
    "postgresql-locking": LockingCapacity,
}


@dataclass
class Backend:
    """One database and a way to open workers on it, each with its own store and the implementation under test."""

    url: str
    implementation: type[LockingCapacity]
    stores: list[Store] = field(default_factory=list)

    def worker(self) -> tuple[Store, Capacity]:
        store = Store(self.url)
        store.capacity = self.implementation(store.database, store.config)
        self.stores.append(store)
        return store, store.capacity

    async def set_rows(self, **values: Any) -> None:
        """What time (or another writer) did to the provider's rows."""
        store = self.stores[0]
        async with store.db() as s:
            await s.execute(update(ProviderHealthRow).values(**values))
            await s.commit()


@pytest.fixture(params=list(IMPLEMENTATIONS))
async def backend(request: pytest.FixtureRequest, tmp_path: Any) -> AsyncIterator[Backend]:
    implementation = IMPLEMENTATIONS[request.param]
    if request.param.startswith("sqlite"):
        url = f"sqlite:///{tmp_path / 'office.db'}"
        await migrate(url)
        found = Backend(url, implementation)
        yield found
        for store in found.stores:
            await store.close()
        return
    async with migrated_database() as url:
        found = Backend(url, implementation)
        yield found
        for store in found.stores:
            await store.close()


@pytest.fixture
async def capacity(backend: Backend) -> Capacity:
    """The first worker's capacity, its workspace naming the provider `ours`."""
    store, capacity = backend.worker()
    await store.save_workspace(WorkspaceConfig(name="team", provider_order=["ours"], providers={"ours": OURS}))
    return capacity


def seconds_ago(seconds: float) -> datetime:
    return utcnow() - timedelta(seconds=seconds)


def succeeded(run_id: str, seq: int, key: str = KEY, provider: str = "ours") -> dict[str, Any]:
    """A succeeded attempt row, as an executor closes it."""
    return {"run_id": run_id, "seq": seq, "provider": provider, "provider_key": key,
            "execution_profile": f"{provider}/standard", "outcome": "succeeded", "started_at": T0,
            "finished_at": T0}  # fmt: skip


def answered(run_id: str, key: str = KEY, model: str | None = None) -> TurnClose:
    """Turn 1's answer (transcript seq 2) and its attempt row."""
    return TurnClose(run_id, 2, "answer", "ours", succeeded(run_id, 1, key), model)


async def row(backend: Backend, model: str = "") -> ProviderHealthRow:
    [found] = [r for r in await backend.stores[0].health_rows() if r.model == model]
    return found


# --- admission and the turn it opens -------------------------------------------------------------------------
async def test_a_first_admission_creates_the_row_healthy_and_opens_the_turn_once(backend, capacity):
    store = backend.stores[0]
    await store.append_transcript("r1", 1, "user", "first")
    await store.append_transcript("r1", 2, "assistant", "answer", "ours")
    for _ in range(2):  # an admission repeated (an activity retry) opens nothing twice
        admission, snapshot = await capacity.admit_and_open("ours", CallRequest("r1"), TurnOpening("r1", 3, "second"))
        assert admission.allowed and admission.wait_s <= 0
        assert [(e.seq, e.role, e.content) for e in snapshot or []] == [
            (1, "user", "first"), (2, "assistant", "answer"), (3, "user", "second"),
        ]  # fmt: skip
    assert [e.content for e in await store.read_transcript("r1", 9)] == ["first", "answer", "second"]
    found = await row(backend)
    assert (found.provider_key, found.state, found.window_requests) == (KEY, "healthy", 2)


async def test_a_refused_or_waiting_call_opens_no_turn(backend, capacity):
    store = backend.stores[0]
    await capacity.set_health("ours", None, HealthState.short_retry, utcnow() + timedelta(seconds=30), "x", "r0")
    waiting, snapshot = await capacity.admit_and_open("ours", CallRequest("r1"), TurnOpening("r1", 1, "hi"))
    assert waiting.allowed and 25 < waiting.wait_s <= 30 and snapshot is None
    await capacity.set_health("ours", None, HealthState.degraded, utcnow() + timedelta(days=1), "x", "r0")
    refused, snapshot = await capacity.admit_and_open("ours", CallRequest("r2"), TurnOpening("r2", 1, "hi"))
    assert (refused.allowed, refused.rule, snapshot) == (False, "breaker.open", None)
    assert await store.read_transcript("r1", 9) == [] and await store.read_transcript("r2", 9) == []


async def test_concurrent_calls_on_many_workers_lose_no_count(backend, capacity):
    """Every admission and every failure is counted in the shared window, however many race."""
    _, other = backend.worker()
    policy = CapacityPolicy(min_volume=100)  # keep the breaker closed: this is about the counts
    workers = [capacity, other] * 10
    answers = await asyncio.gather(
        *[c.admit_call("ours", f"r{i}", is_retry=i % 4 == 0, policy=policy) for i, c in enumerate(workers)]
    )
    retries = [a for i, a in enumerate(answers) if i % 4 == 0]
    assert all(a.allowed for i, a in enumerate(answers) if i % 4)  # first tries always pass
    assert sum(a.allowed for a in retries) == policy.budget_floor  # five retries raced for a budget of three
    await asyncio.gather(*[c.note_failure("ours", "timeout", f"r{i}", policy) for i, c in enumerate(workers[:12])])
    found = await row(backend)
    assert (found.window_requests, found.window_retries, found.window_failures, found.failure_streak) == (
        18, 3, 12, 12,
    )  # fmt: skip


async def test_an_admission_never_stands_on_a_row_another_worker_changed(backend, capacity):
    """A worker's next admission is judged by the row as it is, not as that worker last saw it."""
    store, other = backend.stores[0], backend.worker()[1]
    await capacity.admit_and_open("ours", CallRequest("r1"), TurnOpening("r1", 1, "hi"))
    await other.set_health("ours", None, HealthState.degraded, utcnow().replace(year=2099), "x", "r0")
    refused, snapshot = await capacity.admit_and_open("ours", CallRequest("r2"), TurnOpening("r2", 1, "hi"))
    assert (refused.allowed, refused.rule, snapshot) == (False, "breaker.open", None)
    await other.clear_health("ours")
    await other.admit_and_open("ours", CallRequest("r3"), None)
    admitted, _ = await capacity.admit_and_open("ours", CallRequest("r4"), TurnOpening("r4", 1, "hi"))
    assert admitted.allowed
    assert (await row(backend)).window_requests == 2  # r3 and r4 since the clear: neither overwritten
    assert [e.content for e in await store.read_transcript("r4", 9)] == ["hi"]


# --- the breaker and its single half-open probe --------------------------------------------------------------
async def test_the_shared_breaker_opens_on_a_failing_window_and_lets_one_probe_through(backend, capacity):
    _, other = backend.worker()
    policy = CapacityPolicy(min_volume=4, failure_ratio=0.5)
    opened = []
    for i in range(4):
        assert (await capacity.admit_call("ours", f"r{i}", is_retry=False, policy=policy)).allowed
        opened.append(await capacity.note_failure("ours", "provider_unavailable", f"r{i}", policy))
    assert opened == [False, False, False, True]  # judged only once the window holds min_volume requests
    assert not await capacity.note_failure("ours", "rate_limited", "r5", policy)  # capacity is not breakage
    found = await row(backend)
    assert found.state == "degraded" and found.retry_at is not None
    refused = await other.admit_call("ours", "r9", is_retry=False, policy=policy)  # open for every worker
    assert (refused.allowed, refused.rule) == (False, "breaker.open") and (refused.retry_after_s or 0) > 0

    await backend.set_rows(retry_at=seconds_ago(1))  # cooling over: exactly one of many callers probes
    answers = await asyncio.gather(
        *[c.admit_call("ours", f"c{i}", False, policy=policy) for i, c in enumerate([capacity, other] * 4)]
    )
    assert sum(a.allowed for a in answers) == 1 and [a.probe for a in answers if a.allowed] == [True]
    assert {a.rule for a in answers if not a.allowed} == {"breaker.probe_in_flight"}
    [probe] = [f"c{i}" for i, a in enumerate(answers) if a.allowed]
    assert (await capacity.admit_call("ours", probe, False, policy=policy)).probe  # the holder may ask again


async def test_a_failed_probe_releases_its_lease_and_opens_the_breaker_a_step_longer(backend, capacity):
    policy = CapacityPolicy(min_volume=4, failure_ratio=0.5)
    await capacity.admit_call("ours", "r0", False, policy=policy)
    await backend.set_rows(state="degraded", retry_at=seconds_ago(1), last_code="provider_unavailable")
    assert (await capacity.admit_call("ours", "probe", False, policy=policy)).probe
    first_cooling = (await row(backend)).probe_holder
    assert first_cooling == "probe"
    assert await capacity.note_failure("ours", "provider_unavailable", "probe", policy)  # re-opened
    found = await row(backend)
    assert (found.state, found.probe_holder, found.backoff_step) == ("degraded", None, 1)
    refused = await capacity.admit_call("ours", "r1", False, policy=policy)
    assert refused.rule == "breaker.open" and (refused.retry_after_s or 0) > 30  # the second cooling is longer


async def test_an_expired_probe_lease_passes_to_the_next_caller(backend, capacity):
    """A probe holder that died must not keep the provider closed past its lease."""
    await capacity.admit_call("ours", "r0", is_retry=False)
    await backend.set_rows(
        state="degraded", retry_at=seconds_ago(5), probe_holder="dead-run", probe_expires=seconds_ago(1)
    )
    admission = await capacity.admit_call("ours", "r1", is_retry=False)
    assert admission.allowed and admission.probe
    assert (await row(backend)).probe_holder == "r1"


# --- a turn's close and the restore it carries ----------------------------------------------------------------
async def test_the_probes_answer_restores_the_provider_for_every_worker_after_an_outage(backend, capacity):
    store, other = backend.stores[0], backend.worker()[1]
    policy = CapacityPolicy(min_volume=4, failure_ratio=0.5)
    for i in range(4):
        await capacity.admit_call("ours", f"r{i}", False, policy=policy)
        await capacity.note_failure("ours", "provider_unavailable", f"r{i}", policy)
    assert not (await other.admit_call("ours", "x", False, policy=policy)).allowed
    await backend.set_rows(retry_at=seconds_ago(1))
    probe, snapshot = await capacity.admit_and_open("ours", CallRequest("p"), TurnOpening("p", 1, "hi"), policy)
    assert probe.probe and [e.content for e in snapshot or []] == ["hi"]
    closed = await capacity.close_turn(answered("p"))
    assert (closed.inserted, closed.answer) == (True, "answer")
    found = await row(backend)
    assert (found.state, found.probe_holder, found.failure_streak, found.retry_at) == ("healthy", None, 0, None)
    assert (await other.admit_call("ours", "after", False, policy=policy)).allowed
    states = [(e.state, e.run_id) for e in await store.health_events()]
    assert states == [("degraded", "r3"), ("healthy", "p")]  # the outage and its end, audited once each


async def test_a_success_restores_the_provider_and_the_model_that_ran_once_with_its_audit_event(backend, capacity):
    store = backend.stores[0]
    await capacity.set_health("ours", None, HealthState.user_action_required, None, "auth_required", "r0")
    await capacity.set_health("ours", "m1", HealthState.degraded, T0, "model_capacity", "r0")
    await capacity.set_health("ours", "m9", HealthState.degraded, T0, "model_capacity", "r0")
    await store.append_transcript("r1", 1, "user", "hi")
    results = [await capacity.close_turn(answered("r1", model="m1")) for _ in range(2)]
    assert [(r.inserted, r.answer) for r in results] == [(True, "answer"), (False, "answer")]
    states = {r.model: r.state for r in await capacity.health_rows()}
    assert states == {"": "healthy", "m1": "healthy", "m9": "degraded"}  # another model's record stands
    restored = await capacity.health_events(run_id="r1")
    assert sorted((e.model, e.state) for e in restored) == [("", "healthy"), ("m1", "healthy")]
    assert [e.content for e in await store.read_transcript("r1", 9)] == ["hi", "answer"]
    assert [a.outcome for a in await store.list_attempts("r1")] == ["succeeded"]


async def test_an_explicit_restore_leaves_other_models_alone(backend, capacity):
    await capacity.set_health("ours", None, HealthState.degraded, T0 + timedelta(seconds=30), "rate_limited", "r1")
    await capacity.set_health("ours", None, HealthState.degraded, T0 + timedelta(seconds=60), "rate_limited", "r2")
    await capacity.set_health("ours", "m-old", HealthState.user_action_required, None, "model_unavailable", "r2")
    assert (await row(backend)).backoff_step == 1  # the same verdict again climbs a step
    records = {(h.provider, h.model): h for h in await capacity.list_health()}
    assert records[("ours", None)].retry_at == T0 + timedelta(seconds=60)
    assert records[("ours", "m-old")].state is HealthState.user_action_required
    await capacity.restore_health("ours", "m-new", "r3")
    records = {(h.provider, h.model): h for h in await capacity.list_health()}
    assert {k: h.state for k, h in records.items()} == {
        ("ours", None): HealthState.healthy,
        ("ours", "m-old"): HealthState.user_action_required,
    }
    assert await capacity.clear_health("ours", "m-old") == 1


async def test_a_success_starts_the_failure_streak_over_so_scattered_failures_never_open_the_breaker(backend, capacity):
    """The breaker opens after `failure_streak` failures *in a row*: a provider failing 1 call in 5 for ever
    stays closed, and a streak reset alone writes no health event."""
    for i in range(61):  # 12 failures, each after four successes
        run = f"r{i}"
        await capacity.admit_and_open("ours", CallRequest(run), TurnOpening(run, 1, "hi"))
        if i % 5 == 4:
            assert not await capacity.note_failure("ours", "provider_unavailable", run)
        else:
            await capacity.close_turn(answered(run))
    found = await row(backend)
    assert (found.state, found.failure_streak) == ("healthy", 0)
    assert await capacity.health_events() == []


@pytest.mark.parametrize("unhealthy", [False, True], ids=["nothing to restore", "a streak to restore"])
async def test_a_lost_workers_late_close_never_gives_a_turn_two_answers(backend, capacity, unhealthy):
    """Attempt 1's worker stalled: the workflow booked it as lost and sent the turn again as attempt 2, and the
    stalled worker came back and closed attempt 1 too, after the booking or before it. Either way the turn has
    one answer, the one the retry returns, and one succeeded attempt: attempt 1 stays booked as lost."""
    store = backend.stores[0]
    if unhealthy:  # a provider with a failure streak: the close restores it too
        await capacity.set_health("ours", None, HealthState.short_retry, None, "timeout", "r0")
    for run, late_first in (("after", False), ("first", True)):
        lost = succeeded(run, 1) | {"outcome": "failed", "code": "worker_lost", "decision": "short_retry"}
        await store.append_transcript(run, 1, "user", "hi")
        if late_first:
            assert (
                await capacity.close_turn(TurnClose(run, 2, "late answer", "ours", succeeded(run, 1), None))
            ).inserted
            assert await store.record_attempt(lost, supersede_success=True)  # the booking wins over the late row
        else:
            assert await store.record_attempt(lost, supersede_success=True)
            closed = await capacity.close_turn(TurnClose(run, 2, "late answer", "ours", succeeded(run, 1), None))
            assert not closed.inserted  # the booked attempt is the fence: no late answer either
            assert [e.content for e in await store.read_transcript(run, 9)] == ["hi"]
        closed = await capacity.close_turn(TurnClose(run, 2, "the answer", "ours", succeeded(run, 2), None))
        expected = "late answer" if late_first else "the answer"
        assert (closed.inserted, closed.answer) == (True, expected)  # what the run returns is what it keeps
        assert [e.content for e in await store.read_transcript(run, 9)] == ["hi", expected]
        assert [(r.seq, r.outcome, r.code) for r in await store.list_attempts(run)] == [
            (1, "failed", "worker_lost"),
            (2, "succeeded", None),
        ]
        assert not await store.record_attempt(lost, supersede_success=True)  # a retried booking changes nothing


# --- the retry budget, the pacer and the learned rate ---------------------------------------------------------
async def test_the_retry_budget_is_shared_and_has_a_floor(backend, capacity):
    _, other = backend.worker()
    policy = CapacityPolicy(budget_floor=2, budget_ratio=0.1)
    verdicts = [(await capacity.admit_call("ours", "r", is_retry=True, policy=policy)).allowed for _ in range(4)]
    assert verdicts == [True, True, False, False]
    refused = await other.admit_call("ours", "r2", is_retry=True, policy=policy)  # another worker: same budget
    assert (refused.allowed, refused.rule) == (False, "budget.retries_exhausted")
    assert (await other.admit_call("ours", "r3", is_retry=False, policy=policy)).allowed  # first tries still pass


async def test_retry_after_is_a_floor_for_every_caller_of_the_provider(backend, capacity):
    await capacity.set_health("ours", None, HealthState.short_retry, utcnow() + timedelta(seconds=5), "x", "r1")
    admission = await backend.worker()[1].admit_call("ours", "r2", is_retry=False)
    assert admission.allowed and 4 < admission.wait_s <= 5


async def test_a_quota_paces_calls_across_workers(backend, capacity):
    _, other = backend.worker()
    admissions = [
        await c.admit_call("ours", f"r{i}", False, requests_per_minute=60)
        for i, c in enumerate([capacity, other, capacity, other])
    ]
    assert admissions[0].wait_s == 0
    slots = [a.slot_at for a in admissions]
    assert all(a and b and (b - a).total_seconds() >= 1.0 for a, b in itertools.pairwise(slots))


Teach = Callable[[Capacity], Awaitable[object]]


@pytest.mark.parametrize(
    "teach",
    [
        lambda c: c.note_failure("ours", "rate_limited", "r0", limit_rpm=60, retry_after_s=0.5),
        lambda c: c.note_rate("ours", 60),
    ],
    ids=["a 429 stating its limit", "an answer's rate-limit headers"],
)
async def test_a_stated_limit_is_learned_and_paces_every_worker_without_opening_the_breaker(
    backend, capacity, teach: Teach
):
    _, other = backend.worker()
    await capacity.admit_call("ours", "r0", False)
    await teach(capacity)
    found = await row(backend)
    assert (found.learned_rpm, found.rate_stated, found.state != "degraded") == (60, True, True)
    slots = [(await c.admit_call("ours", f"r{i}", False)).slot_at for i, c in enumerate([capacity, other] * 2)]
    gaps = [(b - a).total_seconds() for a, b in itertools.pairwise(slots) if a and b]
    assert gaps and min(gaps) >= 1.0  # 60 a minute, whoever asks: no quota was declared


async def test_a_429_that_teaches_no_rate_holds_callers_for_its_retry_after(backend, capacity):
    await capacity.admit_call("ours", "r0", False)
    assert not await capacity.note_failure("ours", "rate_limited", "r0", retry_after_s=2.0)
    found = await row(backend)
    assert (found.learned_rpm, found.state) == (None, "short_retry")  # one conversation's 429 is not a rate
    admission = await backend.worker()[1].admit_call("ours", "r1", False)
    assert admission.allowed and 1 < admission.wait_s <= 2


async def test_a_failure_of_a_provider_never_admitted_counts_nothing(backend, capacity):
    assert not await capacity.note_failure("ours", "provider_unavailable", "r1")
    assert await capacity.health_rows() == []


# --- evidence and provider identities --------------------------------------------------------------------------
async def test_run_evidence_never_closes_an_open_breaker(backend, capacity):
    await capacity.set_health("ours", None, HealthState.degraded, utcnow() + timedelta(seconds=60), "x", "r1")
    await capacity.set_health("ours", None, HealthState.short_retry, utcnow() + timedelta(seconds=1), "y", "r2")
    assert (await row(backend)).state == "degraded"
    assert not (await capacity.admit_call("ours", "r3", False)).allowed


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


async def test_two_workspaces_providers_of_one_name_keep_separate_health(backend, capacity):
    store = backend.stores[0]
    a, b = two_workspaces_naming_claude()
    await store.save_workspace(a)
    await store.save_workspace(b)
    key_a, key_b = provider_key(a.providers["claude"]), provider_key(b.providers["claude"])
    await capacity.set_health("claude", None, HealthState.user_action_required, None, "auth_required", "r1", key=key_a)
    assert [h.state for h in await capacity.list_health(b)] == []  # b's claude is another provider
    [mine] = await capacity.list_health(a)
    assert (mine.provider, mine.provider_key, mine.state) == ("claude", key_a, HealthState.user_action_required)
    by_names = await capacity.list_health(["claude", "backup"])  # every identity of those names
    assert {h.provider_key for h in by_names} == {key_a}
    for i in range(6):  # b's breaker opens on its own failures only
        await capacity.admit_call("claude", f"b{i}", False, key=key_b)
        await capacity.note_failure("claude", "provider_unavailable", f"b{i}", key=key_b)
    assert not (await capacity.admit_call("claude", "b9", False, key=key_b)).allowed
    assert [(r.provider_key, r.state) for r in await capacity.health_rows() if r.provider_key == key_a] == [
        (key_a, "user_action_required")
    ]
    with pytest.raises(ValueError, match="2 different providers"):  # a bare ambiguous name is refused
        await capacity.admit_call("claude", "x", False)
    assert await capacity.clear_health(key_a) == 1  # the operator can name one identity by its key


async def test_a_close_restores_its_own_identity_only(backend, capacity):
    store = backend.stores[0]
    a, b = two_workspaces_naming_claude()
    key_a, key_b = provider_key(a.providers["claude"]), provider_key(b.providers["claude"])
    for key in (key_a, key_b):
        await capacity.set_health(
            "claude", None, HealthState.user_action_required, None, "auth_required", "r0", key=key
        )
    await store.append_transcript("r1", 1, "user", "hi")
    close = TurnClose("r1", 2, "answer", "claude", succeeded("r1", 1, key_a, "claude"), None)
    assert [(await capacity.close_turn(close)).inserted for _ in range(3)] == [True, False, False]
    assert {r.provider_key: r.state for r in await capacity.health_rows()} == {
        key_a: "healthy",
        key_b: "user_action_required",
    }


async def test_workspaces_sharing_endpoint_and_key_share_protection(backend, capacity):
    store = backend.stores[0]
    shared = ExecutionProfile(base_url="https://api.example/v1", credential_env="TEAM_KEY")
    await store.save_workspace(WorkspaceConfig(name="a", provider_order=["claude"], providers={"claude": shared}))
    b = WorkspaceConfig(name="b", provider_order=["anthropic"], providers={"anthropic": shared})
    await store.save_workspace(b)
    await capacity.set_health("claude", None, HealthState.degraded, T0 + timedelta(days=9999), "overloaded", "r1")
    [seen_by_b] = await capacity.list_health(b)
    assert seen_by_b.provider_key == provider_key(shared) and seen_by_b.state is HealthState.degraded
