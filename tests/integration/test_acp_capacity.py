"""One shared breaker per provider key, whichever executor calls it: a storm of 529 overloads relayed by an ACP
agent opens the provider's breaker exactly as the same storm does on the OpenAI-compatible path, and later runs
route around the provider without launching its agent or calling it."""

from pathlib import Path

import pytest

from office.simulator.config import InjectedFailure, SimProvider
from routing.capacity import DEFAULT_POLICY
from routing.config import ExecutionProfile
from routing.run import RunStatus
from store.repository import utcnow
from testkit.agents import received
from testkit.factories import scripted_agent
from testkit.runs import run_to_end

from .helpers import calls_to

pytestmark = pytest.mark.integration
STORM = "storm"
# What Claude Code relays when the Anthropic API answers 529 (CLAUDE_CODE_MAX_RETRIES=0: no retries of its own).
OVERLOADED = (
    'Internal error: API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
)


def overloaded_agent(log: Path) -> ExecutionProfile:
    """The scripted ACP agent failing every prompt that mentions the storm with JSON-RPC -32603."""
    return scripted_agent(log, fail_match=STORM, fail_code=-32603, fail_message=OVERLOADED)


def launches(log: Path) -> int:
    return sum(c["method"] == "initialize" for c in received(log))


@pytest.mark.parametrize("executor", ["openai", "acp"])
async def test_a_storm_of_529s_opens_the_shared_breaker_and_later_runs_route_around_it(stack, tmp_path, executor):
    log = tmp_path / "agent.jsonl"
    primary = (
        overloaded_agent(log)
        if executor == "acp"
        else SimProvider(failures=[InjectedFailure(status=529, kind="overloaded", match_text=STORM)])
    )
    ws, agent, p = await stack.workspace({"primary": primary, "beta": SimProvider()})

    def reached_primary() -> int:  # agent launches (ACP) or HTTP calls (OpenAI-compatible) that reached it
        return launches(log) if executor == "acp" else len(calls_to(stack, p["primary"]))

    async def breaker():
        return next(r for r in await stack.store.health_rows() if r.provider == p["primary"] and r.model == "")

    storm = []
    for i in range(4):  # a run tries the provider three times (one try, two short retries), then falls back
        storm.append(await run_to_end(stack, ws, agent, f"{STORM} {i}: fix the failing build"))
        if (await breaker()).state == "degraded":
            break
    assert all(v.status is RunStatus.completed and v.provider == p["beta"] for v in storm)
    overloads = [a for v in storm for a in v.attempts if a.error_code == "provider_overloaded"]
    assert all(a.provider == p["primary"] for a in overloads)
    # The window judged it: one run's three failures were not enough; the window's volume and ratio were.
    assert len(storm) >= 2 and len(overloads) >= DEFAULT_POLICY.min_volume

    row = await breaker()
    assert (row.state, row.last_code) == ("degraded", "provider_overloaded")
    assert row.retry_at is not None and row.retry_at.replace(tzinfo=utcnow().tzinfo) > utcnow()
    opened = [
        e
        for e in await stack.store.health_events()
        if e.provider == p["primary"] and e.model == "" and e.state == "degraded"
    ]
    assert [e.code for e in opened] == ["provider_overloaded"]  # opened once, by the failing call itself

    before = reached_primary()
    later = await run_to_end(stack, ws, agent, "calm again: fix the failing build")
    assert later.status is RunStatus.completed
    assert [a.provider for a in later.attempts] == [p["beta"]]  # routed around the open breaker
    assert reached_primary() == before  # not launched, not called
