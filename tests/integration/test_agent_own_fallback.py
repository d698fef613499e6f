"""What the real Claude Code (claude-agent-acp 0.23.1 over Claude Code 2.1.83, from `make agents`) does on its own
against the provider simulator's Anthropic Messages API: its own fallback model on overload, and the subscription
usage limit. The bridge is driven as the worker drives it (launch environment, claude_meta, one selection call,
session/prompt); what reached the endpoint is read from the simulator's call log."""

import asyncio
import glob
import os
import re
import time
import uuid
from pathlib import Path

import pytest

from activities.acp_session import AgentExecutor, claude_config_dir, claude_meta
from activities.executors.acp import AgentSession
from activities.executors.agent_model import (
    answered_by,
    claude_transcript_pattern,
    claude_turn_models,
    usage_limit_signal,
)
from activities.executors.base import ProviderCallError
from activities.executors.launcher import launch_environment
from activities.workdir import private_dir
from contracts.activities import SessionStarted
from office.runs import submit, wait_for_view
from office.simulator.scenarios import CLAUDE_FALLBACK_AFTER_OVERLOADS, claude_own_fallback, claude_subscription_limit
from routing.classifier import classify
from routing.codes import ErrorCode
from routing.config import ExecutionProfile
from routing.model_policy import plan_model, settle_model
from routing.run import Candidate, RunStatus
from routing.transcript import Entry
from store.rows import utcnow

from .helpers import calls_to
from .test_real_agents import KEY, agent, gone, marked, simulated, until

pytestmark = pytest.mark.integration
PROMPT = "Fix the failing test"
# Claude Code must retry an overloaded answer at least twice before it can count three in a row (cli.js Wv8);
# the office's own setting is 0 (activities/executors/agents.py), so these profiles raise it, as a user could.
# A full id: Claude Code sends its fallback model unresolved, so an alias such as "sonnet" would be a 404.
FALLBACK = "claude-sonnet-4-6"
TRANSCRIPT_WRITE_S = 5  # how long Claude Code may take to append an answer it has already sent
OWN_RETRIES = {"CLAUDE_CODE_MAX_RETRIES": str(CLAUDE_FALLBACK_AFTER_OVERLOADS - 1)}


@pytest.fixture(autouse=True)
async def no_agent_outlives_its_test():
    yield
    assert await gone(lambda: marked(os.getpid()), 10), "an agent process of this test is still running"


def claude_profile(stack, tmp_path: Path, sim: str, credential: bool = True, **env: str) -> ExecutionProfile:
    home = tmp_path / f"home-{sim}"  # an empty home: no login or settings of whoever runs the tests
    home.mkdir(exist_ok=True)
    return ExecutionProfile(
        kind="acp",
        # where the agents really are: a worktree's .cache may be a link the sandbox does not follow
        command=[str(agent("claude-agent-acp").parent.resolve() / "claude-agent-acp")],
        base_url=stack.simulator.provider_url(sim),
        credential_env="OFFICE_CRED_TEST_KEY" if credential else None,
        env={"HOME": str(home), **env},
        timeout_s=120,
        heartbeat_timeout_s=5,
    )


async def started_session(
    tmp_path: Path, profile: ExecutionProfile, sim: str, model: str, fallback: str | None, **extra_env: str
) -> tuple[AgentSession, Candidate, Path]:
    """The bridge launched unsandboxed in a working directory of its own, session/new with the office's _meta and
    its own CLAUDE_CONFIG_DIR, and the one selection call. Returns the session, its candidate and config dir."""
    cand = Candidate(
        provider=sim, execution_profile=sim, profile=profile, tier="standard", requested_model=model,
        fallback_model=fallback,
    )  # fmt: skip
    run_id = f"run-{uuid.uuid4().hex[:8]}"
    cwd = tmp_path / f"work-{sim}"
    cwd.mkdir()
    env = {**launch_environment(profile, sim, model), **extra_env}
    session = await AgentSession.launch(run_id, sim, profile, env, str(cwd), str(tmp_path / "wd"), None)
    config_dir = private_dir(claude_config_dir(str(cwd), run_id))
    try:
        await session.start(str(cwd), claude_meta(cand, config_dir))
        assert session.choice.catalog is not None and model in session.choice.catalog, session.choice.catalog
        assert await session.select_model(model) == model
    except BaseException:
        await session.close()
        raise
    return session, cand, config_dir


