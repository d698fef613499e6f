"""Runs that change a repository, on the real dev server with real git: local bare repositories in tmp_path, the
scripted ACP agent (a real process) writing through the client's fs/write_text_file or straight into its cwd."""

import asyncio
import os
import shutil
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from office.runs import wait_for_view
from office.simulator.config import SimProvider
from office.worker_runtime import office_worker
from routing.permissions import PermissionPolicy
from routing.repository import RepositoryConfig
from routing.run import RunStatus
from testkit.agents import received
from testkit.eventually import eventually
from testkit.factories import scripted_agent
from testkit.runs import run_to_end, submit_run

from .helpers import calls_to, start_worker, stop_workers

pytestmark = pytest.mark.integration
NO_TELEMETRY = {"OFFICE_OTEL_EXPORTER": "none"}


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def bare_repo(tmp_path: Path, name: str = "app") -> Path:
    """A bare repository seeded with one commit on main (README)."""
    bare, seed = tmp_path / f"{name}.git", tmp_path / f"{name}-seed"
    git("init", "--quiet", "--bare", "-b", "main", str(bare), cwd=tmp_path)
    git("init", "--quiet", "-b", "main", str(seed), cwd=tmp_path)
    (seed / "README").write_text("hello\n")
    git("add", "README", cwd=seed)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "seed", cwd=seed)
    git("push", "--quiet", str(bare), "main", cwd=seed)
    return bare


def files_at(bare: Path, ref: str) -> dict[str, str]:
    names = git("ls-tree", "-r", "--name-only", ref, cwd=bare).split()
    return {n: git("show", f"{ref}:{n}", cwd=bare) for n in names}


def refs(bare: Path, prefix: str) -> list[str]:
    return [r for r in git("for-each-ref", "--format=%(refname)", cwd=bare).split() if r.startswith(prefix)]


async def with_repository(stack, workspace: str, bare: Path | str, base_ref: str = "main", **policy) -> None:
    ws = await stack.store.get_workspace(workspace)
    repository = RepositoryConfig(url=str(bare), base_ref=base_ref)
    await stack.store.save_workspace(
        ws.model_copy(update={"repository": repository, "permissions": PermissionPolicy(**policy)})
    )


async def test_a_run_commits_its_change_to_its_own_branch_and_shows_the_result(stack, tmp_path):
    bare, log = bare_repo(tmp_path), tmp_path / "agent.jsonl"
    ws, agent, _p = await stack.workspace(
        {"claude": scripted_agent(log, actions=[{"write": "src/a.txt", "content": "A\n"}])}
    )
    await with_repository(stack, ws, bare, edit="allow")
    started = time.monotonic()
    view = await run_to_end(stack, ws, agent, "Add a.txt")
    elapsed = time.monotonic() - started
    assert view.status is RunStatus.completed, view.message
    branch = f"office/{view.run_id}"
    assert files_at(bare, branch) == {"README": "hello\n", "src/a.txt": "A\n"}
    base = git("rev-parse", "main", cwd=bare).strip()
    assert git("diff", "--name-only", base, branch, cwd=bare).split() == ["src/a.txt"]  # exactly that change
    r = view.result
    assert r is not None and (r.branch, r.base_commit, r.files_changed, r.insertions, r.deletions) == (
        branch,
        base,
        1,
        1,
        0,
    )
    assert r.head_commit == git("rev-parse", branch, cwd=bare).strip()
    assert view.permissions.allowed == {"edit": 1} and view.permissions.refused == {}
    # the working copy is gone when the run ends; the branch stays
    [new] = [c for c in received(log) if c["method"] == "session/new"]
    assert not await asyncio.to_thread(os.path.exists, new["cwd"])
    # `office runs diff` prints the run's diff from the repository
    from office.cli.common import Services
    from office.cli.run_calls import run_diff

    text = await run_diff(Services(stack.client, stack.store), view.run_id)
    assert "+++ b/src/a.txt" in text and "+A" in text
    # the Temporal UI's details of the run name its branch
    from temporalio.api.sdk.v1 import WorkflowMetadata

    handle = stack.client.get_workflow_handle(view.run_id)
    meta = await handle.query("__temporal_workflow_metadata", result_type=WorkflowMetadata)
    assert meta.current_details.startswith(f"branch {branch} at {r.head_commit[:12]}")
    print(f"\nMEASURE one turn with commit+push: {elapsed:.2f}s")


