"""Review of the turn pipeline refactor (issue #25, part 1): `acp_turn` driven from the outside, on a real SQLite store
with a stand-in agent session, so the same tests run on the code before the refactor (b3cd7b4) and after it.

What an ACP turn does with its session on each failure (closed, partial changes kept or not) must not have changed;
neither may what the provider key's shared window learns from an agent's relayed failure; and an answer's last
chunks, sent right before the prompt's response, must all be in the answer (the library's connection is now driven
without its `ClientSideConnection` wrapper)."""

import asyncio
import dataclasses
import inspect
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from acp import connect_to_agent
from acp.client.router import build_client_router
from acp.connection import Connection
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

import activities.acp_session as acp_session
from activities.acp_session import AcpActivities, LiveAgents
from activities.executors.acp import AgentSession, _Collector
from activities.executors.base import ProviderCallError
from activities.git import workcopy
from activities.questions import OpenQuestions
from contracts.activities import AcpTurnInput
from contracts.failures import STORE_UNAVAILABLE, provider_failure_of
from routing.capacity import Admission, Verdict
from routing.classifier import FailureSignal
from routing.codes import ErrorCode, Phase
from routing.config import ExecutionProfile
from routing.identity import provider_key
from routing.model_policy import plan_model, settle_model
from routing.permissions import PermissionCounts, PermissionPolicy
from routing.repository import BranchMovedError, RunResult, TurnCommit
from routing.run import Candidate
from store.migrate import migrate
from store.repository import Store

PROFILE = ExecutionProfile(base_url="http://provider.invalid/v1")
CAND = Candidate(provider="p", execution_profile="p/std", profile=PROFILE, tier="std", requested_model="m")
KEY = "r1/1"
OVERLOADED = FailureSignal(
    phase=Phase.after_start,
    status=529,
    body='{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
)


def started_on(model: str) -> Any:
    from contracts.activities import SessionStarted

    decision = settle_model(plan_model(model, None, False, [model]), reported=None)
    return SessionStarted(decision=decision, model_to_send=model, effective_model=decision.effective)


@dataclasses.dataclass
class StandInSession:
    """What `acp_turn` uses of an `AgentSession`; the prompt runs `script`."""

    script: Callable[[str], Awaitable[str]]
    run_id: str = "r1"
    provider: str = "p"
    profile: ExecutionProfile | None = None
    prompts: int = 0
    note: str | None = None
    workcopy: Any = dataclasses.field(default_factory=lambda: SimpleNamespace(branch="office/r1"))  # its git: stood in
    collector: Any = dataclasses.field(
        default_factory=lambda: SimpleNamespace(
            counts=PermissionCounts(), cwd=None, questions=OpenQuestions(), policy=PermissionPolicy(), progress=None
        )
    )
    adapter: Any = dataclasses.field(default_factory=lambda: SimpleNamespace(name="stand-in"))
    last_answer: dict[str, Any] = dataclasses.field(default_factory=dict)  # the prompt's result: reports no model
    session_id: str = "s1"
    agent: str = ""
    cancels: int = 0
    closes: int = 0

    async def prompt(self, text: str) -> str:
        self.prompts += 1
        return await self.script(text)

    def progress(self) -> dict[str, int]:
        return {"message_chunks": 0, "session_updates": 0, "chars": 0}

    async def cancel(self) -> None:
        self.cancels += 1

    async def close(self) -> None:
        self.closes += 1


class OpenBoundary:
    async def check_run(self, run_id: str) -> None:
        return None

    async def workspace_of(self, run_id: str) -> None:
        return None


@pytest.fixture
async def store(tmp_path):
    url = f"sqlite:///{tmp_path / 'office.db'}"
    await migrate(url)
    store = Store(url)
    yield store
    await store.close()


@pytest.fixture
def kept(monkeypatch) -> list[int]:
    """The attempts whose partial changes were kept (workcopy.keep_failed), the working copy's git stood in for."""
    seqs: list[int] = []

    async def keep_failed(wc: Any, seq: int, note: str = "") -> str | None:
        seqs.append(seq)
        return None

    async def remove(wc: Any) -> None:
        return None

    async def commit_turn(wc: Any, turn: int, provider: str, model: str | None) -> TurnCommit:
        return TurnCommit(commit="a" * 40, changed=True, files_changed=1, insertions=1)

    async def result(wc: Any) -> RunResult:
        return RunResult(branch="office/r1", base_commit="b" * 40, head_commit="a" * 40, files_changed=1)

    monkeypatch.setattr(workcopy, "keep_failed", keep_failed)
    monkeypatch.setattr(workcopy, "remove", remove)
    monkeypatch.setattr(workcopy, "commit_turn", commit_turn)
    monkeypatch.setattr(workcopy, "result", result)
    return seqs