def turn_models(config_dir: Path, session: AgentSession) -> list[str]:
    """The models Claude Code's own transcript of this session records for its assistant messages."""
    [transcript] = glob.glob(claude_transcript_pattern(str(config_dir), session.session_id))
    return claude_turn_models(Path(transcript).read_text())


async def answered_models(config_dir: Path, session: AgentSession) -> list[str]:
    """Claude Code appends the answer to its transcript without waiting for the write (cli.js: the assistant
    message's recordTranscript is not awaited), so the prompt's answer can come first: wait for the line."""
    await until(lambda: turn_models(config_dir, session), TRANSCRIPT_WRITE_S)
    return turn_models(config_dir, session)


def generation_calls(stack, sim: str) -> list[tuple[str, int | None]]:
    return [(c["model"], c["status"]) for c in calls_to(stack, sim) if c["api"] == "messages"]


async def test_claude_code_answers_on_its_own_fallback_model_and_its_transcript_says_which(stack, tmp_path):
    sim = await simulated(stack, "anthropic-own-fallback", claude_own_fallback("claude-opus-*", api_key=KEY))
    profile = claude_profile(stack, tmp_path, sim, **OWN_RETRIES)
    session, cand, config_dir = await started_session(tmp_path, profile, sim, "opus", FALLBACK)
    try:
        started = time.monotonic()
        answer = await asyncio.wait_for(session.prompt(PROMPT), 120)
        elapsed = time.monotonic() - started
        calls = generation_calls(stack, sim)
        opus, fallback = calls[0][0], calls[-1][0]
        # three overloaded answers for the resolved Opus id, then the same request on the fallback model
        assert opus.startswith("claude-opus-") and fallback.startswith("claude-sonnet-"), calls
        assert calls == [(opus, 529)] * CLAUDE_FALLBACK_AFTER_OVERLOADS + [(fallback, 200)]
        assert answer.startswith(f"[{fallback}]")  # the simulator's reply names the model that wrote it
        # the ACP client saw nothing of the switch; Claude Code's transcript names the model that answered
        models = await answered_models(config_dir, session)
        assert models == [fallback] and answered_by(cand.requested_model, models) == fallback
        # the switch lasts one turn: the next prompt starts on the selected model again, and pays for it again
        await asyncio.wait_for(session.prompt("And now?"), 120)
        assert generation_calls(stack, sim)[len(calls) :] == calls
        print(f"\nMEASURE claude-code own fallback: {len(calls)} calls per turn, answered in {elapsed:.1f}s")
    finally:
        await session.close()


async def test_without_a_fallback_model_claude_code_never_switches(stack, tmp_path):
    sim = await simulated(stack, "anthropic-no-fallback", claude_own_fallback("claude-opus-*", api_key=KEY))
    profile = claude_profile(stack, tmp_path, sim, **OWN_RETRIES)
    session, cand, config_dir = await started_session(tmp_path, profile, sim, "opus", None)
    try:
        with pytest.raises(ProviderCallError) as failed:
            await asyncio.wait_for(session.prompt(PROMPT), 120)
        calls = generation_calls(stack, sim)
        assert len(calls) == CLAUDE_FALLBACK_AFTER_OVERLOADS and {status for _, status in calls} == {529}
        assert all(model.startswith("claude-opus-") for model, _ in calls)  # the endpoint saw only the start model
        assert classify(failed.value.signal, utcnow()).code is ErrorCode.provider_overloaded
        assert answered_by(cand.requested_model, turn_models(config_dir, session)) is None
    finally:
        await session.close()


