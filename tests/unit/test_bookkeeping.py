"""Store faults are infrastructure, not provider faults: the activities wait for the store, show that they wait,
never classify an outage as the provider's, and never ask a provider again for an answer they already hold."""

import dataclasses
import sqlite3
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlalchemy import exc as sa_exc
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.bookkeeping import is_outage, store_retrying
from activities.boundary import RunBoundary
from activities.session import SessionActivities
from contracts.activities import SessionTurnInput
from contracts.failures import PROVIDER_FAILURE, STORE_REJECTED, STORE_UNAVAILABLE
from office.simulator.config import InjectedFailure, SimConfig, SimProvider
from office.simulator.server import SimulatorServer
from routing.config import ExecutionProfile, WorkspaceConfig
from routing.run import Candidate
from store.migrate import migrate
from store.repository import Store


def activity_env(start_to_close_s: float = 60.0, heartbeat_s: float = 3.0) -> tuple[ActivityEnvironment, list]:
    env, beats = ActivityEnvironment(), []
    env.info = dataclasses.replace(
        env.info,
        started_time=datetime.now(UTC),
        start_to_close_timeout=timedelta(seconds=start_to_close_s),
        schedule_to_close_timeout=None,
        heartbeat_timeout=timedelta(seconds=heartbeat_s),
        workflow_id="r1",
        workflow_type="OfficeRunWorkflow",
    )
    env.on_heartbeat = lambda *details: beats.append(details[0] if details else None)
    return env, beats


def refused() -> OSError:
    return ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 5432)")


def dropped() -> sa_exc.DBAPIError:
    """What SQLAlchemy raises when the server terminated the connection under a statement."""
    return sa_exc.DBAPIError("SELECT secret FROM t", {"p": 1}, ConnectionResetError("connection reset"), True)


def nul_refused() -> sa_exc.DBAPIError:
    orig = Exception('invalid byte sequence for encoding "UTF8": 0x00')
    orig.sqlstate = "22021"  # type: ignore[attr-defined]
    return sa_exc.DBAPIError("INSERT INTO transcript_entries VALUES ($1)", ("a\x00b",), orig)


@pytest.mark.parametrize(
    ("err", "outage"),
    [
        (refused(), True),
        (TimeoutError(), True),
        (dropped(), True),
        (sa_exc.OperationalError("x", {}, sqlite3.OperationalError("database is locked")), True),
        (sa_exc.OperationalError("x", {}, sqlite3.OperationalError("no such table: attempts")), False),
        (nul_refused(), False),
        (ValueError("a bug"), False),
        (ApplicationError("a provider failure", type=f"{PROVIDER_FAILURE}.timeout"), False),
    ],
)
def test_what_counts_as_the_store_being_out(err, outage):
    assert is_outage(err) is outage


class Flaky:
    """An awaitable factory that fails `times` times with `error()`, then answers."""

    def __init__(self, times: int, error=refused):
        self.times, self.error, self.calls = times, error, 0

    async def __call__(self) -> str:
        self.calls += 1
        if self.calls <= self.times:
            raise self.error()
        return "done"


async def test_an_outage_is_waited_out_and_the_pending_activity_says_so():
    env, beats = activity_env()
    op = Flaky(times=4, error=dropped)
    assert await env.run(store_retrying, op, "recording the answer of turn 1") == "done"
    assert op.calls == 5
    waiting = [b for b in beats if b and b.get("waiting_for") == "store"]
    assert waiting and waiting[0]["what"] == "recording the answer of turn 1"
    assert "SELECT" not in str(waiting) and "secret" not in str(waiting)  # no SQL, no parameters
    assert beats[-1]["waiting_for"] is None  # back: the UI no longer shows it waiting


async def test_past_its_bound_the_activity_fails_retryable_as_store_unavailable_without_sql():
    env, _ = activity_env(start_to_close_s=4.0)  # bound: 4 s less a 3 s margin
    op = Flaky(times=10_000, error=dropped)
    with pytest.raises(ApplicationError) as caught:
        await env.run(store_retrying, op, "admitting a call to beta", held={"answer": "kept"})
    err = caught.value
    assert err.type == STORE_UNAVAILABLE and not err.non_retryable
    assert err.details[0]["waiting_for"] == "store" and err.details[0]["held"] == {"answer": "kept"}
    assert "SELECT" not in err.message and "secret" not in err.message
    assert "beta" in err.message and op.calls > 1


async def test_data_the_store_refuses_is_not_retried_and_names_what_was_written():
    op = Flaky(times=1, error=nul_refused)
    with pytest.raises(ApplicationError) as caught:
        await store_retrying(op, "opening turn 1 of r1")
    assert caught.value.type == STORE_REJECTED and caught.value.non_retryable
    assert "opening turn 1 of r1" in caught.value.message and "INSERT" not in caught.value.message
    assert op.calls == 1


# --- the turn activity itself, against a real simulated provider and a store that drops out ------------------


