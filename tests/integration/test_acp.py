"""ACP agents on the real dev server: the scripted agent (a real ACP process built on the package's agent
side) records every call it received, so these tests see exactly what the scheduler sent."""

import asyncio
import os
import signal
import socket
import sys
import uuid
from pathlib import Path

import pytest

from activities.executors import acp as acp_executor
from office.runs import wait_for_view
from office.simulator.config import SimProvider
from routing.run import RunStatus
from testkit.agents import received, running
from testkit.eventually import eventually
from testkit.factories import acp_profile, scripted_agent
from testkit.runs import run_to_end, submit_run

from .helpers import calls_to, start_worker, stop_workers

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def methods(log: Path) -> list[str]:
    return [c["method"] for c in received(log)]


async def test_advertised_model_is_applied_and_the_session_is_reaped(stack, tmp_path):
    log = tmp_path / "agent.jsonl"
    ws, agent, _p = await stack.workspace({"claude": scripted_agent(log, models=["m1", "m2"])}, model="m2")
    view = await run_to_end(stack, ws, agent, "Refactor the parser")
    assert view.status is RunStatus.completed and view.warnings == []
    assert methods(log) == ["initialize", "session/new", "session/set_config_option", "session/prompt"]
    assert received(log)[2]["value"] == "m2" and received(log)[3]["model"] == "m2"
    assert view.effective_model == "m2" and view.output == "[m2] turn 1: Refactor the parser"
    assert not running(log)  # the run's end closed the session and reaped the process (and its sandbox)
    transcript = await stack.store.read_transcript(view.run_id, 10)
    assert [(e.role, e.content) for e in transcript] == [("user", "Refactor the parser"), ("assistant", view.output)]


async def test_unadvertised_model_is_never_sent_and_one_warning_is_kept(stack, tmp_path):
    log = tmp_path / "agent.jsonl"
    ws, agent, _p = await stack.workspace({"claude": scripted_agent(log, models=["m1"])}, model="m9")
    view = await run_to_end(stack, ws, agent)
    assert view.status is RunStatus.completed
    assert "session/set_config_option" not in methods(log)  # no speculative selection call
    [warning] = view.warnings
    assert (warning.reason, warning.requested_model, warning.effective_model, warning.executor_type) == (
        "requested_not_advertised",
        "m9",
        "m1",
        "acp",
    )
    stored = await stack.store.list_run_messages(view.run_id)
    assert [m.kind for m in stored] == ["model_selection_warning"]


@pytest.mark.parametrize("script, calls", [({}, 0), ({"models": ["m1"], "set_model": "method_not_found"}, 1)])
async def test_selection_unsupported_continues_on_the_agent_default_with_a_warning(stack, tmp_path, script, calls):
    log = tmp_path / "agent.jsonl"
    ws, agent, _p = await stack.workspace({"claude": scripted_agent(log, **script)}, model="m1")
    view = await run_to_end(stack, ws, agent)
    assert view.status is RunStatus.completed
    assert methods(log).count("session/set_config_option") == calls  # at most the one attempt
    [warning] = view.warnings
    assert warning.reason == "selection_unsupported"


async def test_set_model_failure_fails_the_start_explicitly_unless_auto_fallback(stack, tmp_path):
    log = tmp_path / "strict.jsonl"
    ws, agent, _p = await stack.workspace(
        {"claude": scripted_agent(log, models=["m1", "m2"], set_model="error")}, model="m2"
    )
    view = await run_to_end(stack, ws, agent)
    assert view.status is RunStatus.failed
    assert "session/prompt" not in methods(log)
    assert "m2" in (view.message or "") and "cannot be used with this account" in (view.attempts[0].excerpt or "")

    log = tmp_path / "auto.jsonl"
    ws, agent, _p = await stack.workspace(
        {"claude": scripted_agent(log, models=["m1", "m2"], set_model="error")}, model="m2", auto_fallback=True
    )
    view = await run_to_end(stack, ws, agent)
    assert view.status is RunStatus.completed and view.output.startswith("[m1]")
    [warning] = view.warnings
    assert (warning.reason, warning.effective_model) == ("apply_failed", "m1")
    assert methods(log).count("session/set_config_option") == 1


async def test_auth_required_at_session_start_falls_back_to_the_next_provider(stack, tmp_path):
    log = tmp_path / "agent.jsonl"
    ws, agent, p = await stack.workspace({"claude": scripted_agent(log, auth_required=True), "beta": SimProvider()})
    view = await run_to_end(stack, ws, agent)
    assert view.status is RunStatus.completed
    assert [(a.provider, a.error_code, a.decision) for a in view.attempts] == [
        (p["claude"], "auth_required", "fallback"),
        (p["beta"], None, None),
    ]
    assert not running(log)