async def test_failover_keeps_the_work_and_the_failed_turn_only_on_its_side_ref(stack, tmp_path):
    bare, log_a, log_b = bare_repo(tmp_path), tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    agent_a = scripted_agent(
        log_a,
        fail_match="second task",
        fail_message='API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
        actions=[
            {"match": "first task", "write": "a.txt", "content": "from A\n"},
            {"match": "second task", "write": "partial.txt", "content": "half\n", "via": "cwd"},
        ],
    )
    agent_b = scripted_agent(
        log_b,
        actions=[
            {"match": "second task", "read": "a.txt"},
            {"match": "second task", "write": "b.txt", "content": "from B\n"},
        ],
    )
    ws, agent, p = await stack.workspace({"a": agent_a, "b": agent_b})
    await with_repository(stack, ws, bare, edit="allow")
    view = await run_to_end(stack, ws, agent, "Do the first task", follow_ups=["Now the second task"])
    assert view.status is RunStatus.completed, view.message
    assert (view.attempts[0].provider, view.attempts[0].error_code) == (p["a"], None)
    assert view.attempts[-1].provider == p["b"] and view.attempts[-2].decision == "fallback"
    branch = f"office/{view.run_id}"
    assert files_at(bare, branch) == {"README": "hello\n", "a.txt": "from A\n", "b.txt": "from B\n"}
    turn1 = git("rev-parse", f"{branch}~1", cwd=bare).strip()
    # B started in a working copy at turn 1's commit, with the continuation note in its first prompt
    [b_new] = [c for c in received(log_b) if c["method"] == "session/new"]
    [b_prompt] = [c for c in received(log_b) if c["method"] == "session/prompt"]
    assert b_prompt["text"].startswith(
        f"[office] You are continuing this run on branch {branch}, at commit {turn1[:12]}"
    )
    assert [c.get("content") for c in received(log_b) if c.get("read")] == ["from A\n"]
    assert b_new["fs"] is True
    # every failed attempt of turn 2 kept its partial change on its own side ref, never on the branch
    failed = refs(bare, f"refs/heads/office-failed/{view.run_id}-")
    failed_seqs = [a.seq for a in view.attempts if a.error_code]
    assert sorted(failed) == sorted(f"refs/heads/office-failed/{view.run_id}-{s}" for s in failed_seqs)
    for ref in failed:
        assert files_at(bare, ref)["partial.txt"] == "half\n" and "b.txt" not in files_at(bare, ref)
    assert view.result is not None and view.result.files_changed == 2


async def test_a_fallback_to_an_http_provider_keeps_the_branch_and_says_so(stack, tmp_path):
    bare, log = bare_repo(tmp_path), tmp_path / "agent.jsonl"
    ws, agent, p = await stack.workspace({"claude": scripted_agent(log, auth_required=True), "beta": SimProvider()})
    await with_repository(stack, ws, bare, edit="allow")
    view = await run_to_end(stack, ws, agent, "Change something")
    assert view.status is RunStatus.completed and view.provider == p["beta"]
    assert view.result is None and refs(bare, "refs/heads/office/") == []
    assert f"office/{view.run_id} was not changed" in (view.repository_note or "")


async def test_worker_killed_in_turn_two_continues_elsewhere_from_the_pushed_commit(stack, tmp_path):
    bare, log = bare_repo(tmp_path), tmp_path / "agent.jsonl"
    profile = scripted_agent(
        log,
        actions=[
            {"match": "first", "write": "a.txt", "content": "one\n"},
            {"match": "second", "write": "b.txt", "content": "two\n"},
            {"match": "second", "sleep": 4},
        ],
    )
    ws, agent, _p = await stack.workspace({"claude": profile})
    await with_repository(stack, ws, bare, edit="allow")
    queue = f"repo-restart-{uuid.uuid4().hex[:6]}"
    first_dir, second_dir = tmp_path / "w1", tmp_path / "w2"
    first = await start_worker(stack, queue, tmp_path / "w1.log", OFFICE_WORK_DIR=str(first_dir), **NO_TELEMETRY)
    second = None
    try:
        handle = await submit_run(stack, ws, agent, "the first", task_queue=queue, follow_ups=["the second"])
        await eventually(
            lambda: [c for c in received(log) if c["method"] == "session/prompt"],
            until=lambda prompts: any("second" in c["text"] for c in prompts),
            timeout=60,
            what="turn 2's prompt",
        )
        first.send_signal(signal.SIGKILL)
        await first.wait()
        shutil.rmtree(first_dir)  # nothing from the lost worker's disk is needed
        second = await start_worker(stack, queue, tmp_path / "w2.log", OFFICE_WORK_DIR=str(second_dir), **NO_TELEMETRY)
        view = await asyncio.wait_for(wait_for_view(stack.client, handle.id), timeout=90)
    finally:
        await stop_workers(first, second)
    assert view.status is RunStatus.completed, view.message
    assert [a.error_code for a in view.attempts] == [None, "worker_lost", None]
    branch = f"office/{view.run_id}"
    assert files_at(bare, branch) == {"README": "hello\n", "a.txt": "one\n", "b.txt": "two\n"}
    news = [c["cwd"] for c in received(log) if c["method"] == "session/new"]
    assert news[0].startswith(str(first_dir)) and news[-1].startswith(str(second_dir))
    assert not (second_dir / "worktrees").exists() or list((second_dir / "worktrees").iterdir()) == []


