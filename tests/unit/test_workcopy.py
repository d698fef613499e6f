"""Runs that change a repository, against real bare repositories made in tmp_path (activities/git/)."""

import asyncio
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from activities.executors import acp_fs
from activities.git import runner, workcopy
from activities.git.mirrors import Mirrors
from routing.repository import (
    BranchMovedError,
    RepositoryConfig,
    RepositoryConfigError,
    branch_for,
    failed_ref,
)

GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.com",
           "GIT_COMMITTER_NAME": "Dev", "GIT_COMMITTER_EMAIL": "dev@example.com"}  # fmt: skip


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=GIT_ENV, check=True, capture_output=True, text=True).stdout


def remote(bare: Path, *args: str) -> str:
    return git(f"--git-dir={bare}", *args)


def files_at(bare: Path, ref: str) -> set[str]:
    return set(remote(bare, "ls-tree", "-r", "--name-only", ref).split())


@pytest.fixture
def repo(tmp_path) -> Path:
    """A bare repository with a main branch of two files and a tag."""
    seed = tmp_path / "seed"
    seed.mkdir()
    git("init", "-q", "-b", "main", cwd=seed)
    (seed / "README.md").write_text("# app\n")
    (seed / "app.py").write_text("print('hello')\n")
    git("add", ".", cwd=seed)
    git("commit", "-q", "-m", "initial", cwd=seed)
    git("tag", "v1", cwd=seed)
    bare = tmp_path / "app.git"
    git("clone", "-q", "--bare", str(seed), str(bare))
    return bare


@pytest.fixture
def config(repo) -> RepositoryConfig:
    return RepositoryConfig(url=str(repo), base_ref="main")


async def test_a_turns_file_lands_in_a_commit_on_the_runs_branch_in_the_repository(repo, config, tmp_path):
    wc = await workcopy.prepare("run-1", config, None, Mirrors(tmp_path / "worker-a"))
    assert wc.branch == "office/run-1" and (wc.path / "app.py").exists()
    assert git("rev-parse", "--abbrev-ref", "HEAD", cwd=wc.path).strip() == "office/run-1"
    assert wc.base_commit == remote(repo, "rev-parse", "main").strip() == wc.head

    (wc.path / "feature.py").write_text("def f():\n    return 1\n")
    (wc.path / "app.py").write_text("print('hello, world')\n")
    turn = await workcopy.commit_turn(wc, 1, "alpha", "gpt-x")

    assert turn.changed and (turn.files_changed, turn.insertions, turn.deletions) == (2, 3, 1)
    assert remote(repo, "rev-parse", "office/run-1").strip() == turn.commit == wc.head
    assert files_at(repo, "office/run-1") == {"README.md", "app.py", "feature.py"}
    author, subject = remote(repo, "log", "-1", "--format=%an <%ae>%n%s", "office/run-1").splitlines()
    assert author == "Office <office@localhost>"
    assert "turn 1" in subject and "alpha" in subject and "gpt-x" in subject
    assert remote(repo, "rev-parse", "main").strip() == wc.base_commit  # the base ref is never touched


async def test_a_turn_that_changed_nothing_makes_no_commit_but_the_branch_exists(repo, config, tmp_path):
    wc = await workcopy.prepare("run-idle", config, None, Mirrors(tmp_path / "w"))
    turn = await workcopy.commit_turn(wc, 1, "alpha", None)
    assert not turn.changed and turn.commit == wc.base_commit and turn.files_changed == 0
    assert remote(repo, "rev-parse", "office/run-idle").strip() == wc.base_commit  # pushed, with no empty commit
    again = await workcopy.commit_turn(wc, 2, "alpha", None)
    assert again.commit == turn.commit
    assert remote(repo, "rev-list", "--count", "office/run-idle").strip() == "1"


