"""The lifecycle of one run attempt's working copy: a `git worktree` of the worker's mirror on branch
office/<run-id>, made by `prepare`, committed and pushed by `commit_turn` after every completed turn, and removed
by `remove` (the branch stays in the repository).

`commit_turn` commits as Office <office@localhost> and pushes with a lease (activities.git.pushes). A failed turn's
partial work goes to refs/heads/office-failed/<run-id>-<seq> without moving the branch (`keep_failed`). The next
attempt calls `prepare` with the last completed turn's commit. The worker's own git runs no client hooks, filters or
submodules, and a git command in a working copy names its repository itself, never through the copy's `.git`.
Before a working copy is checked out, its files are measured against the size limits (activities.git.bounds).

Errors: settings that cannot work raise `RepositoryConfigError` naming the setting; a stale attempt raises
`BranchMovedError`; a repository that worked before and is unreachable now raises `RepositoryUnavailableError`."""

import asyncio
import contextlib
import os
import re
import secrets
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from activities.git.bounds import check_bounds
from activities.git.mirrors import Mirrors
from activities.git.pushes import push_branch, push_side_ref
from activities.git.runner import GitOutput, first_line, git_env, net_args, rev, run_git, unreachable
from routing.repository import (
    FileChange,
    RepositoryConfig,
    RepositoryConfigError,
    RepositoryUnavailableError,
    RunResult,
    TurnCommit,
    branch_for,
    commit_message,
    failed_ref,
    ref_id,
)
from routing.repository import continuation_note as _note

_COMMIT_ID = re.compile(r"[0-9a-f]{7,64}")


@dataclass
class WorkCopy:
    """One attempt's working copy. `head` is the last commit of a completed turn in it; `remote_head` the
    branch's value in the repository as this copy last saw it (the push lease; None: branch not pushed yet).
    `mirrors` is the worker's, which `mirror` belongs to."""

    run_id: str
    config: RepositoryConfig
    path: Path
    mirrors: Mirrors
    mirror: Path
    branch: str
    base_commit: str
    start_commit: str
    head: str
    remote_head: str | None


def _in_copy(path: Path, mirror: Path, env: dict[str, str]) -> dict[str, str]:
    """A git command in a working copy names its repository itself: the worktree's own directory in the mirror,
    never what the working copy's `.git` says. The agent can replace that file with a repository of its own whose
    config (core.fsmonitor, hooks) would run on the worker."""
    return {**env, "GIT_DIR": str(mirror / "worktrees" / path.name), "GIT_WORK_TREE": str(path)}


def _wc_env(wc: WorkCopy, *, network: bool = False) -> dict[str, str]:
    return _in_copy(wc.path, wc.mirror, wc.mirrors.env(wc.config, network=network))


# ------------------------------------------------------------------------------------------------ before a copy


def _probe_writable(directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=".probe-", dir=directory)
    os.close(fd)
    os.unlink(name)


async def check(config: RepositoryConfig, root_dir: str | Path) -> str:
    """Before any agent starts, cheaply (`git ls-remote`, no fetch): the repository answers, its base ref exists
    and working copies can be created under `root_dir`. Returns the base ref's commit as the repository has it
    now; raises RepositoryConfigError naming the setting."""
    root = await asyncio.to_thread(Path(root_dir).resolve)
    try:
        await asyncio.to_thread(_probe_writable, root / "worktrees")
    except OSError as err:
        raise RepositoryConfigError(
            "repository",
            f"working copies of {config.url} cannot be created under {root / 'worktrees'} ({err}); set the "
            f"worker's OFFICE_WORK_DIR to a writable directory with free space",
        ) from err
    env = git_env(config, root, network=True)
    name = config.base_ref.removeprefix("refs/heads/").removeprefix("refs/tags/")
    out = await run_git("ls-remote", config.url, f"refs/heads/{name}", f"refs/tags/{name}", f"refs/tags/{name}^{{}}",
                        cwd=root, env=env, check=False, pre=net_args(env))  # fmt: skip
    if out.rc != 0:
        raise unreachable(config, out)
    found = [line.split("\t", 1)[0] for line in out.out.splitlines() if line.strip()]
    if found:
        return found[-1]  # a peeled tag's commit comes last
    if re.fullmatch(r"[0-9a-fA-F]{7,64}", config.base_ref):
        return config.base_ref  # a commit id: the working copy's fetch checks it
    raise RepositoryConfigError(
        "repository.base_ref",
        f"repository.base_ref {config.base_ref!r} does not exist in {config.url}; set it to an existing branch or tag",
    )