async def test_twenty_runs_on_one_repository_each_get_only_their_own_change(stack, tmp_path):
    bare, log = bare_repo(tmp_path), tmp_path / "agent.jsonl"
    profile = scripted_agent(log, actions=[{"write": "{last}.txt", "content": "{last}\n"}])
    ws, agent, _p = await stack.workspace({"claude": profile})
    await with_repository(stack, ws, bare, edit="allow")
    started = time.monotonic()
    views = await asyncio.gather(*(run_to_end(stack, ws, agent, f"task-{i:02d}") for i in range(20)))
    elapsed = time.monotonic() - started
    base = git("rev-parse", "main", cwd=bare).strip()
    assert len(refs(bare, "refs/heads/office/")) >= 20
    for i, view in enumerate(views):
        assert view.status is RunStatus.completed, view.message
        branch = f"office/{view.run_id}"
        assert git("diff", "--name-only", base, branch, cwd=bare).split() == [f"task-{i:02d}.txt"]
        assert files_at(bare, branch)[f"task-{i:02d}.txt"] == f"task-{i:02d}\n"
    print(f"\nMEASURE 20 concurrent runs with commit+push: {elapsed:.1f}s")


async def test_policy_refusals_are_counted_and_the_run_goes_on(stack, tmp_path):
    bare, log = bare_repo(tmp_path), tmp_path / "agent.jsonl"
    outside = tmp_path / f"outside-{uuid.uuid4().hex[:6]}.txt"
    profile = scripted_agent(
        log,
        actions=[
            {"permission": "execute", "raw_input": {"command": "make deploy"}, "title": "make deploy"},
            {"write": str(outside), "content": "escaped\n"},
            {"permission": "edit", "raw_input": {"file_path": "../../etc/passwd"}, "title": "Edit passwd"},
            {"permission": "fetch", "raw_input": {"url": "https://example.com"}, "title": "fetch"},
            {"permission": "edit", "raw_input": {"file_path": "ok.txt"}, "title": "Edit ok.txt"},
            {"write": "ok.txt", "content": "fine\n"},
        ],
    )
    ws, agent, _p = await stack.workspace({"claude": profile})
    await with_repository(stack, ws, bare, edit="allow")
    view = await run_to_end(stack, ws, agent, "Try things")
    assert view.status is RunStatus.completed, view.message
    assert view.permissions.refused == {"edit": 2, "execute": 1, "fetch": 1}
    assert view.permissions.allowed == {"edit": 2}
    assert not outside.exists()
    outcomes = [c.get("option") or c.get("error") for c in received(log) if c["method"] == "action"]
    assert outcomes[0] == "reject" and "outside" in outcomes[1] and outcomes[2:4] == ["reject", "reject"]
    assert outcomes[4] == "allow"  # allow_once, never allow_always
    assert files_at(bare, f"office/{view.run_id}")["ok.txt"] == "fine\n"


@pytest.mark.parametrize(
    "case, setting",
    [("url", "repository.url"), ("base_ref", "repository.base_ref"), ("work_dir", "OFFICE_WORK_DIR")],
)
async def test_bad_repository_settings_fail_at_once_naming_the_setting(stack, tmp_path, case, setting):
    bare, log = bare_repo(tmp_path), tmp_path / "agent.jsonl"
    ws, agent, p = await stack.workspace({"claude": scripted_agent(log), "beta": SimProvider()})
    url = str(tmp_path / "nowhere.git") if case == "url" else bare
    await with_repository(stack, ws, url, base_ref="release-9" if case == "base_ref" else "main")
    queue = None
    if case == "work_dir":  # a worker whose working-copy root is a file: no working copy can be created there
        blocker = tmp_path / "not-a-dir"
        blocker.write_text("")
        queue = f"repo-baddir-{uuid.uuid4().hex[:6]}"
        async with office_worker(stack.client, stack.database_url, queue, work_dir=str(blocker / "sub")):
            view = await run_to_end(stack, ws, agent, "Change something", task_queue=queue)
    else:
        view = await run_to_end(stack, ws, agent, "Change something")
    assert view.status is RunStatus.failed and view.error_code == "invalid_configuration"
    assert setting in (view.message or ""), view.message
    assert view.attempts == [] and not log.exists()  # no agent started, no provider tried
    assert calls_to(stack, p["beta"]) == []
    assert await stack.store.list_health([p["claude"], p["beta"]]) == []


def test_office_work_dir_default_is_private_state_not_a_shared_temp_path(monkeypatch, tmp_path):
    from activities.workdir import private_dir
    from office.settings import work_dir_from_env

    monkeypatch.delenv("OFFICE_WORK_DIR", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert work_dir_from_env() == str(tmp_path / "state" / "office" / "work")
    made = private_dir(Path(work_dir_from_env()))
    assert [oct(p.stat().st_mode & 0o777) for p in (made, made.parent, made.parent.parent)] == ["0o700"] * 3