async def test_another_worker_continues_from_the_last_completed_turn(repo, config, tmp_path):
    first = await workcopy.prepare("run-2", config, None, Mirrors(tmp_path / "worker-a"))
    (first.path / "notes.md").write_text("step 1 done\n")
    t1 = await workcopy.commit_turn(first, 1, "alpha", "m1")
    await workcopy.remove(first)  # the first worker is gone; only the branch remains

    # a fallback on another worker (its own root, its own mirror), given only the commit id from history
    second = await workcopy.prepare("run-2", config, t1.commit, Mirrors(tmp_path / "worker-b"))
    assert (second.path / "notes.md").read_text() == "step 1 done\n"
    assert second.base_commit == first.base_commit  # read from the branch itself (Office-Base trailer)
    assert second.path != first.path

    note = await workcopy.continuation_note(second)
    assert "office/run-2" in note and t1.commit[:12] in note and "notes.md" in note and "+1 -0" in note
    assert len(note) < 1000

    (second.path / "notes.md").write_text("step 1 done\nstep 2 done\n")
    t2 = await workcopy.commit_turn(second, 2, "beta", "m2")
    assert remote(repo, "rev-parse", "office/run-2^").strip() == t1.commit  # a straight line of turns
    res = await workcopy.result(second)
    assert res.model_dump() == {
        "branch": "office/run-2", "base_commit": first.base_commit, "head_commit": t2.commit,
        "files_changed": 1, "insertions": 2, "deletions": 0,
    }  # fmt: skip
    text = await Mirrors(tmp_path / "cli").diff(config, res.base_commit, res.head_commit)
    assert "+step 2 done" in text and "notes.md" in text


async def test_a_failed_turns_partial_change_is_only_on_its_side_ref(repo, config, tmp_path):
    worker = Mirrors(tmp_path / "w")
    wc = await workcopy.prepare("run-3", config, None, worker)
    (wc.path / "done.txt").write_text("complete\n")
    t1 = await workcopy.commit_turn(wc, 1, "alpha", "m")
    (wc.path / "half.txt").write_text("partial\n")
    (wc.path / "done.txt").write_text("complete\nand then it broke\n")

    kept = await workcopy.keep_failed(wc, 2)

    assert kept and remote(repo, "rev-parse", failed_ref("run-3", 2)).strip() == kept
    assert "half.txt" in files_at(repo, "office-failed/run-3-2")
    assert remote(repo, "rev-parse", "office/run-3").strip() == t1.commit  # the branch did not move
    assert "half.txt" not in files_at(repo, "office/run-3")
    retry = await workcopy.prepare("run-3", config, t1.commit, worker)  # same worker, next attempt
    assert not (retry.path / "half.txt").exists()
    assert (retry.path / "done.txt").read_text() == "complete\n"
    assert not wc.path.exists()  # the earlier attempt's working copy on this worker is gone
    assert await workcopy.keep_failed(retry, 3) is None  # nothing partial: no side ref
    assert not remote(repo, "for-each-ref", "refs/heads/office-failed/run-3-3")


async def test_a_lock_a_killed_attempt_left_on_the_runs_branch_does_not_stop_the_next(config, tmp_path):
    worker = Mirrors(tmp_path / "w")
    first = await workcopy.prepare("run-5", config, None, worker)
    (first.mirror / "refs" / "heads" / "office" / "run-5.lock").write_text("")  # git SIGKILLed holding the ref
    retry = await workcopy.prepare("run-5", config, None, worker)
    assert retry.branch == "office/run-5" and (retry.path / "app.py").exists()


async def test_a_retry_in_the_same_session_is_reset_to_the_last_completed_turn(config, tmp_path):
    wc = await workcopy.prepare("run-4", config, None, Mirrors(tmp_path / "w"))
    (wc.path / "a.txt").write_text("a\n")
    t1 = await workcopy.commit_turn(wc, 1, "alpha", "m")
    (wc.path / "a.txt").write_text("broken\n")
    (wc.path / "junk.txt").write_text("junk\n")
    await workcopy.reset_to(wc)
    assert (wc.path / "a.txt").read_text() == "a\n" and not (wc.path / "junk.txt").exists()
    assert wc.head == t1.commit


async def test_twenty_runs_at_once_each_get_a_branch_with_only_their_own_change(repo, config, tmp_path):
    worker = Mirrors(tmp_path / "worker")
    runs = [f"run-{i:02d}" for i in range(20)]

    async def one(run_id: str):
        wc = await workcopy.prepare(run_id, config, None, worker)
        (wc.path / f"{run_id}.txt").write_text(f"{run_id}\n")
        turn = await workcopy.commit_turn(wc, 1, "alpha", "m")
        await workcopy.remove(wc)
        return wc, turn

    done = await asyncio.gather(*(one(r) for r in runs))

    assert len({wc.path for wc, _ in done}) == 20  # never a shared working copy
    base = files_at(repo, "main")
    for (wc, turn), run_id in zip(done, runs, strict=True):
        assert remote(repo, "rev-parse", f"office/{run_id}").strip() == turn.commit
        assert files_at(repo, f"office/{run_id}") == base | {f"{run_id}.txt"}
        assert not wc.path.exists()
    assert len(list((worker.root / "mirrors").glob("*.git"))) == 1  # one mirror shared by the worker's runs