async def _base_commit(config: RepositoryConfig, mirror: Path, env: dict[str, str]) -> str:
    """The commit repository.base_ref names in the mirror: a branch, a tag or a commit id."""
    ref = config.base_ref
    name = ref.removeprefix("refs/heads/").removeprefix("refs/tags/")
    candidates = [f"refs/remotes/origin/{name}", f"refs/tags/{name}"]
    if re.fullmatch(r"[0-9a-fA-F]{7,64}", ref):
        candidates.append(ref)
    for cand in candidates:
        sha = await rev(cand, mirror, env)
        if sha:
            return sha
    heads = await run_git("for-each-ref", "--count=50", "--format=%(refname:lstrip=3)", "refs/remotes/origin/",
                          cwd=mirror, env=env, check=False)  # fmt: skip
    known = [h for h in heads.out.split() if h != "HEAD" and not h.startswith(("office/", "office-failed/"))][:5]
    hint = f" (it has {', '.join(known)})" if known else " (it has no branches yet: push a first commit)"
    raise RepositoryConfigError(
        "repository.base_ref",
        f"repository.base_ref {ref!r} does not exist in {config.url}{hint}; set it to an existing branch or tag",
    )


async def _trailer(commit: str, key: str, cwd: Path, env: dict[str, str]) -> str | None:
    out = await run_git("log", "-1", f"--format=%(trailers:key={key},valueonly)", commit, cwd=cwd, env=env,
                        check=False)  # fmt: skip
    value = out.out.strip().splitlines()
    return value[-1].strip() if out.rc == 0 and value else None


async def _start_and_base(
    run_id: str, config: RepositoryConfig, start_commit: str | None, base_commit: str | None, mirror: Path,
    env: dict[str, str],
) -> tuple[str, str]:  # fmt: skip
    """Where an attempt's copy starts and the run's base: the base ref for a new run, else the last completed
    turn's commit (which must be in the repository) and the base its Office-Base trailer names."""
    if start_commit is None:
        base = base_commit or await _base_commit(config, mirror, env)
        return base, base
    start = await rev(start_commit, mirror, env)
    if not start:
        raise RepositoryConfigError(
            "repository.url",
            f"commit {start_commit[:12]} of run {run_id} is not in {config.url} (was {branch_for(run_id)} deleted "
            f"or rewritten?); the run cannot continue from its last completed turn",
        )
    return start, base_commit or await _trailer(start, "Office-Base", mirror, env) or start


async def carry_branch(from_run: str, to_run: str, config: RepositoryConfig, mirrors: Mirrors) -> RunResult | None:
    """Starts run `to_run`'s branch at the last commit run `from_run` pushed, on `from_run`'s base (its Office-Base
    trailer when that names a commit of the repository, else the head itself), for a run that continues an ended
    one; the counts are since that base. None when `from_run` pushed no branch. Idempotent; a branch of `to_run`
    that is elsewhere already is never overwritten (RepositoryConfigError)."""
    branch = branch_for(to_run)
    async with mirrors.fetched(config) as mirror:
        env = mirrors.env(config)
        head = await rev(f"refs/remotes/origin/{branch_for(from_run)}", mirror, env)
        if not head:
            return None
        trailer = await _trailer(head, "Office-Base", mirror, env) or ""
        base = (await rev(trailer, mirror, env) if _COMMIT_ID.fullmatch(trailer) else None) or head
        there = await rev(f"refs/remotes/origin/{branch}", mirror, env)
        if there is None:
            await push_branch(config, branch, head, None, mirror, mirrors.env(config, network=True))
        elif there != head:
            raise RepositoryConfigError("repository.url", f"{branch} exists in {config.url} already, at another commit")
        changes = await _numstat(base, head, mirror, env)
    return RunResult(
        branch=branch,
        base_commit=base,
        head_commit=head,
        files_changed=len(changes),
        insertions=sum(c.insertions for c in changes),
        deletions=sum(c.deletions for c in changes),
    )


async def _drop_worktrees_of(branch: str, mirror: Path, env: dict[str, str]) -> None:
    """A new attempt of a run ends any earlier attempt's working copy on this worker (same branch), and the lock an
    earlier attempt's git left on the branch when it was killed mid-update (a cancelled or timed-out attempt's git
    gets SIGKILL, which leaves `<ref>.lock`: the next `worktree add -B` would then fail "cannot lock ref … File
    exists"). Only this run's attempts write its branch, and they run one after another on a worker's mirror."""
    stale_lock = mirror / "refs" / "heads" / f"{branch}.lock"
    await asyncio.to_thread(stale_lock.unlink, True)
    listing = await run_git("worktree", "list", "--porcelain", cwd=mirror, env=env, check=False)
    current: str | None = None
    for line in listing.out.splitlines():
        if line.startswith("worktree "):
            current = line.removeprefix("worktree ")
        elif line == f"branch refs/heads/{branch}" and current:
            gone = await run_git("worktree", "remove", "--force", "--force", current, cwd=mirror, env=env,
                                 check=False)  # fmt: skip
            if gone.rc != 0:
                await asyncio.to_thread(shutil.rmtree, current, True)
    await run_git("worktree", "prune", cwd=mirror, env=env, check=False)