async def test_the_executor_reports_the_model_that_answered_the_turn(stack, tmp_path):
    sim = await simulated(stack, "anthropic-reported", claude_own_fallback("claude-opus-*", api_key=KEY))
    profile = claude_profile(stack, tmp_path, sim, **OWN_RETRIES)
    session, cand, _config_dir = await started_session(tmp_path, profile, sim, "opus", FALLBACK)
    plan = plan_model("opus", FALLBACK, False, session.choice.catalog)
    started = SessionStarted(decision=settle_model(plan, None, "opus"), model_to_send="opus", effective_model="opus")
    try:
        answer = await asyncio.wait_for(
            AgentExecutor(stack.store, session, cand, "claude").prompt(
                [Entry(seq=0, role="user", content=PROMPT)], started, True
            ),
            120,
        )
        assert answer.model == generation_calls(stack, sim)[-1][0]  # the fallback's id, not "opus"
    finally:
        await session.close()


async def test_a_run_whose_turns_claude_code_answers_on_its_fallback_keeps_one_warning(stack, tmp_path):
    sim = await simulated(stack, "anthropic-run-fallback", claude_own_fallback("claude-opus-*", api_key=KEY))
    profile = claude_profile(stack, tmp_path, sim, **OWN_RETRIES)
    ws, agent_name, _p = await stack.workspace({"claude": profile}, model="opus", fallback_model=FALLBACK)
    handle = await submit(
        stack.client, stack.store, ws, agent_name, PROMPT, task_queue=stack.task_queue, follow_ups=["And now?"]
    )
    view = await wait_for_view(stack.client, handle.id)
    assert view.status is RunStatus.completed, view.message
    fallback = generation_calls(stack, sim)[-1][0]
    assert fallback.startswith("claude-sonnet-")
    # both turns were answered on the fallback; one warning names the requested and the effective model
    stored = await stack.store.list_run_messages(view.run_id)
    assert [m.kind for m in stored] == ["model_selection_warning"]
    [warning] = view.warnings
    assert (warning.requested_model, warning.effective_model, warning.fallback_model) == ("opus", fallback, FALLBACK)


async def test_a_subscription_usage_limit_is_relayed_at_once_as_a_quota_with_its_reset(stack, tmp_path):
    reset_in_s = 3 * 3600 + 1800
    sim = await simulated(
        stack, "anthropic-usage-limit", claude_subscription_limit(reset_in_s=reset_in_s, window="seven_day_opus")
    )
    # A claude.ai subscriber: an OAuth token and no API key (the office's launch always sets the API key from
    # credential_env, so this is the agent's own login, given here the way Claude Code reads it).
    profile = claude_profile(stack, tmp_path, sim, credential=False)
    session, _cand, _config_dir = await started_session(
        tmp_path, profile, sim, "opus", None, CLAUDE_CODE_OAUTH_TOKEN="sim-oauth-token", TZ="UTC"
    )
    try:
        started = time.monotonic()
        with pytest.raises(ProviderCallError) as failed:
            await asyncio.wait_for(session.prompt(PROMPT), 120)
        elapsed = time.monotonic() - started
        relayed = failed.value.signal
        # no pause until the reset: one request, no retry, and the turn ends with Claude Code's notice
        assert generation_calls(stack, sim) == [(generation_calls(stack, sim)[0][0], 429)]
        assert relayed.jsonrpc_code == -32603 and relayed.error_text is not None
        assert re.search(
            r"Internal error: You've hit your Opus limit · resets \d{1,2}(:\d\d)?[ap]m \(UTC\)", relayed.error_text
        )
        signal = usage_limit_signal(relayed, utcnow())
        assert signal is not None
        result = classify(signal, utcnow())
        assert result.code is ErrorCode.quota_limited and result.retry_after_s is not None
        assert reset_in_s - 120 <= result.retry_after_s <= reset_in_s  # the clock is printed to the minute
        print(f"\nMEASURE claude-code usage limit relayed after {elapsed:.1f}s: {relayed.error_text!r}")
    finally:
        await session.close()