async def test_runs_starting_together_on_a_worker_share_one_fetch_and_a_later_run_fetches_again(
    repo, config, tmp_path, monkeypatch
):
    fetches: list[str] = []
    real = asyncio.create_subprocess_exec

    async def spy(*args, **kw):
        if "fetch" in args:
            fetches.append(str(kw.get("cwd")))
        return await real(*args, **kw)

    monkeypatch.setattr(asyncio, "create_subprocess_exec", spy)
    worker, other = Mirrors(tmp_path / "worker"), Mirrors(tmp_path / "other")
    together = await asyncio.gather(*(workcopy.prepare(f"run-t{i}", config, None, worker) for i in range(6)))
    assert len(fetches) == 1  # one fetch saw everything the six runs needed
    seed = tmp_path / "seed"
    (seed / "app.py").write_text("print('newer')\n")
    git("commit", "-q", "-am", "newer", cwd=seed)
    git("push", "-q", str(repo), "main", cwd=seed)

    later = await workcopy.prepare("run-later", config, None, worker)
    elsewhere = await workcopy.prepare("run-elsewhere", config, None, other)  # another worker: its own mirror
    assert len(fetches) == 3
    assert later.base_commit == elsewhere.base_commit == remote(repo, "rev-parse", "main").strip()
    assert later.base_commit != together[0].base_commit and (later.path / "app.py").read_text() == "print('newer')\n"


async def test_a_stale_worker_cannot_overwrite_newer_work(repo, config, tmp_path):
    a = await workcopy.prepare("run-5", config, None, Mirrors(tmp_path / "worker-a"))
    (a.path / "one.txt").write_text("1\n")
    t1 = await workcopy.commit_turn(a, 1, "alpha", "m")
    # worker A is presumed lost; the run continues on worker B from the recorded commit
    b = await workcopy.prepare("run-5", config, t1.commit, Mirrors(tmp_path / "worker-b"))
    (b.path / "two.txt").write_text("2\n")
    t2 = await workcopy.commit_turn(b, 2, "beta", "m")
    # worker A comes back and finishes its (stale) turn
    (a.path / "stale.txt").write_text("old\n")
    with pytest.raises(BranchMovedError, match="stale"):
        await workcopy.commit_turn(a, 2, "alpha", "m")
    assert remote(repo, "rev-parse", "office/run-5").strip() == t2.commit


async def test_commits_the_agent_made_itself_are_part_of_the_turn(repo, config, tmp_path):
    wc = await workcopy.prepare("run-6", config, None, Mirrors(tmp_path / "w"))
    (wc.path / "x.txt").write_text("x\n")
    git("add", "x.txt", cwd=wc.path)
    git("commit", "-q", "-m", "agent's own commit", cwd=wc.path)
    (wc.path / "y.txt").write_text("y\n")
    turn = await workcopy.commit_turn(wc, 1, "alpha", "m")
    assert turn.files_changed == 2
    assert {"x.txt", "y.txt"} <= files_at(repo, "office/run-6")


async def test_base_ref_may_be_a_tag_and_run_ids_become_safe_branch_names(repo, tmp_path):
    wc = await workcopy.prepare(
        "user run: fix #12", RepositoryConfig(url=str(repo), base_ref="v1"), None, Mirrors(tmp_path)
    )
    assert wc.branch == branch_for("user run: fix #12") and wc.branch.startswith("office/user-run-fix-12-")
    assert branch_for("user run: fix #12") != branch_for("user run: fix #13")
    await workcopy.commit_turn(wc, 1, "alpha", "m")
    assert remote(repo, "rev-parse", wc.branch).strip() == wc.base_commit