def environment() -> ActivityEnvironment:
    # No agent here asks a person: the client the turn takes its run's handle from is never called.
    nobody_asked: Any = SimpleNamespace(get_workflow_handle=lambda workflow_id: SimpleNamespace())
    env = ActivityEnvironment(client=nobody_asked)
    env.info = dataclasses.replace(
        env.info, started_time=datetime.now(UTC), heartbeat_timeout=timedelta(seconds=30), workflow_id="r1"
    )
    return env


async def answer(text: str) -> str:
    return f"answer to {text}"


async def acp_turn(store: Store, session: StandInSession, tmp_path: Any) -> Any:
    agents = LiveAgents()
    agents.put(KEY, session)  # type: ignore[arg-type]
    acts = AcpActivities(store, "worker-q", agents, OpenBoundary(), work_dir=str(tmp_path))  # type: ignore[arg-type]
    inp = AcpTurnInput(
        run_id="r1", attempt_seq=1, candidate=CAND, session_key=KEY, started=started_on("m"), user_seq=1,
        user_text="hi",
    )  # fmt: skip
    try:
        return await environment().run(acts.acp_turn, inp)
    finally:
        assert agents.get(KEY) is None or session.closes == 0  # a closed session is out of the worker's table


def outage() -> ApplicationError:
    return ApplicationError("store unavailable", type=STORE_UNAVAILABLE)


# --- (1) when an ACP turn fails, its session ends; the partial changes are kept once the prompt was sent ---------


async def test_a_turn_that_answers_keeps_its_session_and_keeps_nothing(store, kept, tmp_path):
    session = StandInSession(answer)
    out = await acp_turn(store, session, tmp_path)
    assert out.output.text == "answer to hi" and out.output.reported_model == "m"
    assert (session.closes, kept) == (0, [])


async def test_a_refused_admission_ends_the_session_and_keeps_nothing(store, kept, tmp_path, monkeypatch):
    async def refused(*_: Any, **__: Any) -> tuple[Admission, None]:
        return Admission(verdict=Verdict.refused, rule="breaker.open", retry_after_s=5.0), None

    monkeypatch.setattr(store, "admit_and_open", refused)
    session = StandInSession(answer)
    with pytest.raises(ApplicationError) as caught:
        await acp_turn(store, session, tmp_path)
    failure = provider_failure_of(caught.value)
    assert failure is not None and failure.code is ErrorCode.circuit_open
    assert failure.phase is Phase.after_start  # the session had started: the refusal came after it
    assert (session.prompts, session.closes, kept) == (0, 1, [])
    assert await store.read_transcript("r1", 9) == []  # a refused call opens no turn


async def test_a_store_outage_while_opening_ends_the_session_and_keeps_nothing(store, kept, tmp_path, monkeypatch):
    admit_and_open = store.admit_and_open

    async def opening_fails(provider: str, request: Any, opening: Any, *args: Any, **kw: Any) -> Any:
        if opening is not None:
            raise outage()
        return await admit_and_open(provider, request, opening, *args, **kw)

    async def open_fails(*_: Any, **__: Any) -> Any:
        raise outage()

    monkeypatch.setattr(store, "admit_and_open", opening_fails)
    monkeypatch.setattr(store, "open_turn", open_fails)
    session = StandInSession(answer)
    with pytest.raises(ApplicationError, match="store unavailable"):
        await acp_turn(store, session, tmp_path)
    assert (session.prompts, session.closes, kept) == (0, 1, [])


async def test_a_provider_failure_ends_the_session_keeping_its_changes(store, kept, tmp_path):
    async def overloaded(text: str) -> str:
        raise ProviderCallError(OVERLOADED)

    session = StandInSession(overloaded)
    with pytest.raises(ApplicationError) as caught:
        await acp_turn(store, session, tmp_path)
    failure = provider_failure_of(caught.value)
    assert failure is not None and failure.code is ErrorCode.provider_overloaded
    assert (session.closes, kept) == (1, [1])
    [row] = [r for r in await store.health_rows() if r.provider_key == provider_key(PROFILE)]
    assert row.window_failures == 1  # counted once in the shared window


async def test_a_cancelled_prompt_is_cancelled_at_the_agent_and_ends_the_session_keeping_its_changes(
    store, kept, tmp_path
):
    prompted = asyncio.Event()

    async def hangs(text: str) -> str:
        prompted.set()
        await asyncio.Event().wait()
        return ""

    session = StandInSession(hangs)
    task = asyncio.create_task(acp_turn(store, session, tmp_path))
    await prompted.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert (session.cancels, session.closes, kept) == (1, 1, [1])


async def test_a_branch_moved_at_the_commit_ends_the_session_keeping_its_changes(store, kept, tmp_path, monkeypatch):
    async def moved(*_: Any, **__: Any) -> TurnCommit:
        raise BranchMovedError("office/r1 moved under the run")

    monkeypatch.setattr(workcopy, "commit_turn", moved)
    session = StandInSession(answer)
    with pytest.raises(ApplicationError, match="moved"):
        await acp_turn(store, session, tmp_path)
    assert (session.closes, kept) == (1, [1])


