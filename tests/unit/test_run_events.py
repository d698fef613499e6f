"""A turn's progress reaches the store while it runs (activities.run_events through the turn pipeline), from the
ACP client side's session updates and fs calls; a store that cannot take it never fails the turn."""

import asyncio
import dataclasses

import httpx
import pytest
from acp import RequestError, start_tool_call, text_block, update_agent_message, update_tool_call
from acp.schema import ToolCallLocation

from activities import run_events
from activities.executors.acp import _Collector
from activities.executors.openai_compat import OpenAICompatExecutor
from activities.session import EndpointSession
from activities.turn_pipeline import Turn, TurnAnswer, run_turn
from contracts.activities import SessionStarted
from office.simulator.app import Simulator, build_app
from office.simulator.config import SimConfig, SimProvider
from routing.config import ExecutionProfile
from routing.permissions import PermissionPolicy
from routing.progress import ProgressLog
from routing.run import Candidate
from routing.transcript import Entry
from store.migrate import migrate
from store.repository import Store
from testkit.eventually import eventually
from testkit.scripted_executor import ScriptedExecutor, started_on

CAND = Candidate(
    provider="p", execution_profile="p/std", profile=ExecutionProfile(base_url="http://provider.invalid/v1"),
    tier="std", requested_model="m",
)  # fmt: skip


@pytest.fixture
async def store(tmp_path):
    url = f"sqlite:///{tmp_path / 'office.db'}"
    await migrate(url)
    store = Store(url)
    yield store
    await store.close()


@dataclasses.dataclass
class Talking(ScriptedExecutor):
    """Says something, waits until the test has seen it stored, then answers."""

    seen: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)

    async def prompt(self, transcript: list[Entry], started: SessionStarted, full_history: bool) -> TurnAnswer:
        progress = self.observed[-1]
        assert progress is not None
        progress.message("Reading the test.\n", run_events.utcnow())
        await asyncio.wait_for(self.seen.wait(), 10)
        progress.tool("c1", "edit", "Edit a.py", ["a.py"], "completed", run_events.utcnow())
        return TurnAnswer("done")


async def test_a_turns_progress_is_stored_while_it_runs_and_the_executor_stops_feeding_after(store, monkeypatch):
    monkeypatch.setattr(run_events, "FLUSH_S", 0.05)
    executor = Talking()
    turn = asyncio.create_task(run_turn(store, Turn("r1", 3, CAND, 1, "fix it"), executor))
    rows = await eventually(lambda: store.run_events.after("r1"), timeout=10, what="the first event stored")
    assert not turn.done() and [(r.attempt, r.kind, r.text) for r in rows] == [(3, "message", "Reading the test.")]
    executor.seen.set()
    await turn
    rows = await store.run_events.after("r1")
    assert [(r.kind, r.tool_kind, r.path) for r in rows[1:]] == [
        ("tool", "edit", "a.py"),
        ("tool_done", "edit", "a.py"),
    ]
    assert executor.observed[-1] is None  # told to stop feeding when the call ended


async def test_a_store_that_refuses_progress_never_fails_the_turn(store):
    class Refusing:
        async def append(self, *args, **kw) -> None:
            raise ConnectionError("the store is down")

    store.run_events = Refusing()  # type: ignore[assignment]
    executor = Talking()
    executor.seen.set()
    out = await run_turn(store, Turn("r2", 1, CAND, 1, "fix it"), executor)
    assert out.output.text == "done"


async def test_the_acp_client_side_feeds_messages_tool_calls_and_fs_calls_with_paths_in_the_working_copy(tmp_path):
    (tmp_path / "a.txt").write_text("secret contents\n")
    collector = _Collector(PermissionPolicy.model_validate({"read": "allow"}), str(tmp_path))
    collector.progress = progress = ProgressLog(cwd=str(tmp_path))
    await collector.session_update("s", update_agent_message(text_block("Looking.\n")))
    where = [ToolCallLocation(path=str(tmp_path / "src" / "b.py"))]
    await collector.session_update(
        "s", start_tool_call("t1", f"Edit {tmp_path}/src/b.py", kind="edit", locations=where)
    )
    await collector.session_update("s", update_tool_call("t1", status="completed"))
    await collector.read_text_file("s", str(tmp_path / "a.txt"))
    with pytest.raises(RequestError):
        await collector.write_text_file("s", str(tmp_path / "a.txt"), "x")  # edit is not allowed
    events = progress.take(run_events.utcnow(), final=True)
    assert [(e.kind, e.text, e.tool_kind, e.path) for e in events] == [
        ("message", "Looking.", None, None),
        ("tool", "Edit src/b.py", "edit", "src/b.py"),
        ("tool_done", "completed", "edit", "src/b.py"),
        ("tool", "fs read", "read", "a.txt"),
        ("tool", "fs edit", "edit", "a.txt"),
        ("tool_done", "failed", "edit", "a.txt"),
    ]
    assert "secret contents" not in repr(events)


async def test_an_endpoints_answer_is_fed_as_it_streams():
    sim = Simulator(SimConfig(providers={"p": SimProvider(models=["gpt-*"])}))
    transport = httpx.ASGITransport(app=build_app(sim))
    async with httpx.AsyncClient(transport=transport, base_url="http://sim") as client:
        endpoint = OpenAICompatExecutor("p", ExecutionProfile(base_url="http://sim/p/p/v1"), client)
        session = EndpointSession(endpoint, lambda: asyncio.sleep(0, started_on("gpt-4o")))
        progress = ProgressLog()
        session.observe(progress)
        result = await endpoint.chat("gpt-4o", [{"role": "user", "content": "hello"}])
        session.observe(None)
        assert endpoint.on_text is None
    shown = " ".join(e.text or "" for e in progress.take(run_events.utcnow(), final=True))
    assert shown == " ".join(result.text.split()) and shown