async def _add_worktree(branch: str, path: Path, start: str, mirror: Path, env: dict[str, str]) -> GitOutput:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        return GitOutput(1, "", f"fatal: {err}")
    return await run_git("worktree", "add", "--quiet", "--no-checkout", "-f", "-B", branch, str(path), start,
                         cwd=mirror, env=env, check=False)  # fmt: skip


def _uncreatable(config: RepositoryConfig, run_id: str, path: Path, what: str, out: GitOutput) -> RepositoryConfigError:
    return RepositoryConfigError(
        "repository",
        f"a working copy of {config.url} for run {run_id} cannot be {what} under {path.parent} "
        f"({first_line(out.err)}); check the worker's disk space and that this directory is writable",
    )


async def prepare(
    run_id: str,
    config: RepositoryConfig,
    start_commit: str | None,
    mirrors: Mirrors,
    *,
    base_commit: str | None = None,
) -> WorkCopy:
    """A fresh working copy for one attempt of a run, from the worker's `mirrors`, on branch office/<run-id>, at
    `start_commit` (the last completed turn's commit, for a fallback or another worker) or, for a new run, at the
    base ref. `base_commit` (the first attempt's `WorkCopy.base_commit`) keeps the run's base fixed; without it
    the base is read from the start commit's Office-Base trailer."""
    for given in (start_commit, base_commit):
        if given is not None and not _COMMIT_ID.fullmatch(given):
            raise ValueError(f"{given!r} is not a commit id (start and base commits come from TurnCommit/WorkCopy)")
    branch = branch_for(run_id)
    async with mirrors.fetched(config) as mirror:
        env = mirrors.env(config)
        remote_head = await rev(f"refs/remotes/origin/{branch}", mirror, env)
        start, base = await _start_and_base(run_id, config, start_commit, base_commit, mirror, env)
        await check_bounds(config, start, branch if start_commit else config.base_ref, mirror, env)
        await _drop_worktrees_of(branch, mirror, env)
        path = mirrors.root / "worktrees" / f"{ref_id(run_id)}-{secrets.token_hex(4)}"
        made = await _add_worktree(branch, path, start, mirror, env)
    if made.rc != 0:
        raise _uncreatable(config, run_id, path, "created", made)
    wc = WorkCopy(run_id, config, path, mirrors, mirror, branch, base, start, start, remote_head)
    checkout = await run_git("reset", "--quiet", "--hard", start, cwd=path, env=_in_copy(path, mirror, env),
                             check=False)  # fmt: skip
    if checkout.rc != 0:
        await remove(wc)
        raise _uncreatable(config, run_id, path, "checked out", checkout)
    return wc


# ------------------------------------------------------------------------------------------------ during a run


async def _numstat(old: str, new: str, cwd: Path, env: dict[str, str]) -> list[FileChange]:
    if old == new:
        return []
    out = await run_git("diff", "--numstat", "-z", "--no-renames", old, new, cwd=cwd, env=env)
    changes: list[FileChange] = []
    for record in out.out.split("\0"):
        if not record.strip():
            continue
        ins, dels, path = record.split("\t", 2)
        binary = ins == "-"
        changes.append(FileChange(path=path, insertions=0 if binary else int(ins), deletions=0 if binary else int(dels),
                                  binary=binary))  # fmt: skip
    return changes


async def commit_turn(wc: WorkCopy, turn: int, provider: str, model: str | None) -> TurnCommit:
    """Commits what a completed turn changed (no empty commit) and pushes the run's branch. Counts are for this
    turn; commits the agent made itself during the turn are included and pushed too."""
    net, env = _wc_env(wc, network=True), _wc_env(wc)
    await run_git("add", "--all", cwd=wc.path, env=env)
    staged = await run_git("diff", "--cached", "--quiet", cwd=wc.path, env=env, check=False)
    if staged.rc == 1:
        message = commit_message(wc.run_id, turn, provider, model, wc.base_commit)
        await run_git("commit", "--quiet", "--no-verify", "--no-gpg-sign", "-m", message, cwd=wc.path, env=env)
    elif staged.rc != 0:
        raise RepositoryUnavailableError(f"git diff failed in {wc.path}: {first_line(staged.err)}")
    head = await rev("HEAD", wc.path, env) or wc.head
    changes = await _numstat(wc.head, head, wc.path, env)
    if head != wc.remote_head:
        await push_branch(wc.config, wc.branch, head, wc.remote_head, wc.path, net)
        wc.remote_head = head
    wc.head = head
    return TurnCommit(
        commit=head,
        changed=bool(changes),
        files_changed=len(changes),
        insertions=sum(c.insertions for c in changes),
        deletions=sum(c.deletions for c in changes),
    )