async def test_a_store_outage_while_closing_ends_the_session_and_keeps_nothing(store, kept, tmp_path, monkeypatch):
    async def close_fails(*_: Any, **__: Any) -> Any:
        raise outage()

    # The answer and attempt row are closed by close_answered, imported by the module that runs the turn.
    for module in (acp_session, sys.modules.get("activities.turn_pipeline")):
        if module is not None and hasattr(module, "close_answered"):
            monkeypatch.setattr(module, "close_answered", close_fails)
    session = StandInSession(answer)
    with pytest.raises(ApplicationError, match="store unavailable"):
        await acp_turn(store, session, tmp_path)
    assert (session.closes, kept) == (1, [])  # the turn's commit is already on the branch


# --- what an agent's relayed 429 teaches the provider key's shared rate -------------------------------------------


async def test_an_agents_relayed_429_cuts_a_rate_another_run_learned_during_its_turn(store, kept, tmp_path):
    """An agent turn runs many provider calls of the agent's own, none paced by the admission of the turn, so a 429
    it relays is not "a call paced at an older rate": before the refactor it was noted without an admission time
    and cut a rate learned during the turn (once more than one spacing had passed). Now the turn's admission time
    goes with it, the rate learned meanwhile counts as newer, and the 429 teaches nothing."""
    key = provider_key(PROFILE)

    async def relays_429(text: str) -> str:
        # Meanwhile another run on the same key hit a 429 that stated the limit: the key learns 6,000 rpm.
        await store.note_failure("p", ErrorCode.rate_limited.value, "other-run", key=key, limit_rpm=6000.0)
        await asyncio.sleep(0.05)  # more than one spacing (10 ms) later: not the same burst
        raise ProviderCallError(
            FailureSignal(phase=Phase.after_start, provider="p", status=429, error_text="Please try again in 10ms.")
        )

    session = StandInSession(relays_429)
    with pytest.raises(ApplicationError) as caught:
        await acp_turn(store, session, tmp_path)
    failure = provider_failure_of(caught.value)
    assert failure is not None and failure.code is ErrorCode.rate_limited and failure.retry_after_s == 0.01
    [row] = [r for r in await store.health_rows() if r.provider_key == key]
    assert row.learned_rpm is not None and row.learned_rpm < 6000.0


# --- (6) the answer's last chunks arrive right before the prompt's response ---------------------------------------

AGENT = r"""
import json, sys
CHUNKS = int(sys.argv[1])
for line in sys.stdin:
    req = json.loads(line)
    out = []
    for n in range(CHUNKS):
        out.append({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": {
            "sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": f"<{n}>"}}}})
    out.append({"jsonrpc": "2.0", "id": req["id"], "result": {"stopReason": "end_turn"}})
    sys.stdout.write("".join(json.dumps(m) + "\n" for m in out))  # one write: the response right after the chunks
    sys.stdout.flush()
"""


async def test_every_chunk_sent_before_the_prompts_response_is_in_the_answer():
    chunks = 200
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", AGENT, str(chunks),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    collector = _Collector()
    if "connect_to_agent" in inspect.getsource(AgentSession.launch):  # before the refactor: the library's wrapper
        conn: Any = connect_to_agent(collector, process.stdin, process.stdout)
    else:
        conn = Connection(build_client_router(collector), process.stdin, process.stdout)
    session = AgentSession("r1", "p", process, conn, collector, session_id="s")
    try:
        expected = "".join(f"<{n}>" for n in range(chunks))
        for _ in range(20):
            assert await session.prompt("go") == expected
    finally:
        await session.close()


async def test_a_turn_whose_session_its_worker_no_longer_holds_is_a_lost_worker_not_the_providers(store, tmp_path):
    """A turn reaches a worker without its live session (the worker restarted, or reaped it): the worker's loss, so
    the run starts a new session on a live worker and the provider's health and attempt cap never hear of it."""
    acts = AcpActivities(store, "worker-q", LiveAgents(), OpenBoundary(), work_dir=str(tmp_path))  # type: ignore[arg-type]
    inp = AcpTurnInput(
        run_id="r1", attempt_seq=1, candidate=CAND, session_key=KEY, started=started_on("m"), user_seq=1,
        user_text="hi",
    )  # fmt: skip
    with pytest.raises(ApplicationError) as failed:
        await environment().run(acts.acp_turn, inp)
    lost = provider_failure_of(failed.value)
    assert lost is not None and (lost.code, lost.error_class.value, lost.rule) == (
        ErrorCode.worker_lost, "infrastructure", "worker.session_lost"
    )  # fmt: skip
    assert (lost.excerpt or "").startswith("worker lost: the agent session is no longer on the worker of worker-q")