@pytest.mark.parametrize(
    ("settings", "setting", "words"),
    [
        ({"url": "/nowhere/app.git"}, "repository.url", "repository.url /nowhere/app.git cannot be reached"),
        ({"base_ref": "mian"}, "repository.base_ref", "repository.base_ref 'mian' does not exist"),
        ({"push_credential_env": "OFFICE_CRED_TEST_UNSET_TOKEN"}, "repository.push_credential_env", "not set"),
        ({"push_credential_env": "OFFICE_DATABASE_URL"}, "repository.push_credential_env", "never sent"),
        ({"push_credential_env": "AWS_SECRET_ACCESS_KEY"}, "repository.push_credential_env", "does not allow"),
    ],
)
async def test_bad_settings_fail_at_once_naming_the_setting(repo, tmp_path, settings, setting, words):
    config = RepositoryConfig(**{"url": str(repo), **settings})
    with pytest.raises(RepositoryConfigError) as err:
        await workcopy.prepare("run-bad", config, None, Mirrors(tmp_path / "w"))
    assert err.value.setting == setting
    assert words in str(err.value)
    if setting == "repository.base_ref":
        assert "main" in str(err.value) and "set it to an existing branch or tag" in str(err.value)
    assert not list((tmp_path / "w").glob("worktrees/*"))


async def test_a_working_copy_that_cannot_be_created_is_a_configuration_error(config, tmp_path):
    root = tmp_path / "w"
    root.mkdir()
    (root / "worktrees").write_text("a file where the working copies should go\n")
    with pytest.raises(RepositoryConfigError, match="cannot be created") as err:
        await workcopy.prepare("run-nowhere", config, None, Mirrors(root))
    assert err.value.setting == "repository"


def test_urls_carrying_credentials_or_transport_helpers_are_refused():
    for url in ("https://user:ghp_secret@github.com/o/r.git", "https://ghp_secret@github.com/o/r.git",
                "ext::sh -c touch% /tmp/pwned", "--upload-pack=evil"):  # fmt: skip
        with pytest.raises(ValueError, match=r"repository\.url"):
            RepositoryConfig(url=url)
    assert RepositoryConfig(url="git@github.com:o/r.git").url == "git@github.com:o/r.git"
    for ref in ("ma in", "a..b", "-x", "main.lock", "x~1"):
        with pytest.raises(ValueError, match=r"repository\.base_ref"):
            RepositoryConfig(url="/srv/git/app.git", base_ref=ref)


async def test_the_push_credential_reaches_git_only_through_the_environment(repo, tmp_path, monkeypatch):
    secret = "tok-very-secret-1234"
    monkeypatch.setenv("OFFICE_CRED_TEST_PUSH_TOKEN", secret)
    config = RepositoryConfig(url=str(repo), push_credential_env="OFFICE_CRED_TEST_PUSH_TOKEN")
    seen: list[tuple[tuple[str, ...], dict[str, str]]] = []
    real = asyncio.create_subprocess_exec

    async def spy(*args, **kw):
        seen.append((tuple(str(a) for a in args), dict(kw.get("env") or {})))
        return await real(*args, **kw)

    monkeypatch.setattr(asyncio, "create_subprocess_exec", spy)
    wc = await workcopy.prepare("run-cred", config, None, Mirrors(tmp_path / "w"))
    (wc.path / "f.txt").write_text("f\n")
    await workcopy.commit_turn(wc, 1, "alpha", "m")
    assert seen and not any(secret in a for argv, _ in seen for a in argv)
    assert not any(secret in v for _, env in seen for v in env.values())  # a local repository never gets it
    assert secret not in remote(repo, "config", "--list") and secret not in (wc.mirror / "config").read_text()


HTTPS = RepositoryConfig(url="https://git.example.com/team/app.git", push_credential_env="OFFICE_CRED_TEST_PUSH_TOKEN")


def test_the_token_is_in_the_environment_of_fetch_and_push_only(tmp_path, monkeypatch):
    monkeypatch.setenv("OFFICE_CRED_TEST_PUSH_TOKEN", "tok-very-secret-1234")
    net, local = runner.git_env(HTTPS, tmp_path, network=True), runner.git_env(HTTPS, tmp_path)
    assert net[runner.TOKEN_VAR] == "tok-very-secret-1234" and net[runner.HOST_VAR] == "git.example.com"
    assert "tok-very-secret-1234" not in local.values() and runner.TOKEN_VAR not in local


