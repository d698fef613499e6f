"""The real agents from npm (`make agents`), offline against the provider simulator's native APIs, on the real
dev server: Claude Code over Anthropic Messages, Codex over the OpenAI Responses API, Gemini CLI. No mocks: the
simulator records every call the agent's own HTTP client made, so the tests count what a provider received."""

import asyncio
import os
import signal
import socket
import time
import uuid
from pathlib import Path

import pytest

from activities.executors.launcher import OWNER_ENV
from office.runs import wait_for_view
from office.simulator.config import InjectedFailure, ScriptedToolUse, SimProvider
from routing.config import ExecutionProfile
from routing.permissions import PermissionPolicy
from routing.repository import RepositoryConfig
from routing.run import RunStatus
from testkit.factories import acp_profile
from testkit.runs import run_to_end, submit_run

from .helpers import calls_to, start_worker, stop_workers
from .test_repository_runs import bare_repo, git
from .test_usage import answered_usage

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / ".cache" / "agents" / "node_modules" / ".bin"
KEY = "sk-sim-test"  # what conftest puts in OFFICE_CRED_TEST_KEY on the worker


def agent(name: str) -> Path:
    path = BIN / name
    if not path.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{path} is missing: `make agents` installs the real agents")
        pytest.skip("run `make agents` to install the real agents")
    return path