def _scratch_index(real_index: str) -> str:
    fd, index = tempfile.mkstemp(prefix="office-index-")
    os.close(fd)
    if os.path.exists(real_index):
        shutil.copyfile(real_index, index)
    else:
        os.unlink(index)
    return index


async def _tree_of_files(wc: WorkCopy, env: dict[str, str]) -> str:
    """The tree of the working copy's files as they are, written through a scratch copy of the index: the working
    copy's own index and branch stay as they are."""
    real_index = (await run_git("rev-parse", "--path-format=absolute", "--git-path", "index", cwd=wc.path,
                                env=env)).out.strip()  # fmt: skip
    index = _scratch_index(real_index)
    try:
        scratch = {**env, "GIT_INDEX_FILE": index}
        await run_git("add", "--all", cwd=wc.path, env=scratch)
        return (await run_git("write-tree", cwd=wc.path, env=scratch)).out.strip()
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(index)


async def keep_failed(wc: WorkCopy, seq: int, note: str = "") -> str | None:
    """Keeps a failed turn's partial changes on refs/heads/office-failed/<run-id>-<seq> (the run's branch does
    not move; the working tree is left as it is). Returns that commit, or None when nothing changed."""
    net, env = _wc_env(wc, network=True), _wc_env(wc)
    tree = await _tree_of_files(wc, env)
    head = await rev("HEAD", wc.path, env) or wc.head
    head_tree = (await run_git("rev-parse", f"{head}^{{tree}}", cwd=wc.path, env=env)).out.strip()
    if head == wc.head and tree == head_tree:
        return None
    message = f"office: partial changes of failed attempt {seq} of run {wc.run_id}\n\n{note}".strip() + "\n"
    commit = (await run_git("commit-tree", tree, "-p", head, "-m", message, cwd=wc.path, env=env)).out.strip()
    await push_side_ref(wc.config, failed_ref(wc.run_id, seq), commit, wc.path, net)
    return commit


async def reset_to(wc: WorkCopy, commit: str | None = None) -> None:
    """Puts the working copy back at a commit (default: the last completed turn), dropping uncommitted work
    (untracked files too; ignored files stay) — for a retry that keeps the same live session and cwd."""
    env = _wc_env(wc)
    target = commit or wc.head
    await run_git("reset", "--quiet", "--hard", target, cwd=wc.path, env=env)
    await run_git("clean", "-fdq", cwd=wc.path, env=env)
    wc.head = target


async def continuation_note(wc: WorkCopy) -> str:
    """For a fallback's first prompt: the branch, the commit it starts from, files changed since the base."""
    changes = await _numstat(wc.base_commit, wc.head, wc.path, _wc_env(wc))
    return _note(wc.branch, wc.config.base_ref, wc.base_commit, wc.head, changes)


async def result(wc: WorkCopy) -> RunResult:
    """The run's changes so far: its branch, base and head, and the counts since the base."""
    changes = await _numstat(wc.base_commit, wc.head, wc.path, _wc_env(wc))
    return RunResult(
        branch=wc.branch,
        base_commit=wc.base_commit,
        head_commit=wc.head,
        files_changed=len(changes),
        insertions=sum(c.insertions for c in changes),
        deletions=sum(c.deletions for c in changes),
    )


# ------------------------------------------------------------------------------------------------ after a run


async def remove(wc: WorkCopy) -> None:
    """Removes the working copy (the branch stays in the repository). The files go outside the mirror lock;
    only git's bookkeeping of the worktree is done under it."""
    env = wc.mirrors.env(wc.config)
    await asyncio.to_thread(shutil.rmtree, wc.path, True)
    async with wc.mirrors.locked(wc.mirror):
        await run_git("worktree", "prune", cwd=wc.mirror, env=env, check=False)
        await run_git("branch", "-D", "--quiet", wc.branch, cwd=wc.mirror, env=env, check=False)  # in use: kept


def disk_bytes(path: Path) -> int:
    """Bytes a working copy occupies (files only; the shared mirror is not counted)."""
    total = 0
    for dirpath, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, name)).st_size
    return total