@pytest.mark.parametrize(
    ("protocol", "host", "answered"),
    [
        ("https", "git.example.com", True),
        ("http", "git.example.com", False),  # never over plain http
        ("https", "elsewhere.example.com", False),  # a redirect target, a submodule, another remote
        ("https", "git.example.com.evil.test", False),
        ("https", "git.example.com:8443", False),
        ("https", "", False),
    ],
)
def test_the_credential_helper_answers_only_https_on_the_configured_host(
    tmp_path, monkeypatch, protocol, host, answered
):
    monkeypatch.setenv("OFFICE_CRED_TEST_PUSH_TOKEN", "tok-very-secret-1234")
    out = credential_fill(HTTPS, tmp_path, f"protocol={protocol}\nhost={host}\n\n")
    assert ("password=tok-very-secret-1234" in out.splitlines()) is answered, out


def credential_fill(config: RepositoryConfig, root: Path, request: str) -> str:
    """What `git credential fill` answers with the office's options and environment (a helper that says nothing
    leaves git asking a terminal, which is off: then the output is empty)."""
    env = runner.git_env(config, root, network=True)
    return subprocess.run(
        ["git", *runner.net_args(env), "credential", "fill"],
        input=request,
        env=env,
        capture_output=True,
        text=True,
    ).stdout


async def test_removing_a_working_copy_frees_its_disk_and_keeps_the_branch(repo, config, tmp_path):
    wc = await workcopy.prepare("run-7", config, None, Mirrors(tmp_path / "w"))
    (wc.path / "big.bin").write_bytes(os.urandom(200_000))
    await workcopy.commit_turn(wc, 1, "alpha", "m")
    assert workcopy.disk_bytes(wc.path) >= 200_000
    await workcopy.remove(wc)
    assert not wc.path.exists()
    assert "big.bin" in files_at(repo, "office/run-7")
    assert wc.branch not in git("worktree", "list", cwd=wc.mirror)


