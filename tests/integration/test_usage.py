"""Usage and cost per attempt through the real stack: the simulator's reported tokens are what the run and its
attempt rows record, the cost is the workspace's price for them, and `office usage --json` sums the runs."""

import asyncio
import json
import os
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from office.runs import run_view, submit, wait_for_view
from office.simulator.config import SimProvider
from routing.config import ExecutionProfile
from routing.run import RunStatus, RunView
from routing.usage import ModelPrice, Usage
from testkit.agents import scripted_sandbox

from .helpers import calls_to, office

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
# The agents' real directory (.cache may be a link): a sandbox binds the installation, never a link to it.
AGENTS = Path(os.path.realpath(ROOT / ".cache" / "agents" / "node_modules" / ".bin"))
PRICE = ModelPrice(input_per_million=3.0, output_per_million=15.0, cache_read_per_million=0.3)


def scripted(log: Path, **script: object) -> ExecutionProfile:
    """The scripted ACP agent (office.scripted_agent) with this script, logging every call to `log`."""
    return ExecutionProfile(
        kind="acp",
        command=[sys.executable, "-m", "office.scripted_agent", str(log)],  # the log: a provider identity of its own
        env={"SCRIPTED_AGENT": json.dumps({"log": str(log), **script}), "PYTHONPATH": str(ROOT)},
        heartbeat_timeout_s=3,
        timeout_s=30,
        sandbox=scripted_sandbox(log),
    )