async def test_missing_agent_command_is_provider_not_configured_and_falls_back(stack):
    profile = acp_profile([f"/nonexistent/agent-{uuid.uuid4().hex[:6]}"])
    ws, agent, _p = await stack.workspace({"codex": profile, "beta": SimProvider()})
    view = await run_to_end(stack, ws, agent)
    assert view.status is RunStatus.completed
    assert next((a.error_code, a.rule) for a in view.attempts) == ("provider_not_configured", "exit.127")


async def test_failure_after_output_falls_back_with_the_run_transcript(stack, tmp_path):
    log = tmp_path / "agent.jsonl"
    ws, agent, p = await stack.workspace(
        {
            "claude": scripted_agent(
                log,
                fail_match="release code?",
                fail_after_output=True,
                fail_message='API Error: 529 {"type":"overloaded_error"}',
            ),
            "beta": SimProvider(),
        }
    )
    view = await run_to_end(
        stack, ws, agent, "Remember: the release code is R-77.", follow_ups=["What is the release code?"]
    )
    assert view.status is RunStatus.completed
    # 529 overload is transient: two fresh sessions on the same agent, then the next provider.
    assert [(a.provider, a.error_code) for a in view.attempts] == [
        (p["claude"], None),
        (p["claude"], "provider_overloaded"),
        (p["claude"], "provider_overloaded"),
        (p["claude"], "provider_overloaded"),
        (p["beta"], None),
    ]
    prompts = [c for c in received(log) if c["method"] == "session/prompt"]
    # Fresh sessions after the failure were given the run's own history in their first prompt.
    assert "Remember: the release code is R-77." in prompts[-1]["text"]
    [call] = calls_to(stack, p["beta"])
    users = [m["content"] for m in call["messages"] if m["role"] == "user"]
    assert users == ["Remember: the release code is R-77.", "What is the release code?"]
    assert [m["content"] for m in call["messages"] if m["role"] == "assistant"] == [
        "[agent-default] turn 1: Remember: the release code is R-77."
    ]  # not the partial output of the failed turn


async def test_a_blip_the_agent_words_as_nothing_is_read_from_the_relay_and_the_run_goes_on(stack, tmp_path):
    """The agent's provider refuses the connection and the agent only says "Something went wrong.": the worker's
    relay saw the refusal, so the turn is a network failure (retried, then the next provider), not an unknown error
    that ends the run."""
    with socket.socket() as probe:  # a port nothing listens on: the provider is down
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    call = f"import socket\ntry:\n socket.create_connection(('127.0.0.1', {port}), 5).recv(1)\nexcept OSError: pass"
    log = tmp_path / "agent.jsonl"
    vague = scripted_agent(
        log,
        actions=[{"run": [sys.executable, "-I", "-c", call]}],  # the agent calls its provider
        fail_match="task",
        fail_message="Something went wrong.",
        profile={"base_url": f"http://127.0.0.1:{port}/v1"},
    )
    ws, agent, p = await stack.workspace({"claude": vague, "beta": SimProvider()})
    view = await run_to_end(stack, ws, agent, "task")
    assert view.status is RunStatus.completed, view.message
    first = view.attempts[0]
    assert (first.provider, first.error_code, first.rule) == (p["claude"], "network_unavailable", "relay.ECONNREFUSED")
    assert {a.provider for a in view.attempts[:-1]} == {p["claude"]} and view.attempts[-1].provider == p["beta"]


async def test_worker_killed_while_the_agent_runs_recovers_and_leaks_no_process(stack, tmp_path):
    queue = f"acp-restart-{uuid.uuid4().hex[:6]}"
    log = tmp_path / "agent.jsonl"
    ws, agent, _p = await stack.workspace({"claude": scripted_agent(log, latency_s=4)})
    first, second = await start_worker(stack, queue, tmp_path / "w1.log"), None
    try:
        handle = await submit_run(stack, ws, agent, "task", task_queue=queue)
        await eventually(
            lambda: methods(log), until=lambda m: "session/prompt" in m, timeout=60, what="the agent's session/prompt"
        )
        first.send_signal(signal.SIGKILL)
        await first.wait()
        # the agent dies with its worker, not at some later cleanup
        await eventually(lambda: not running(log), timeout=10, what="the agent's processes to exit with its worker")
        second = await start_worker(stack, queue, tmp_path / "w2.log")
        view = await asyncio.wait_for(wait_for_view(stack.client, handle.id), timeout=90)
    finally:
        await stop_workers(first, second)
    assert view.status is RunStatus.completed
    assert [a.error_code for a in view.attempts] == ["worker_lost", None]  # the lost heartbeat, then a new session
    assert len({c["agent"] for c in received(log)}) == 2 and not running(log)


CLAUDE_BRIDGE = ROOT / ".cache" / "agents" / "node_modules" / ".bin" / "claude-agent-acp"


