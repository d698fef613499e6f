"""The one turn pipeline every executor goes through (activities.turn_pipeline), on a real SQLite store with the
in-process scripted executor: what the run keeps, what the provider's shared window learns, and what happens to the
executor's session when a turn fails or is cancelled."""

import asyncio
import dataclasses
from datetime import UTC, datetime, timedelta

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.turn_pipeline import Turn, TurnAnswer, TurnCommitted, run_turn
from contracts.failures import provider_failure_of
from routing.classifier import FailureSignal
from routing.codes import ErrorCode
from routing.config import ExecutionProfile
from routing.conversation import ANSWER_IN_HISTORY_CHARS
from routing.identity import provider_key
from routing.repository import RunResult, TurnCommit
from routing.run import Candidate
from store.migrate import migrate
from store.repository import Store
from testkit.scripted_executor import ScriptedExecutor, started_on

PROFILE = ExecutionProfile(base_url="http://provider.invalid/v1")
CAND = Candidate(provider="p", execution_profile="p/std", profile=PROFILE, tier="std", requested_model="m")
OVERLOADED = FailureSignal(
    status=529, body='{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
)


@pytest.fixture
async def store(tmp_path):
    url = f"sqlite:///{tmp_path / 'office.db'}"
    await migrate(url)
    store = Store(url)
    yield store
    await store.close()


def activity_env() -> tuple[ActivityEnvironment, list, asyncio.Event]:
    env, beats, beaten = ActivityEnvironment(), [], asyncio.Event()
    env.info = dataclasses.replace(
        env.info,
        started_time=datetime.now(UTC),
        heartbeat_timeout=timedelta(seconds=3),
        workflow_id="r1",
    )

    def on_heartbeat(*details):
        beats.append(details[0] if details else None)
        beaten.set()

    env.on_heartbeat = on_heartbeat
    return env, beats, beaten


def turn(user_seq: int = 1, text: str = "hi", attempt: int = 1, **kw) -> Turn:
    return Turn(run_id="r1", attempt_seq=attempt, candidate=CAND, user_seq=user_seq, user_text=text, **kw)


async def test_a_first_turn_starts_the_session_answers_and_stores_answer_and_attempt_together(store):
    executor = ScriptedExecutor([TurnAnswer("hello back", model="m-2025")])
    out = await run_turn(store, turn(), executor)
    assert executor.starts == 1 and [e.content for e in executor.prompts[0]] == ["hi"]
    assert out.output.text == "hello back" and out.output.transcript_seq == 2
    assert out.started.effective_model == executor.model
    assert [(e.seq, e.role, e.content) for e in await store.read_transcript("r1", 9)] == [
        (1, "user", "hi"),
        (2, "assistant", "hello back"),
    ]
    [attempt] = await store.list_attempts("r1")
    assert (attempt.outcome, attempt.effective_model) == ("succeeded", "m-2025")  # the model that answered
    assert executor.closes == []  # a live session stays open for the next turn


async def test_a_long_answer_is_whole_in_the_transcript_and_only_its_head_reaches_the_workflow(store):
    long = "line of agent output\n" * 5_000  # 105,000 characters
    out = await run_turn(store, turn(), ScriptedExecutor([TurnAnswer(long)]))
    assert out.output.chars == len(long)
    assert len(out.output.text) < ANSWER_IN_HISTORY_CHARS + 200  # what the run's history holds
    assert "the whole answer is entry 2 of run r1's transcript" in out.output.text
    [_, answer] = await store.read_transcript("r1", 9)
    assert len(answer.content) == out.output.chars  # all of it, for `office runs show`


async def test_a_later_turn_on_a_live_session_sends_the_run_transcript_and_never_starts_again(store):
    executor = ScriptedExecutor()
    await run_turn(store, turn(), executor)
    await run_turn(store, turn(user_seq=3, text="and then?", attempt=2, started=started_on("m")), executor)
    assert executor.starts == 1
    assert [e.content for e in executor.prompts[1]] == ["hi", "answer to hi", "and then?"]


async def test_a_provider_failure_is_classified_counted_and_ends_the_session_keeping_its_changes(store):
    executor = ScriptedExecutor([OVERLOADED])
    with pytest.raises(ApplicationError) as caught:
        await run_turn(store, turn(attempt=3), executor)
    failure = provider_failure_of(caught.value)
    assert failure is not None and failure.code is ErrorCode.provider_overloaded
    assert executor.closes == [3]  # the attempt's partial changes are kept on their side ref
    assert await store.list_attempts("r1") == []  # a failed attempt is the workflow's to record, with its decision
    [row] = [r for r in await store.health_rows() if r.provider_key == provider_key(PROFILE)]
    assert row.window_failures >= 1  # the shared window learned of it without a workflow round trip


async def test_after_enough_failures_the_breaker_refuses_and_the_provider_is_never_called(store):
    for n in range(1, 30):
        executor = ScriptedExecutor([OVERLOADED])
        with pytest.raises(ApplicationError) as caught:
            await run_turn(store, turn(user_seq=2 * n - 1, attempt=n), executor)
        failure = provider_failure_of(caught.value)
        assert failure is not None
        if failure.code is ErrorCode.circuit_open:
            break
    else:
        pytest.fail("the breaker never opened")
    assert executor.starts == 0 and executor.prompts == []  # refused before any call
    assert executor.closes == [None]  # nothing was called, so nothing of the attempt to keep


async def test_a_cancelled_call_is_cancelled_at_the_executor_and_its_session_ends(store):
    executor = ScriptedExecutor(hang=True)
    task = asyncio.create_task(run_turn(store, turn(attempt=2), executor))
    await executor.prompted.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert executor.cancels == 1 and executor.closes == [2]


async def test_the_turn_commit_is_carried_to_the_run_and_a_commit_failure_keeps_the_changes(store):
    commit = TurnCommit(commit="a" * 40, changed=True, files_changed=1, insertions=2)
    result = RunResult(branch="office/r1", base_commit="b" * 40, head_commit="a" * 40, files_changed=1)
    executor = ScriptedExecutor(commits=TurnCommitted(commit, result))
    out = await run_turn(store, turn(), executor)
    assert (out.commit, out.result) == (commit, result) and executor.committed == [(1, executor.model)]

    broken = ScriptedExecutor(commits=ApplicationError("branch moved", type="ConfigError", non_retryable=True))
    with pytest.raises(ApplicationError, match="branch moved"):
        await run_turn(store, turn(user_seq=3, attempt=2, started=started_on("m")), broken)
    assert broken.closes == [2]


async def test_a_stated_rate_limit_is_learned_for_the_provider_key(store):
    await run_turn(store, turn(), ScriptedExecutor([TurnAnswer("ok", limit_rpm=120.0)]))
    [row] = [r for r in await store.health_rows() if r.provider_key == provider_key(PROFILE)]
    assert row.learned_rpm == 120.0


async def test_the_pending_activity_shows_the_executor_progress_while_it_waits(store):
    env, beats, beaten = activity_env()
    executor = ScriptedExecutor(hang=True)
    task = asyncio.create_task(env.run(run_turn, store, turn(text="secret prompt"), executor))
    await beaten.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert beats[0] == {"message_chunks": 1}  # at once, counts only: content stays out of Temporal