def marked(owner_pid: int) -> list[int]:
    """Live processes of the agent trees a worker (by pid) started: each carries the worker's mark."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes().split(b"\0")
            state = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        if "\nState:\tZ" in state:
            continue
        if any(v.startswith(f"{OWNER_ENV}={owner_pid}:".encode()) for v in environ):
            found.append(int(entry))
    return found


async def until(condition, within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if condition():
            return True
        await asyncio.sleep(0.1)
    return bool(condition())


async def gone(pids_of, within_s: float) -> bool:
    return await until(lambda: not pids_of(), within_s)


def is_guard(pid: int) -> bool:
    try:
        return b"guard.py" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


@pytest.fixture(autouse=True)
async def no_agent_outlives_its_test():
    yield
    assert await gone(lambda: marked(os.getpid()), 10), "an agent process of this test is still running"


async def simulated(stack, prefix: str, provider: SimProvider) -> str:
    name = f"{prefix}-{uuid.uuid4().hex[:8]}"
    await stack.simulator.set_provider(name, provider)
    return name


def profile(stack, tmp_path: Path, command: list[str], sim_name: str, **env: str) -> ExecutionProfile:
    home = tmp_path / f"home-{sim_name}"  # an empty home: no login or settings of whoever runs the tests
    home.mkdir(exist_ok=True)
    return acp_profile(
        command,
        base_url=stack.simulator.provider_url(sim_name),
        credential_env="OFFICE_CRED_TEST_KEY",
        env={"HOME": str(home), **env},
        timeout_s=60,
        heartbeat_timeout_s=5,
    )


AUTH = InjectedFailure(status=401, kind="auth")


def claude_provider(**kw) -> SimProvider:
    return SimProvider(models=["claude-*"], api_key=KEY, **kw)


async def test_claude_code_two_turns_on_one_live_session_writes_the_scripted_file(stack, tmp_path):
    sim = await simulated(
        stack,
        "anthropic",
        claude_provider(
            tool_uses=[
                ScriptedToolUse(  # the client offers fs/*: Claude Code writes through its ACP tool, i.e. through us
                    name="Write",
                    input={"file_path": "notes/plan.md", "content": "# Plan\n"},
                    match_text="the plan",
                )
            ]
        ),
    )
    claude = profile(stack, tmp_path, [str(agent("claude-agent-acp"))], sim)
    ws, agent_name, p = await stack.workspace({"claude": claude}, model="sonnet")
    bare = await with_repository(stack, ws, tmp_path)
    started = time.monotonic()
    view = await run_to_end(
        stack, ws, agent_name, "Write the plan to notes/plan.md", follow_ups=["What did you write?"]
    )
    elapsed = time.monotonic() - started
    assert view.status is RunStatus.completed, view.message
    transcript = await stack.store.read_transcript(view.run_id, 10)
    answers = [e.content for e in transcript if e.role == "assistant"]
    # In a git working copy Claude Code also asks its model to summarise "Files modified by user": not a turn.
    calls = [c for c in calls_to(stack, sim) if not str(c["messages"][0]["content"]).startswith("Files modified by")]
    # Turn 1: the scripted Write, then the text answer once the tool result came back; turn 2: one call.
    assert [(c["api"], c.get("tool_use"), c["tool_result"], c["status"]) for c in calls] == [
        ("messages", "Write", False, 200),
        ("messages", None, True, 200),
        ("messages", None, False, 200),
    ]
    assert answers == [calls[1]["reply"], calls[2]["reply"]] and len(answers) == 2
    assert answers[1].startswith("[claude-sonnet-") and "re: What did you write?" in answers[1]
    # The second prompt went to the live session: Claude Code sent its own history, not a forwarded snapshot.
    assert [m["role"] for m in calls[2]["messages"]] == ["user", "assistant", "user"]
    assert calls[2]["messages"][0]["content"] == "Write the plan to notes/plan.md"
    # the run's branch in the bare repository holds exactly that change, in one commit (turn 2 changed nothing)
    branch = f"office/{view.run_id}"
    assert git("diff", "--name-only", "main", branch, cwd=bare).split() == ["notes/plan.md"]
    assert git("show", f"{branch}:notes/plan.md", cwd=bare) == "# Plan\n"
    assert git("rev-list", "--count", f"main..{branch}", cwd=bare).strip() == "1"
    assert view.result is not None and (view.result.files_changed, view.result.insertions) == (1, 1)
    # claude-agent-acp asks before the Write (the one edit question); Claude Code then writes the file itself
    assert view.permissions.allowed == {"edit": 1}
    assert [(a.provider, a.model, a.error_code) for a in view.attempts] == [(p["claude"], "sonnet", None)] * 2
    assert view.effective_model == "sonnet"  # the model the agent reports after the one selection call
    print(f"\nMEASURE claude-code: 2 turns in {elapsed:.1f}s ({elapsed / 2:.1f}s per turn incl. session start)")


CLAUDE_FAILURES = [
    # (injected failure, expected code, expected attempts on the failing provider)
    (InjectedFailure(status=401, kind="auth"), "auth_required", 1),
    (InjectedFailure(status=529, kind="overloaded"), "provider_overloaded", 3),
    (InjectedFailure(status=429, kind="rate_limit", retry_after_s=7), "rate_limited", 3),
    (InjectedFailure(status=400, kind="credit_balance"), "subscription_required", 1),
]


async def _failing_run(stack, tmp_path, command: list[str], prefix: str, provider: SimProvider, model: str):
    sim = await simulated(stack, prefix, provider)
    failing = profile(stack, tmp_path, command, sim)
    ws, agent_name, p = await stack.workspace({"agent": failing, "beta": SimProvider()}, model=model)
    started = time.time()
    view = await run_to_end(stack, ws, agent_name, "Fix the failing test")
    moved_on = min(c["at"] for c in calls_to(stack, p["beta"])) - started
    return view, p, calls_to(stack, sim), moved_on


async def test_claude_code_relays_provider_failures_once_per_attempt_and_the_run_falls_back(stack, tmp_path):
    claude = [str(agent("claude-agent-acp"))]
    results = await asyncio.gather(
        *(
            _failing_run(stack, tmp_path, claude, f"anthropic-{f.status}", claude_provider(failures=[f]), "sonnet")
            for f, _, _ in CLAUDE_FAILURES
        )
    )
    for (failure, code, attempts), (view, p, calls, moved_on) in zip(CLAUDE_FAILURES, results, strict=True):
        assert view.status is RunStatus.completed and view.provider == p["beta"], (failure.status, view.message)
        on_agent = [a for a in view.attempts if a.provider == p["agent"]]
        assert [a.error_code for a in on_agent] == [code] * attempts, (failure.status, on_agent)
        assert on_agent[-1].decision == "fallback"
        assert len(calls) == len(on_agent), (failure.status, len(calls))  # Claude Code's own retries are off
        if failure.status == 529:
            assert len(calls) <= 3 and moved_on < 60
        print(f"\nMEASURE claude-code {failure.status}: {len(calls)} calls, fallback after {moved_on:.1f}s")


async def test_claude_code_saying_please_run_login_is_its_answer_not_a_login_every_run_would_need(stack, tmp_path):
    """claude-agent-acp answers authRequired for any finished turn whose final text holds "Please run /login"; text a
    repository can put in the model's mouth. Read as the bridge says, the run switched provider and marked the
    provider as needing a login for every run of the workspace. The model's answer (the simulator echoes the prompt)
    stands: one attempt, completed on the same provider, no health event."""
    sim = await simulated(stack, "anthropic-login-words", claude_provider())
    claude = profile(stack, tmp_path, [str(agent("claude-agent-acp"))], sim)
    ws, agent_name, p = await stack.workspace({"claude": claude, "beta": SimProvider()}, model="sonnet")
    view = await run_to_end(stack, ws, agent_name, "The README's setup says: Please run /login first.")
    assert view.status is RunStatus.completed, view.message
    assert [(a.provider, a.error_code) for a in view.attempts] == [(p["claude"], None)]
    [call] = calls_to(stack, sim)
    assert "Please run /login" in (view.output or "") and view.output == call["reply"]
    assert await stack.store.health_events(run_id=view.run_id) == []
    # The bridge threw its result (and the turn's counts) away: they are read from Claude Code's own transcript, so
    # the turn is priced and budgeted like any other, not an answer of unknown cost.
    assert view.attempts[0].usage == answered_usage(call) and view.usage == answered_usage(call)


async def test_codex_completes_a_turn_over_the_responses_api_and_relays_failures(stack, tmp_path):
    codex = [str(agent("codex-acp"))]
    sim = await simulated(stack, "openai", SimProvider(models=["gpt-*"], api_key=KEY))
    ws, agent_name, p = await stack.workspace({"codex": profile(stack, tmp_path, codex, sim)}, model="gpt-5.4")
    started = time.monotonic()
    view = await run_to_end(stack, ws, agent_name, "Refactor the parser")
    elapsed = time.monotonic() - started
    assert view.status is RunStatus.completed, view.message
    [call] = calls_to(stack, sim)
    assert (call["api"], call["model"], call["status"]) == ("responses", "gpt-5.4", 200)
    assert view.output == call["reply"] and "re: Refactor the parser" in view.output
    assert [(a.provider, a.model) for a in view.attempts] == [(p["codex"], "gpt-5.4")]
    print(f"\nMEASURE codex: 1 turn in {elapsed:.1f}s incl. session start")

    cases = [
        (InjectedFailure(status=401, kind="auth"), "auth_required", 1),
        (InjectedFailure(status=429, kind="rate_limit", retry_after_s=7), "rate_limited", 3),
    ]
    results = await asyncio.gather(
        *(
            _failing_run(stack, tmp_path, codex, f"openai-{f.status}", SimProvider(models=["gpt-*"], failures=[f]), "x")
            for f, _, _ in cases
        )
    )
    for (failure, code, attempts), (view, p, calls, moved_on) in zip(cases, results, strict=True):
        assert view.status is RunStatus.completed and view.provider == p["beta"], (failure.status, view.message)
        on_agent = [a for a in view.attempts if a.provider == p["agent"]]
        assert [a.error_code for a in on_agent] == [code] * attempts, (failure.status, on_agent)
        assert len(calls) == len(on_agent)  # request_max_retries = 0
        print(f"\nMEASURE codex {failure.status}: {len(calls)} calls, fallback after {moved_on:.1f}s")


async def test_gemini_cli_without_credentials_is_auth_required_at_session_start(stack, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    gemini = acp_profile([str(agent("gemini")), "--experimental-acp"], env={"HOME": str(home)}, timeout_s=60)
    ws, agent_name, p = await stack.workspace({"gemini": gemini, "beta": SimProvider()})
    view = await run_to_end(stack, ws, agent_name, "Fix the failing test")
    assert view.status is RunStatus.completed
    # JSON-RPC -32000 "Gemini API key is missing or not configured.": auth_required by its code, or the more
    # precise missing_credentials by its text; both need the user's action and fall back now.
    [(provider, code, decision), last] = [(a.provider, a.error_code, a.decision) for a in view.attempts]
    assert (provider, decision, last) == (p["gemini"], "fallback", (p["beta"], None, None))
    assert code in ("auth_required", "missing_credentials")


async def test_claude_code_tree_dies_with_its_worker_and_a_restarted_worker_reaps_leftovers(stack, tmp_path):
    claude = [str(agent("claude-agent-acp"))]
    hang = InjectedFailure(status=504, kind="timeout", hold_s=120, match_text="hang")
    sim = await simulated(stack, "anthropic-tree", claude_provider(failures=[hang]))
    ws, agent_name, _p = await stack.workspace({"claude": profile(stack, tmp_path, claude, sim)}, model="sonnet")
    unsandboxed = await stack.workspace(
        {"claude": profile(stack, tmp_path, claude, sim)}, model="sonnet", sandbox="none"
    )
    queue = f"real-tree-{uuid.uuid4().hex[:6]}"
    workers: list = []

    async def mid_turn(prompt: str, workspace: str = ws, agent_name: str = agent_name):
        worker = await start_worker(stack, queue, tmp_path / f"w{len(workers)}.log")
        workers.append(worker)
        handle = await submit_run(stack, workspace, agent_name, prompt, task_queue=queue)
        held = lambda: any(c["status"] is None and prompt in str(c["messages"]) for c in calls_to(stack, sim))  # noqa: E731
        assert await until(held, 60)  # the agent's call is held by the provider: the turn is in flight
        tree = marked(worker.pid)
        assert len(tree) >= 3, tree  # sandbox (or guard), the claude-agent-acp bridge, the Claude Code CLI it spawned
        return worker, handle, tree

    try:
        # 1. A worker SIGKILLed mid-turn: no process of the agent's tree outlives it by more than a few seconds.
        worker, first, tree = await mid_turn("hang on, first")
        worker.send_signal(signal.SIGKILL)
        await worker.wait()
        killed = time.monotonic()
        assert await gone(lambda: [pid for pid in tree if _alive(pid)], 5)
        print(
            f"\nMEASURE claude-code tree ({len(tree)} processes) gone {time.monotonic() - killed:.1f}s after its worker"
        )
        await first.terminate()

        # 2. Worker and sandbox killed at once (nothing of ours left to clean up): the sandbox's pid namespace ends
        #    with it, so no process of the agent survives.
        worker, second, tree = await mid_turn("hang on, second")
        outer = [pid for pid in tree if is_sandbox(pid) and _parent(pid) == worker.pid]
        assert outer, tree
        for pid in (*outer, worker.pid):  # the sandbox first: a worker dying first takes it along on its own
            os.kill(pid, signal.SIGKILL)
        await worker.wait()
        assert await gone(lambda: [pid for pid in tree if _alive(pid)], 5)
        await second.terminate()

        # 3. Without a sandbox, worker and guard killed at once: the bridge and the CLI are orphans, and a
        #    restarted worker's start-up reap takes them. They are stopped first: claude-agent-acp may also exit by
        #    itself once its stdin closes, and this is about the orphans that do not.
        worker, third, tree = await mid_turn("hang on, third", unsandboxed.name, unsandboxed.agent)
        [guard] = [pid for pid in tree if is_guard(pid)]
        for pid in tree:
            if pid != guard:
                os.kill(pid, signal.SIGSTOP)
        for pid in (guard, worker.pid):  # the guard first: a worker dying first sends it its parent-death SIGTERM
            os.kill(pid, signal.SIGKILL)
        await worker.wait()
        await asyncio.sleep(1)
        orphans = [pid for pid in tree if _alive(pid)]
        assert orphans, "expected the bridge and CLI to survive a guard killed with its worker"
        workers.append(await start_worker(stack, queue, tmp_path / "restarted.log"))  # reaps at start-up
        assert await gone(lambda: [pid for pid in tree if _alive(pid)], 30)
        await third.terminate()
    finally:
        await stop_workers(*workers)


def is_sandbox(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].endswith(b"bwrap")
    except OSError:
        return False


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


async def with_repository(stack, workspace: str, tmp_path: Path) -> Path:
    """The workspace gets a fresh bare repository and a policy that lets the agent edit; returns the repository."""
    bare = bare_repo(tmp_path)
    config = await stack.store.get_workspace(workspace)
    await stack.store.save_workspace(
        config.model_copy(
            update={"repository": RepositoryConfig(url=str(bare)), "permissions": PermissionPolicy(edit="allow")}
        )
    )
    return bare


def _alive(pid: int) -> bool:
    try:
        return "\nState:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False


async def test_gemini_cli_completes_a_turn_against_the_simulators_gemini_api(stack, tmp_path):
    sim = await simulated(stack, "google", SimProvider(models=["gemini-*"], api_key=KEY))
    gemini = profile(stack, tmp_path, [str(agent("gemini")), "--experimental-acp"], sim)  # GOOGLE_GEMINI_BASE_URL
    # An explicit model: "auto" would first ask a flash-lite router for a JSON verdict the simulator does not script.
    ws, agent_name, p = await stack.workspace({"gemini": gemini}, model="gemini-2.5-pro")
    started = time.monotonic()
    view = await run_to_end(stack, ws, agent_name, "Explain the bug")
    elapsed = time.monotonic() - started
    assert view.status is RunStatus.completed, view.message
    [call] = calls_to(stack, sim)
    assert (call["api"], call["model"], call["stream"]) == ("gemini", "gemini-2.5-pro", True)
    assert view.output == call["reply"] and [(a.provider, a.model) for a in view.attempts] == [
        (p["gemini"], "gemini-2.5-pro")
    ]
    print(f"\nMEASURE gemini-cli: 1 turn in {elapsed:.1f}s incl. session start")


GEMINI_FAILURES = [
    # (injected failure, expected code): each attempt is one call, whatever Gemini CLI would retry by itself
    (InjectedFailure(status=503, kind="overloaded", apis=["gemini"]), "model_capacity"),
    (InjectedFailure(status=429, kind="rate_limit", apis=["gemini"]), "rate_limited"),
]
OPENCODE_FAILURES = [
    # (injected failure, expected code): each attempt is one call, whatever OpenCode would retry by itself
    (InjectedFailure(status=503, kind="overloaded"), "provider_overloaded"),
    (InjectedFailure(status=429, kind="rate_limit", retry_after_s=7), "rate_limited"),
]


async def one_call_per_attempt(stack, tmp_path, command, prefix, models, model, failures, within_s):
    """Runs failing on each injected failure, side by side: every attempt on the failing provider is one call, read
    as the expected code, and the run falls back within `within_s`. Returns the attempts of each."""
    results = await asyncio.gather(
        *(
            _failing_run(stack, tmp_path, command, f"{prefix}-{f.status}", SimProvider(
                models=models, api_key=KEY, failures=[f]), model)
            for f, _ in failures
        )
    )  # fmt: skip
    attempts = []
    for (failure, code), (view, p, calls, moved_on) in zip(failures, results, strict=True):
        assert view.status is RunStatus.completed and view.provider == p["beta"], (failure.status, view.message)
        on_agent = [a for a in view.attempts if a.provider == p["agent"]]
        assert [a.error_code for a in on_agent] == [code] * len(on_agent) and on_agent[-1].decision == "fallback"
        assert len(calls) == len(on_agent) <= 3, (failure.status, len(calls))
        assert moved_on < within_s, moved_on
        print(f"\nMEASURE {command[0].rsplit('/', 1)[-1]} {failure.status}: {len(calls)} calls, fallback after "
              f"{moved_on:.1f}s")  # fmt: skip
        attempts.append(on_agent)
    return attempts


async def test_gemini_cli_makes_one_call_per_attempt_and_the_run_falls_back_in_seconds(stack, tmp_path):
    """Gemini CLI retries a failed call up to 10 times with 5-30 s backoff unless its settings say otherwise: a
    rate-limited or overloaded provider took each attempt's whole timeout and several calls (the figures are on the
    benchmark page). With its own retries off the decider's are the only ones."""
    gemini = [str(agent("gemini")), "--experimental-acp"]
    await one_call_per_attempt(stack, tmp_path, gemini, "google", ["gemini-*"], "gemini-2.5-pro", GEMINI_FAILURES, 30)


