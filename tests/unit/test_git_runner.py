"""A git command never outlives its welcome: one that hangs (a server that never answers, an ssh that waits) is
stopped after its bound with everything it started, and one whose activity is cancelled is stopped at once, so a
worker does not collect stuck git and ssh processes."""

import asyncio
import os
from pathlib import Path

import pytest

from activities.git import runner
from testkit.eventually import eventually


def alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in state


@pytest.fixture
def hanging_ssh(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """An environment whose ssh never answers: it writes its pid, then waits for a minute."""
    script = tmp_path / "ssh-that-hangs"
    pidfile = tmp_path / "ssh.pid"
    script.write_text(f'#!/bin/sh\necho $$ > "{pidfile}"\nexec sleep 60\n')
    script.chmod(0o755)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "GIT_SSH_COMMAND": str(script),
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}  # fmt: skip
    return env, pidfile


async def started_ssh(pidfile: Path) -> int:
    text = await eventually(lambda: pidfile.exists() and pidfile.read_text().strip(), timeout=10, what="ssh to start")
    return int(text)


async def test_a_command_that_hangs_is_stopped_after_its_bound_with_the_ssh_it_started(hanging_ssh, tmp_path):
    env, pidfile = hanging_ssh
    with pytest.raises(runner.GitTimeout, match="git ls-remote did not finish within 1 s"):
        await runner.run_git("ls-remote", "ssh://git.invalid/repo.git", cwd=tmp_path, env=env, timeout_s=1)
    ssh = int(pidfile.read_text())
    await eventually(lambda: not alive(ssh), timeout=5, what="the hanging ssh to be stopped")


async def test_a_cancelled_command_is_stopped_at_once_with_the_ssh_it_started(hanging_ssh, tmp_path):
    env, pidfile = hanging_ssh
    call = asyncio.create_task(runner.run_git("ls-remote", "ssh://git.invalid/repo.git", cwd=tmp_path, env=env))
    ssh = await started_ssh(pidfile)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    await eventually(lambda: not alive(ssh), timeout=5, what="the cancelled command's ssh to be stopped")


def test_a_stuck_command_is_the_infrastructures_fault_not_a_setting():
    assert issubclass(runner.GitTimeout, runner.RepositoryUnavailableError)
    assert runner.NETWORK_TIMEOUT_S > runner.LOCAL_TIMEOUT_S


async def test_a_command_that_finishes_in_time_answers_as_before(tmp_path):
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"}
    out = await runner.run_git("init", "--quiet", str(tmp_path / "r"), cwd=tmp_path, env=env, timeout_s=30)
    assert out.rc == 0 and (tmp_path / "r" / ".git").is_dir()


def git_env(tmp_path: Path) -> dict[str, str]:
    return {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x"}  # fmt: skip


@pytest.mark.parametrize("hook_ignores_sigterm", [False, True], ids=["hook-stops", "hook-ignores-sigterm"])
async def test_a_cancelled_commit_leaves_no_lock_behind_and_nothing_running(tmp_path, hook_ignores_sigterm):
    """`git commit -a` holds the index's lock while its pre-commit hook runs; a cancelled activity stops it there.
    The next command in that repository must not fail "index.lock: File exists", and the hook goes too, even one
    that ignores SIGTERM."""
    env, repo = git_env(tmp_path), tmp_path / "r"
    await runner.run_git("init", "--quiet", str(repo), cwd=tmp_path, env=env)
    (repo / "a.txt").write_text("a\n")
    await runner.run_git("add", "a.txt", cwd=repo, env=env)
    await runner.run_git("commit", "--quiet", "-m", "one", cwd=repo, env=env)
    (repo / "a.txt").write_text("b\n")
    pidfile, hook = tmp_path / "hook.pid", repo / ".git" / "hooks" / "pre-commit"
    trap = "trap '' TERM\n" if hook_ignores_sigterm else ""
    hook.write_text(f'#!/bin/sh\n{trap}echo $$ > "{pidfile}"\nwhile :; do sleep 0.1; done\n')
    hook.chmod(0o755)
    call = asyncio.create_task(runner.run_git("commit", "--quiet", "-a", "-m", "two", cwd=repo, env=env))
    hook_pid = await started_ssh(pidfile)
    assert (repo / ".git" / "index.lock").exists()  # the state a kill used to leave behind
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    await eventually(lambda: not alive(hook_pid), timeout=5, what="the cancelled commit's hook to be stopped")
    hook.unlink()
    assert not (repo / ".git" / "index.lock").exists()
    out = await runner.run_git("commit", "--quiet", "-a", "-m", "two", cwd=repo, env=env)
    assert out.rc == 0


async def test_a_hooks_background_child_holding_the_output_is_stopped_with_the_command(tmp_path):
    """git itself has exited, but a hook's background child still holds its output open, so the command never
    finishes: at its bound the whole group is stopped, the child included (not only a leader still running)."""
    env, repo = git_env(tmp_path), tmp_path / "r"
    await runner.run_git("init", "--quiet", str(repo), cwd=tmp_path, env=env)
    (repo / "a.txt").write_text("a\n")
    await runner.run_git("add", "a.txt", cwd=repo, env=env)
    pidfile, hook = tmp_path / "child.pid", repo / ".git" / "hooks" / "post-commit"
    hook.write_text(f'#!/bin/sh\nsleep 60 &\necho $! > "{pidfile}"\n')
    hook.chmod(0o755)
    with pytest.raises(runner.GitTimeout):
        await runner.run_git("commit", "--quiet", "-m", "one", cwd=repo, env=env, timeout_s=1)
    child = await started_ssh(pidfile)
    await eventually(lambda: not alive(child), timeout=5, what="the hook's background child to be stopped")