def received(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def reported(call: dict) -> Usage:
    """The simulator's chat usage for one call, as routing.usage counts it."""
    usage = call["usage"]
    return Usage(
        input_tokens=usage["prompt_tokens"],
        output_tokens=usage["completion_tokens"],
        cache_read_tokens=usage["prompt_tokens_details"]["cached_tokens"],
    )


async def priced_workspace(stack) -> tuple[str, str, dict[str, str]]:
    """alpha refuses the worker's key (a failed attempt, no answer), beta answers; sim-small at PRICE."""
    ws, agent, p = await stack.workspace(
        {"alpha": SimProvider(api_key="sk-other"), "beta": SimProvider(api_key="sk-sim-test")},
        credential_env="OFFICE_CRED_TEST_KEY",
    )
    config = await stack.store.get_workspace(ws)
    await stack.store.save_workspace(config.model_copy(update={"prices": {"sim-small": PRICE}}))
    return ws, agent, p


async def run(stack, ws: str, agent: str, follow_ups: list[str]) -> RunView:
    handle = await submit(
        stack.client, stack.store, ws, agent, "Explain the parser", task_queue=stack.task_queue, follow_ups=follow_ups
    )
    try:
        return await asyncio.wait_for(wait_for_view(stack.client, handle.id), timeout=180)
    except TimeoutError:
        view = await run_view(stack.client, handle.id)
        pytest.fail(f"run {handle.id} did not end: {view.status} {view.park_reason} {view.message} {view.attempts}")


async def test_attempts_carry_the_reported_tokens_and_their_cost_and_usage_sums_the_runs(stack):
    since = datetime.now(UTC) - timedelta(minutes=1)
    ws, agent, p = await priced_workspace(stack)
    first = await run(stack, ws, agent, ["And the lexer?"])
    second = await run(stack, ws, agent, [])
    assert first.status is RunStatus.completed and second.status is RunStatus.completed

    answered = [c for c in calls_to(stack, p["beta"]) if c["status"] == 200]
    assert len(answered) == 3  # two turns of the first run, one of the second
    failed = first.attempts[0]  # alpha refused the key; the second run does not try it again (its health says so)
    assert (failed.provider, failed.error_code, failed.usage, failed.cost_usd) == (
        p["alpha"],
        "auth_required",
        None,
        None,
    )
    for view, attempts, calls in ((first, first.attempts[1:], answered[:2]), (second, second.attempts, answered[2:])):
        assert [a.provider for a in attempts] == [p["beta"]] * len(calls)
        assert [a.usage for a in attempts] == [reported(c) for c in calls]
        assert [a.cost_usd for a in attempts] == [pytest.approx(PRICE.cost(reported(c))) for c in calls]
        assert view.usage == sum((reported(c) for c in calls), Usage())
        assert view.cost_usd == pytest.approx(sum(PRICE.cost(reported(c)) for c in calls))
        assert view.unpriced_attempts == 0
    # the second turn resent the first one: the provider read it from its prompt cache
    assert first.attempts[2].usage is not None and first.attempts[2].usage.cache_read_tokens > 0

    rows = await stack.store.list_attempts(first.run_id)
    assert [(r.outcome, r.input_tokens, r.output_tokens, r.cache_read_tokens) for r in rows] == [
        ("failed", None, None, None),
        *[("succeeded", u.input_tokens, u.output_tokens, u.cache_read_tokens) for u in map(reported, answered[:2])],
    ]
    assert {(r.workspace, r.agent) for r in rows} == {(ws, agent)}

    code, out, err = await office(stack, "runs", "show", first.run_id, "--json")
    assert code == 0, err
    shown = json.loads(out)
    assert first.usage is not None and shown["usage"] == first.usage.model_dump()
    assert shown["cost_usd"] == pytest.approx(first.cost_usd)
    code, out, err = await office(stack, "runs", "show", first.run_id)
    assert code == 0, err
    assert "cost $" in out and f"in {first.usage.input_tokens:,}" in out

    code, out, err = await office(stack, "usage", "--json", "--since", since.isoformat(), "--workspace", ws)
    assert code == 0, err
    report = json.loads(out)
    total = first.usage + second.usage
    by_provider = {g["provider"]: g for g in report["groups"]}
    assert by_provider[p["alpha"]]["attempts"] == 1 and by_provider[p["alpha"]]["input_tokens"] == 0
    assert by_provider[p["beta"]]["attempts"] == 3 and by_provider[p["beta"]]["model"] == "sim-small"
    assert (by_provider[p["beta"]]["workspace"], by_provider[p["beta"]]["agent"]) == (ws, agent)
    assert report["price_table"].startswith("genai-prices 0.")
    totals = report["totals"]
    assert (totals["input_tokens"], totals["output_tokens"], totals["cache_read_tokens"]) == (
        total.input_tokens, total.output_tokens, total.cache_read_tokens,
    )  # fmt: skip
    assert totals["cost_usd"] == pytest.approx(first.cost_usd + second.cost_usd)
    assert totals["unpriced"] == 0

    code, _, err = await office(stack, "usage", "--since", "last tuesday")
    assert code == 2 and "--since 'last tuesday'" in err


async def test_a_model_without_a_price_has_tokens_and_no_cost(stack):
    ws, agent, p = await stack.workspace(
        {"alpha": SimProvider(api_key="sk-sim-test")}, credential_env="OFFICE_CRED_TEST_KEY"
    )
    view = await run(stack, ws, agent, [])
    assert view.status is RunStatus.completed
    [attempt] = view.attempts
    [call] = calls_to(stack, p["alpha"])
    assert attempt.usage == reported(call) and attempt.cost_usd is None  # sim-small is in no price table
    assert (view.cost_usd, view.unpriced_attempts) == (None, 1)
    code, out, err = await office(stack, "usage", "--json", "--workspace", ws)
    assert code == 0, err
    totals = json.loads(out)["totals"]
    assert (totals["input_tokens"], totals["cost_usd"], totals["unpriced"]) == (attempt.usage.input_tokens, None, 1)


async def test_an_agents_reported_usage_is_recorded_for_answered_and_refused_turns(stack, tmp_path):
    """The scripted ACP agent reports usage as claude-agent-acp does (input without the cache, the cache apart);
    a turn it refuses still reports what it used, and that failed attempt carries it too."""
    log = tmp_path / "agent.jsonl"
    agent_profile = scripted(log, models=["m1"], usage={"cached_read": 64, "cached_write": 8}, stop_match="refuse")
    ws, agent, p = await stack.workspace({"claude": agent_profile}, model="m1")
    config = await stack.store.get_workspace(ws)
    # a refusal is read by no rule (ACP's `refusal` is also a rejected tool call): the run fails at once, unattended
    await stack.store.save_workspace(config.model_copy(update={"prices": {"m1": PRICE}, "unreadable_failure_wait": 0}))
    view = await run(stack, ws, agent, ["now refuse it"])
    reports = [c for c in received(log) if c["method"] == "usage"]
    expected = [
        Usage(
            input_tokens=r["inputTokens"] + 64 + 8, output_tokens=r["outputTokens"], cache_read_tokens=64,
            cache_write_tokens=8,
        )
        for r in reports
    ]  # fmt: skip
    assert len(view.attempts) == len(reports) >= 2
    answered, *refused = view.attempts
    assert answered.outcome == "succeeded" and answered.usage == expected[0] and expected[0].output_tokens > 0
    assert all(a.outcome == "failed" and a.error_code for a in refused)
    assert [a.usage for a in refused] == expected[1:]  # a refused turn's tokens are known, and recorded
    assert [a.cost_usd for a in view.attempts] == [pytest.approx(PRICE.cost(u)) for u in expected]
    assert view.usage == sum(expected, Usage())
    rows = await stack.store.list_attempts(view.run_id)
    assert [(r.outcome, r.input_tokens, r.cache_read_tokens, r.cache_write_tokens) for r in rows] == [
        (a.outcome, u.input_tokens, 64, 8) for a, u in zip(view.attempts, expected, strict=True)
    ]
    assert [r.cost_usd for r in rows] == [pytest.approx(PRICE.cost(u)) for u in expected]
    assert {r.provider for r in rows} == {p["claude"]}


# --- the real agents (`make agents`) against the simulator's native APIs: what they report is what runs record ---
REAL_AGENTS = [
    # (agent binary and arguments, simulator provider prefix, its models, the profile's model)
    (["claude-agent-acp"], "anthropic", ["claude-*"], "claude-sonnet-4-5"),
    (["gemini", "--experimental-acp"], "google", ["gemini-*"], "gemini-2.5-pro"),
    (["opencode", "acp"], "openai-oc", ["gpt-*"], "openai/gpt-5.4"),
    (["codex-acp"], "openai", ["gpt-*"], "gpt-5.4"),  # reports no usage for a turn: none is recorded, no guess
]


def answered_usage(call: dict) -> Usage:
    """One simulator answer's usage, on whichever native API it went (Messages, Gemini, Responses)."""
    u = call["usage"]
    if "promptTokenCount" in u:
        return Usage(input_tokens=u["promptTokenCount"], output_tokens=u["candidatesTokenCount"])
    read, write = u.get("cache_read_input_tokens", 0), u.get("cache_creation_input_tokens", 0)
    if "input_tokens_details" in u:  # Responses: input_tokens includes the cached ones
        cached = u["input_tokens_details"]["cached_tokens"]
        return Usage(input_tokens=u["input_tokens"], output_tokens=u["output_tokens"], cache_read_tokens=cached)
    return Usage(  # Messages: input_tokens leaves the cache out
        input_tokens=u["input_tokens"] + read + write, output_tokens=u["output_tokens"], cache_read_tokens=read,
        cache_write_tokens=write,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("command", "prefix", "models", "model"), REAL_AGENTS, ids=["claude", "gemini", "opencode", "codex"]
)
async def test_a_real_agents_reported_usage_is_what_the_run_records(stack, tmp_path, command, prefix, models, model):
    from .test_real_agents import KEY, agent, profile, simulated

    sim = await simulated(stack, prefix, SimProvider(models=models, api_key=KEY))
    found = agent(command[0])  # the real directory: a sandbox sees the installation, not a link to it
    executable = [str(AGENTS / found.name), *command[1:]]
    ws, agent_name, _ = await stack.workspace({"agent": profile(stack, tmp_path, executable, sim)}, model=model)
    view = await run(stack, ws, agent_name, ["And what comes next?"])  # the second turn resends the first
    assert view.status is RunStatus.completed, view.message
    calls = [c for c in calls_to(stack, sim) if c["status"] == 200]
    provider = [answered_usage(c) for c in calls]
    recorded = [a.usage for a in view.attempts]
    print(f"\nMEASURE usage {prefix}: {len(calls)} calls, simulator {provider}, recorded {recorded}")
    assert len(view.attempts) == len(calls) == 2  # one provider call per turn
    if prefix == "openai":  # codex-acp's prompt result carries no usage: the attempts say so, with no cost
        assert recorded == [None, None] and view.usage is None and view.cost_usd is None
        return
    assert recorded == provider
    assert view.usage == provider[0] + provider[1]
    if prefix != "google":  # Gemini CLI reports the prompt's tokens, cached ones included, without the cache's count
        assert provider[1].cache_read_tokens > 0
    rows = await stack.store.list_attempts(view.run_id)
    assert [(r.input_tokens, r.output_tokens, r.cache_read_tokens) for r in rows] == [
        (u.input_tokens, u.output_tokens, u.cache_read_tokens) for u in provider
    ]