def test_fs_methods_are_confined_to_the_working_copy(tmp_path):
    wc = tmp_path / "wc"
    (wc / "src").mkdir(parents=True)
    (wc / ".git").write_text("gitdir: /somewhere\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    (wc / "link").symlink_to(outside)

    acp_fs.write_text_file(wc, str(wc / "src" / "new" / "m.py"), "a\nb\nc\n")
    assert acp_fs.read_text_file(wc, "src/new/m.py") == "a\nb\nc\n"
    assert acp_fs.read_text_file(wc, str(wc / "src/new/m.py"), line=2, limit=1) == "b\n"
    for path in (str(outside / "secret.txt"), "../outside/secret.txt", "link/secret.txt", "~/x"):
        with pytest.raises(PermissionError):
            acp_fs.read_text_file(wc, path)
        with pytest.raises(PermissionError):
            acp_fs.write_text_file(wc, path, "pwned\n")
    with pytest.raises(PermissionError, match=r"\.git"):
        acp_fs.write_text_file(wc, ".git", "gitdir: /etc\n")
    assert (outside / "secret.txt").read_text() == "secret\n"


run_ids = st.one_of(
    st.text(min_size=1, max_size=40),
    st.from_regex(r"[a-z0-9][a-z0-9._-]{0,20}(-[0-9a-f]{10})?", fullmatch=True),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(run_ids, min_size=2, max_size=6, unique=True))
def test_every_run_id_gets_its_own_valid_branch(ids):
    branches = [branch_for(i) for i in ids]
    assert len(set(branches)) == len(ids)  # distinct runs never share a branch, however their ids are spelled
    names = [*(f"refs/heads/{b}" for b in branches), *(failed_ref(i, 3) for i in ids)]
    script = 'for r; do git check-ref-format "$r" || echo "invalid: $r"; done'
    checked = subprocess.run(["sh", "-c", script, "-", *names], capture_output=True, text=True, check=True)
    assert "invalid" not in checked.stdout, checked.stdout


# ---------------------------------------------------------------------------------------- working copy bounds


def committed(tmp_path: Path, name: str, files: dict[str, int]) -> Path:
    """A bare repository whose main holds `files` (path: size), each of zeros: cheap in objects, full size on
    disk once checked out."""
    seed, bare = tmp_path / f"{name}-seed", tmp_path / f"{name}.git"
    git("init", "-q", "-b", "main", str(seed))
    for path, size in files.items():
        (seed / path).parent.mkdir(parents=True, exist_ok=True)
        with (seed / path).open("wb") as fh:
            fh.truncate(size)  # sparse: the seed costs no disk either
    git("add", ".", cwd=seed)
    git("-c", "core.compression=1", "commit", "-q", "-m", "files", cwd=seed)
    git("clone", "-q", "--bare", "--no-local", str(seed), str(bare))
    shutil.rmtree(seed)
    return bare


def du(path: Path) -> int:
    return sum(p.lstat().st_blocks * 512 for p in path.rglob("*"))


async def test_a_200_mb_file_of_zeros_is_refused_before_checkout(tmp_path):
    bare = committed(tmp_path, "big", {"README.md": 7, "assets/zeros.bin": 200_000_000})
    root = tmp_path / "worker"
    started = time.monotonic()
    with pytest.raises(RepositoryConfigError) as err:
        await workcopy.prepare("run-big", RepositoryConfig(url=str(bare)), None, Mirrors(root))
    elapsed = time.monotonic() - started
    assert err.value.setting == "repository.max_file_bytes"
    message = str(err.value)
    assert "\n" not in message and "assets/zeros.bin" in message and "190.7 MiB" in message, message
    assert "over repository.max_file_bytes (50.0 MiB)" in message and "raise repository.max_file_bytes" in message
    assert not list(root.glob("worktrees/*"))  # nothing was checked out
    print(f"\nMEASURE 200 MB of zeros: repository {du(bare) / 1e6:.2f} MB, worker after refusal {du(root) / 1e6:.2f} "
          f"MB, refused in {elapsed:.2f}s")  # fmt: skip
    assert du(bare) < 2_000_000 and du(root) < 5_000_000


async def test_the_limits_are_the_workspaces_to_set(tmp_path):
    bare = committed(tmp_path, "sized", {"a.bin": 300_000, "b.bin": 300_000, "c.bin": 300_000})
    exact = RepositoryConfig(url=str(bare), max_file_bytes=300_000, max_checkout_bytes=3 * 303_104)
    worker = Mirrors(tmp_path / "w")
    wc = await workcopy.prepare("run-fits", exact, None, worker)  # at the limits: fine
    assert (wc.path / "c.bin").stat().st_size == 300_000

    with pytest.raises(RepositoryConfigError) as err:
        await workcopy.prepare("run-file", exact.model_copy(update={"max_file_bytes": 299_999}), None, worker)
    assert err.value.setting == "repository.max_file_bytes" and "a.bin" in str(err.value)

    tight = exact.model_copy(update={"max_checkout_bytes": 800_000})  # each file fits, the three together do not
    with pytest.raises(RepositoryConfigError) as err:
        await workcopy.prepare("run-total", tight, None, worker)
    assert err.value.setting == "repository.max_checkout_bytes"
    assert "909,312 bytes on disk (3 files)" in str(err.value), str(err.value)
    assert "raise repository.max_checkout_bytes" in str(err.value)


async def test_many_tiny_files_count_as_the_disk_they_take(tmp_path):
    bare = committed(tmp_path, "tiny", {f"d{i % 10}/f{i}.txt": 1 for i in range(300)})
    config = RepositoryConfig(url=str(bare), max_checkout_bytes=1024 * 1024)  # 300 × 4 KiB blocks > 1 MiB
    with pytest.raises(RepositoryConfigError) as err:
        await workcopy.prepare("run-tiny", config, None, Mirrors(tmp_path / "w"))
    assert err.value.setting == "repository.max_checkout_bytes" and "(300 files)" in str(err.value)


async def test_a_continuation_is_measured_on_the_runs_own_branch(repo, config, tmp_path):
    wc = await workcopy.prepare("run-grew", config, None, Mirrors(tmp_path / "a"))
    with (wc.path / "dump.bin").open("wb") as fh:
        fh.truncate(2_000_000)
    turn = await workcopy.commit_turn(wc, 1, "alpha", "m")
    small = config.model_copy(update={"max_file_bytes": 1_000_000})
    with pytest.raises(RepositoryConfigError) as err:
        await workcopy.prepare("run-grew", small, turn.commit, Mirrors(tmp_path / "b"))
    assert err.value.setting == "repository.max_file_bytes"
    assert "dump.bin in office/run-grew" in str(err.value)


def test_the_limits_have_defaults_and_must_be_positive():
    config = RepositoryConfig(url="https://git.example.com/a.git")
    assert (config.max_file_bytes, config.max_checkout_bytes) == (50 * 1024 * 1024, 1024 * 1024 * 1024)
    for key in ("max_file_bytes", "max_checkout_bytes"):
        with pytest.raises(ValueError, match=key):
            RepositoryConfig(url="https://git.example.com/a.git", **{key: 0})
        assert "bytes" in (RepositoryConfig.model_fields[key].description or "")
