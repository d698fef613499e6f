"""Talking to a run (`office runs say`) on the real dev server, PostgreSQL and the provider simulator. The 300-turn
conversation that continues as new is in tests/workflow/test_talk.py (cheap mocked turns)."""

import asyncio
import json

import pytest
from typer.testing import CliRunner

from office.cli import app
from office.runs import say, wait_for_view
from office.simulator.config import SimProvider
from routing.run import RunStatus
from testkit.runs import submit_run
from testkit.stack import Stack

from .helpers import calls_to, wait_for_calls, wait_for_status

pytestmark = pytest.mark.integration


async def office(stack: Stack, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str, str]:
    """The `office` CLI as a user runs it, in this process (a separate one would only add its start-up)."""
    for name, value in (("TEMPORAL_ADDRESS", stack.temporal.address), ("TEMPORAL_NAMESPACE", "default"),
                        ("OFFICE_DATABASE_URL", stack.database_url), ("COLUMNS", "200")):  # fmt: skip
        monkeypatch.setenv(name, value)
    result = await asyncio.to_thread(CliRunner().invoke, app, list(args))
    return result.exit_code, result.stdout, result.stderr


async def configure(stack: Stack, workspace: str, **settings: object) -> None:
    """Workspace settings the stack's helper does not take (idle_timeout, history_bound)."""
    config = await stack.store.get_workspace(workspace)
    assert config is not None
    await stack.store.save_workspace(config.model_validate(config.model_dump() | settings))


async def test_say_adds_two_turns_to_a_live_run_and_one_to_an_idle_run_answered_in_order(stack, monkeypatch):
    ws, agent, p = await stack.workspace({"alpha": SimProvider(latency_ms=2000)})  # the first turn takes 2 s
    await configure(stack, ws, idle_timeout=3)
    handle = await submit_run(stack, ws, agent, "Turn one: plan it")
    await wait_for_calls(stack, p["alpha"], 1)  # the first turn is with the provider: the run is live
    second = await say(stack.client, handle.id, "Turn two: write it")
    third = await say(stack.client, handle.id, "Turn three: test it")
    assert (second.turn, second.ahead, third.turn, third.ahead) == (2, 0, 3, 1)  # queued behind each other
    assert len(calls_to(stack, p["alpha"])) == 1  # both said while the first turn was still running
    await stack.simulator.set_provider(p["alpha"], SimProvider())  # the later turns answer at once

    idle = await wait_for_status(stack, handle.id, RunStatus.idle)
    assert [a.turn for a in idle.answers] == [1, 2, 3]
    fourth = await say(stack.client, handle.id, "Turn four: ship it")
    assert (fourth.turn, fourth.ahead) == (4, 0)
    view = await wait_for_view(stack.client, handle.id)  # completes idle_timeout after the fourth answer

    assert view.status is RunStatus.completed
    calls = calls_to(stack, p["alpha"])
    said = ["Turn one: plan it", "Turn two: write it", "Turn three: test it", "Turn four: ship it"]
    assert [c["messages"][-1]["content"] for c in calls] == said
    # each turn is sent the run's own transcript: every earlier turn and its answer, in order
    assert calls[-1]["messages"] == [
        m for c, text in zip(calls[:3], said, strict=False) for m in ({"role": "user", "content": text},
                                                                       {"role": "assistant", "content": c["reply"]})
    ] + [{"role": "user", "content": said[-1]}]  # fmt: skip
    assert [(a.turn, a.excerpt) for a in view.answers] == [(i + 1, c["reply"][:200]) for i, c in enumerate(calls)]

    code, out, err = await office(stack, monkeypatch, "runs", "show", handle.id, "--json")
    assert code == 0, err
    turns = json.loads(out)["turns"]
    assert [(t["turn"], t["said"], t["answer"]) for t in turns] == [
        (i + 1, text, c["reply"]) for i, (text, c) in enumerate(zip(said, calls, strict=True))
    ]

    code, out, _ = await office(stack, monkeypatch, "runs", "show", handle.id)
    shown = [out.index(f"turn {i} {text}") for i, text in enumerate(said, 1)]
    assert code == 0 and shown == sorted(shown) and all(c["reply"] in out for c in calls)

    code, out, err = await office(stack, monkeypatch, "runs", "say", handle.id, "Turn five?")
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        f"error: run {handle.id} has ended (completed): it takes no more turns; submit a new run with `office submit`"
    ]
    for args, problem in (((handle.id, " "), "the text is empty"), (("no-such-run", "go on"), "not found")):
        code, out, err = await office(stack, monkeypatch, "runs", "say", *args)
        assert (code, out, len(err.strip().splitlines())) == (2, "", 1) and problem in err, err