class FlakyStore(Store):
    """A real store whose chosen methods find the database gone `outages[name]` times first; with
    `commit_then_drop`, close_turn commits and then loses the acknowledgement once."""

    def __init__(self, url: str, outages: dict[str, int], commit_then_drop: bool = False):
        super().__init__(url)
        self.outages, self.commit_then_drop = dict(outages), commit_then_drop

    def _fault(self, name: str) -> None:
        if self.outages.get(name, 0) > 0:
            self.outages[name] -= 1
            raise dropped()

    async def admit_call(self, *args, **kwargs):
        self._fault("admit_call")
        return await super().admit_call(*args, **kwargs)

    async def open_turn(self, *args, **kwargs):
        self._fault("open_turn")
        return await super().open_turn(*args, **kwargs)

    async def note_failure(self, *args, **kwargs):
        self._fault("note_failure")
        return await super().note_failure(*args, **kwargs)

    async def close_turn(self, *args, **kwargs):
        self._fault("close_turn")
        inserted = await super().close_turn(*args, **kwargs)
        if self.commit_then_drop:
            self.commit_then_drop = False
            raise dropped()  # committed, but the caller never heard
        return inserted


class ServerSaysOfficeRun(RunBoundary):
    """The boundary with its store check and the server's answer taken as given: these tests have no server."""

    async def check_caller(self, workflow_type: str) -> str:
        return "ws"


@pytest.fixture
async def sim():
    server = await SimulatorServer(SimConfig()).start()
    yield server
    await server.stop()


async def turn(sim, tmp_path, outages, provider=None, commit_then_drop=False):
    url = f"sqlite:///{tmp_path / 'office.db'}"
    await migrate(url)
    store = FlakyStore(url, outages, commit_then_drop)
    await sim.set_provider("beta", provider or SimProvider())
    cand = Candidate(
        provider="beta",
        execution_profile="beta/standard",
        profile=ExecutionProfile(base_url=sim.provider_url("beta")),
        tier="standard",
        requested_model="sim-small",
    )
    await store.save_workspace(WorkspaceConfig(name="ws", provider_order=["beta"], providers={"beta": cand.profile}))
    env, beats = activity_env()
    async with httpx.AsyncClient() as http:
        activities = SessionActivities(store, http, ServerSaysOfficeRun(store, "office-runs"))
        inp = SessionTurnInput(run_id="r1", attempt_seq=1, agent="coder", candidate=cand, user_seq=1, user_text="hi",
                               workspace="ws")  # fmt: skip
        try:
            return await env.run(activities.session_turn, inp), store, beats
        except ApplicationError as err:
            return err, store, beats


async def test_an_answer_whose_bookkeeping_hit_an_outage_is_recorded_once_and_never_asked_again(sim, tmp_path):
    out, store, beats = await turn(sim, tmp_path, {"close_turn": 3}, commit_then_drop=True)
    assert out.output.text and len(await sim.calls()) == 1  # the provider answered once, and only once
    [attempt] = await store.list_attempts("r1")
    assert (attempt.seq, attempt.outcome, attempt.provider) == (1, "succeeded", "beta")
    assert [e.content for e in await store.read_transcript("r1", 9)] == ["hi", out.output.text]
    assert any(b and b.get("waiting_for") == "store" for b in beats)
    assert all(r.state == "healthy" for r in await store.health_rows())
    await store.close()


async def test_an_outage_before_the_call_delays_it_and_never_marks_the_provider(sim, tmp_path):
    out, store, _ = await turn(sim, tmp_path, {"admit_call": 3, "open_turn": 3})
    assert out.output.text and len(await sim.calls()) == 1
    assert [(r.state, r.window_failures) for r in await store.health_rows()] == [("healthy", 0)]
    assert await store.health_events() == []
    await store.close()


async def test_a_provider_failure_stays_the_providers_when_the_store_drops_out_while_counting_it(sim, tmp_path):
    down = SimProvider(failures=[InjectedFailure(status=503, kind="unavailable")])
    err, store, _ = await turn(sim, tmp_path, {"note_failure": 2}, provider=down)
    assert isinstance(err, ApplicationError) and err.type == f"{PROVIDER_FAILURE}.provider_unavailable"
    [row] = await store.health_rows()
    assert row.window_failures == 1  # counted once the store was back
    await store.close()


@pytest.mark.parametrize("field", ["prompt", "follow_ups"])
def test_a_run_request_with_a_nul_byte_is_refused_naming_the_field(field):
    from pydantic import ValidationError

    from routing.run import RunRequest

    fields = {"prompt": "fix it", "follow_ups": ["and then"]}
    fields[field] = "a\x00b" if field == "prompt" else ["ok", "a\x00b"]
    with pytest.raises(ValidationError) as refused:
        RunRequest(run_id="r1", workspace="w", agent="a", **fields)
    assert f"{field} contains a NUL byte" in str(refused.value)


async def test_a_slow_store_call_keeps_the_activity_alive():
    """A hanging store call must not look like a lost worker (which would be classified as the provider's
    timeout): the activity heartbeats while it waits."""
    import asyncio

    env, beats = activity_env(heartbeat_s=0.6)

    async def slow() -> str:
        await asyncio.sleep(1.2)
        return "done"

    assert await env.run(store_retrying, slow, "reading the transcript of r1") == "done"
    assert len(beats) >= 3