async def test_real_claude_code_bridge_without_credentials_is_auth_required_then_the_next_provider(stack, tmp_path):
    if not CLAUDE_BRIDGE.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{CLAUDE_BRIDGE} is missing: `make agents` installs @zed-industries/claude-agent-acp")
        pytest.skip("run `make agents` to install @zed-industries/claude-agent-acp")
    home = tmp_path / "home"  # an empty home: no Claude login of whoever runs the tests can leak in
    home.mkdir()
    claude = acp_profile([str(CLAUDE_BRIDGE)], env={"HOME": str(home)}, timeout_s=60)
    ws, agent, p = await stack.workspace({"claude": claude, "beta": SimProvider()}, model="sonnet")
    view = await run_to_end(stack, ws, agent)
    assert view.status is RunStatus.completed and view.provider == p["beta"]
    assert [(a.provider, a.error_code, a.decision) for a in view.attempts] == [
        (p["claude"], "auth_required", "fallback"),
        (p["beta"], None, None),
    ]
    catalogs = await stack.store.observed_catalogs([p["claude"]])
    assert "sonnet" in catalogs[p["claude"]]  # the bridge advertised its models; the start model was among them


async def test_follow_ups_reuse_the_live_session_and_send_only_the_new_turn(stack, tmp_path):
    log = tmp_path / "agent.jsonl"
    ws, agent, _p = await stack.workspace({"claude": scripted_agent(log, models=["m1"])}, model="m1")
    view = await run_to_end(stack, ws, agent, "Plan the refactor", follow_ups=["Now write step 1"])
    assert view.status is RunStatus.completed and view.output == "[m1] turn 2: Now write step 1"
    assert methods(log) == [
        "initialize",
        "session/new",
        "session/set_config_option",
        "session/prompt",
        "session/prompt",
    ]  # one agent process, one session, for both turns
    assert [c["text"] for c in received(log) if c["method"] == "session/prompt"] == [
        "Plan the refactor",
        "Now write step 1",
    ]


async def test_cancelling_the_run_cancels_the_agent_turn_and_reaps_the_process(stack, tmp_path):
    log = tmp_path / "agent.jsonl"
    ws, agent, _p = await stack.workspace({"claude": scripted_agent(log, latency_s=60, stream_first=True)})
    handle = await submit_run(stack, ws, agent, "a long task")
    progress = await eventually(  # the turn's progress shows on the pending activity, counts only
        lambda: _turn_progress(stack, handle),
        until=lambda progress: progress is not None and progress["message_chunks"] >= 1,
        timeout=30,
        interval=0.2,
        what="a streamed message chunk in the turn's heartbeat progress",
    )
    assert progress["chars"] == len("working on it ")
    await handle.cancel()
    # the activity learns of the cancel at its next heartbeat
    await eventually(lambda: not running(log), timeout=20, what="the agent's processes to be reaped after the cancel")
    assert methods(log)[-1] == "session/cancel"  # told the agent to stop before reaping it
    view = await wait_for_view(stack.client, handle.id)
    assert view.status is RunStatus.cancelled


async def _turn_progress(stack, handle) -> dict | None:
    pending = (await handle.describe()).raw_description.pending_activities
    details = [p.heartbeat_details.payloads for p in pending if p.heartbeat_details.payloads]
    return (await stack.client.data_converter.decode(details[0]))[0] if details else None


async def test_office_models_asks_an_acp_agent_what_it_advertises_now(stack, tmp_path):
    from office.catalogs import live_catalog

    log = tmp_path / "agent.jsonl"
    ws, _agent, p = await stack.workspace({"claude": scripted_agent(log, models=["m1", "m2"])})
    assert await live_catalog(stack.store, p["claude"], ws) == ["m1", "m2"]
    assert methods(log) == ["initialize", "session/new"] and not running(log)
    assert (await stack.store.observed_catalogs([p["claude"]]))[p["claude"]] == ["m1", "m2"]


async def test_a_workspace_without_a_sandbox_says_so_in_the_run_view(stack, tmp_path):
    log = tmp_path / "agent.jsonl"
    ws, agent, _p = await stack.workspace({"claude": scripted_agent(log)}, sandbox="none")
    view = await run_to_end(stack, ws, agent)
    assert view.status is RunStatus.completed
    assert view.sandbox_note is not None and "sandbox is off" in view.sandbox_note and ws in view.sandbox_note
    assert [a.sandbox for a in view.attempts] == ["none"]
    sandboxed_ws, sandboxed_agent, _ = await stack.workspace({"claude": scripted_agent(tmp_path / "other.jsonl")})
    sandboxed = await run_to_end(stack, sandboxed_ws, sandboxed_agent)
    assert sandboxed.sandbox_note is None and [a.sandbox for a in sandboxed.attempts] == [None]