async def test_opencode_makes_one_call_per_attempt_and_the_run_falls_back_in_seconds(stack, tmp_path):
    """OpenCode retries a retryable failure five more times by itself, obeying any Retry-After, and no setting turns
    that off: the office's plugin stops its first retry and says what the provider said, so each attempt is one
    call, read as the provider's failure, and the decider's retries are the only ones. The bound on the time to
    the next provider leaves room for three slow launches of OpenCode on a loaded machine; its own retries (five per
    attempt, each after the 7 s Retry-After) would take over 100 s, and the call count tells them apart too."""
    opencode = [str(agent("opencode")), "acp"]
    attempts = await one_call_per_attempt(
        stack, tmp_path, opencode, "openai-oc", ["gpt-*"], "openai/gpt-5.4", OPENCODE_FAILURES, 60
    )
    assert all((a.rule or "").startswith("unverified.") for on_agent in attempts for a in on_agent)


async def test_opencode_completes_a_turn_that_edits_the_repository_and_relays_failures(stack, tmp_path):
    """OpenCode (`opencode acp`) over its built-in OpenAI provider (Responses API) pointed at the simulator: the
    scripted apply_patch is asked of the office first (edit), then the answer; a 401 falls back at once."""
    opencode = [str(agent("opencode")), "acp"]
    patch = "*** Begin Patch\n*** Add File: notes/plan.md\n+# Plan\n*** End Patch"
    sim = await simulated(
        stack,
        "openai-oc",
        SimProvider(
            models=["gpt-*"],
            api_key=KEY,
            tool_uses=[ScriptedToolUse(name="apply_patch", input={"patchText": patch}, match_text="the plan")],
        ),
    )
    # OpenCode names its models provider/model: its catalog is the OpenAI models it ships, "openai/gpt-5.4" among them.
    ws, agent_name, p = await stack.workspace(
        {"opencode": profile(stack, tmp_path, opencode, sim)}, model="openai/gpt-5.4"
    )
    bare = await with_repository(stack, ws, tmp_path)
    started = time.monotonic()
    handle = await submit_run(stack, ws, agent_name, "Write the plan to notes/plan.md")
    failing = _failing_run(
        stack, tmp_path, opencode, "openai-oc-401", SimProvider(models=["gpt-*"], failures=[AUTH]), "openai/gpt-5.4"
    )
    view, (failed, fp, failed_calls, moved_on) = await asyncio.gather(wait_for_view(stack.client, handle.id), failing)
    elapsed = time.monotonic() - started
    assert view.status is RunStatus.completed, view.message
    calls = calls_to(stack, sim)  # no title-generation call: only the turn's own
    assert [(c["api"], c["model"], c.get("tool_use"), c["tool_result"], c["status"]) for c in calls] == [
        ("responses", "gpt-5.4", "apply_patch", False, 200),
        ("responses", "gpt-5.4", None, True, 200),
    ]
    assert view.output == calls[1]["reply"] and "re: Write the plan" in view.output
    assert [(a.provider, a.model) for a in view.attempts] == [(p["opencode"], "openai/gpt-5.4")]
    assert git("show", f"office/{view.run_id}:notes/plan.md", cwd=bare) == "# Plan\n"
    assert view.permissions.asked.get("edit", 0) >= 1 and not view.permissions.refused  # OpenCode asked first
    # 401: JSON-RPC -32603 "Internal error: Incorrect API key provided …" (no status; OpenCode does not retry it)
    assert failed.status is RunStatus.completed and failed.provider == fp["beta"], failed.message
    assert [(a.error_code, a.decision) for a in failed.attempts if a.provider == fp["agent"]] == [
        ("auth_required", "fallback")
    ]
    assert len(failed_calls) == 1
    print(
        f"\nMEASURE opencode: 1 turn with an edit in {elapsed:.1f}s incl. session start; 401 fallback {moved_on:.1f}s"
    )