@pytest.mark.parametrize("when", ["exit_at_start", "exit_code"])
async def test_an_agent_that_exits_early_is_provider_unavailable_and_the_run_goes_on(stack, tmp_path, when):
    log = tmp_path / "agent.jsonl"
    script = {when: 3, "fail_turn": 1} if when == "exit_code" else {when: 3}
    ws, agent, p = await stack.workspace({"claude": scripted_agent(log, **script), "beta": SimProvider()})
    view = await run_to_end(stack, ws, agent)
    assert view.status is RunStatus.completed, view.message
    *failed, last = [(a.provider, a.error_code) for a in view.attempts]
    assert failed and set(failed) == {(p["claude"], "provider_unavailable")}, view.attempts  # retried, then
    assert last == (p["beta"], None)  # fallen back: a provider that is unavailable is not the end of the run
    assert not running(log)


# Claude Code's words when its key is refused, as the office sees them on the agent's stderr.
REFUSED_KEY = 'API Error: 401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}'


@pytest.mark.parametrize(
    ("said", "attempts"),
    [
        (None, [("claude", "worker_lost", "short_retry"), ("claude", None, None)]),  # the same provider again
        (REFUSED_KEY, [("claude", "auth_required", "fallback"), ("beta", None, None)]),  # its words stand
    ],
    ids=["silent", "names-the-provider"],
)
async def test_an_agent_that_never_answers_initialize_is_the_workers_fault_unless_it_says_the_providers(
    stack, tmp_path, monkeypatch, said, attempts
):
    """An agent that has not answered `initialize` has not called its provider: a slow start on a loaded worker (or an
    agent hanging at start) is retried as the worker's fault, never evidence against the provider that would open
    its breaker for every run; the agent's own last words, when they name the provider's failure, still decide."""
    monkeypatch.setattr(acp_executor, "LAUNCH_TIMEOUT_S", 2.0)
    log = tmp_path / "agent.jsonl"
    script = {"stall_at_start": str(tmp_path / "stalled-once"), **({"start_stderr": said} if said else {})}
    ws, agent, p = await stack.workspace({"claude": scripted_agent(log, **script), "beta": SimProvider()})
    view = await run_to_end(stack, ws, agent)
    assert view.status is RunStatus.completed, view.message
    assert [(a.provider, a.error_code, a.decision) for a in view.attempts] == [
        (p[name], code, decision) for name, code, decision in attempts
    ]
    if said is None:
        stalled = "worker lost: the agent did not answer initialize within 2 s"
        assert (view.attempts[0].excerpt or "").startswith(stalled)
        assert await stack.store.health_events(run_id=view.run_id) == []  # the provider's health never moved
    assert not running(log)


async def test_an_agent_that_never_starts_moves_the_run_to_the_next_provider(stack, tmp_path, monkeypatch):
    """A profile whose agent never answers `initialize` (a command that hangs, or is no ACP agent) is the agent's, not
    a worker's: after two stalls on the route the run moves to the next provider, never twenty lost workers, and
    the provider's health never moves."""
    monkeypatch.setattr(acp_executor, "LAUNCH_TIMEOUT_S", 1.0)
    log = tmp_path / "agent.jsonl"
    ws, agent, p = await stack.workspace({"claude": scripted_agent(log, stall_at_start=True), "beta": SimProvider()})
    view = await run_to_end(stack, ws, agent)
    assert view.status is RunStatus.completed, view.message
    assert [(a.provider, a.error_code, a.decision) for a in view.attempts] == [
        *[(p["claude"], "worker_lost", "short_retry")] * 2,
        (p["claude"], "worker_lost", "fallback"),
        (p["beta"], None, None),
    ]
    assert await stack.store.health_events(run_id=view.run_id) == []
    assert not running(log)


async def test_an_agent_that_never_starts_with_no_other_provider_ends_the_run_naming_its_profile(
    stack, tmp_path, monkeypatch
):
    """Alone, the third stall ends the run at once with a message that names the profile to check, instead of
    twenty lost workers' retries of a launch timeout each; the provider's health never moves."""
    monkeypatch.setattr(acp_executor, "LAUNCH_TIMEOUT_S", 1.0)
    log = tmp_path / "agent.jsonl"
    ws, agent, p = await stack.workspace({"claude": scripted_agent(log, stall_at_start=True)})
    view = await run_to_end(stack, ws, agent)
    assert view.status is RunStatus.failed
    assert [(a.provider, a.error_code, a.decision) for a in view.attempts] == [
        *[(p["claude"], "worker_lost", "short_retry")] * 2,
        (p["claude"], "worker_lost", "fail"),
    ]
    assert view.error_code == "worker_lost"
    assert (view.message or "").startswith(f"Agent did not start: the agent for {p['claude']}"), view.message
    assert "The provider was not at fault" in (view.message or "")
    assert await stack.store.health_events(run_id=view.run_id) == []
    assert not running(log)