DOWN = [  # (the agent, its arguments, a model it is given)
    ("claude-agent-acp", [], "sonnet"),
    ("codex-acp", [], "gpt-5.4"),
    ("gemini", ["--experimental-acp"], "gemini-2.5-pro"),
    ("opencode", ["acp"], "openai/gpt-5.4"),
]


async def test_a_provider_that_refuses_every_connection_is_a_blip_to_every_real_agent(stack, tmp_path):
    """The provider is down (nothing listens on its port). Inside the sandbox each agent sees its relay accept and
    hang up, and says so in its own words; each is read as the network: the same route again, then the next
    provider, never an unknown error that ends the run."""
    with socket.socket() as probe:  # a port nothing listens on: the provider is down
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    async def down(name: str, args: list[str], model: str):
        sim = await simulated(stack, f"down-{name}", SimProvider())
        failing = profile(stack, tmp_path, [str(agent(name)), *args], sim).model_copy(
            update={"base_url": f"http://127.0.0.1:{port}/v1"}
        )
        ws, agent_name, p = await stack.workspace({"agent": failing, "beta": SimProvider()}, model=model)
        started = time.time()
        view = await run_to_end(stack, ws, agent_name, "Fix the failing test")
        return view, p, time.time() - started

    results = await asyncio.gather(*(down(*d) for d in DOWN))
    for (name, _, _), (view, p, took) in zip(DOWN, results, strict=True):
        on_agent = [a for a in view.attempts if a.provider == p["agent"]]
        assert view.status is RunStatus.completed and view.provider == p["beta"], (name, view.message)
        assert [a.error_code for a in on_agent] == ["network_unavailable"] * len(on_agent), (name, on_agent)
        assert on_agent[0].decision == "short_retry" and on_agent[-1].decision == "fallback", (name, on_agent)
        print(f"\nMEASURE {name} provider down: {len(on_agent)} attempts, {on_agent[0].rule}, next provider after "
              f"{took:.1f}s")  # fmt: skip
