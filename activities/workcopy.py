"""The git layer of runs that change a repository: one working copy per run attempt, durable turns.

Layout under a worker's `root_dir`:

    mirrors/<key>.git       a bare mirror per repository URL, shared by the runs on this worker; fetched, never
                            re-cloned. Remote branches land in refs/remotes/origin/*, so a fetch never touches
                            the office/* branches checked out in working copies.
    mirrors/<key>.lock      an flock (plus an asyncio lock in this process) around fetch and worktree changes
    worktrees/<run>-<hex>   a `git worktree` of the mirror per run attempt, on branch office/<run-id>

After every completed turn `commit_turn` commits the working copy (author Office <office@localhost>) and pushes
office/<run-id> with `--force-with-lease` against the value this copy last saw, so a stale worker can never
overwrite newer work. A failed turn's partial work goes to refs/heads/office-failed/<run-id>-<seq> without
moving the branch. The next attempt calls `prepare` with the last completed turn's commit.

Git trusts nothing of the repository or the worker: every git command runs with an environment built from nothing
(PATH, a private HOME under `root_dir`, C locale, no system or user git configuration, the office's identity), so
neither a repository's hooks nor anything git starts sees the worker's provider keys, database URL or Temporal
settings. The worker's own git runs no client hooks, filters or submodules. A repository on the worker's disk
(a path or file://) is pushed to by running its own hooks as the worker, so only a worker started for development
(OFFICE_DEV_MODE=1) accepts one. Before a working copy is checked out, its files are measured against
`max_file_bytes` and `max_checkout_bytes`.

Credentials: `push_credential_env` names a variable on the worker; its value reaches git only through the
environment of fetch and push (a credential helper that echoes it), never a URL, argv, config or log, and never
a local command. The helper answers only for https on the URL's own host, and redirects are not followed.
Errors: settings that cannot work raise `RepositoryConfigError` naming the setting; a stale attempt raises
`BranchMovedError`; a repository that worked before and is unreachable now raises `RepositoryUnavailableError`.
"""

import asyncio
import contextlib
import fcntl
import hashlib
import os
import posixpath
import re
import secrets
import shutil
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from activities.executors.base import CredentialRefused, read_credential
from routing.permissions import inside
from routing.repository import (
    BranchMovedError,
    FileChange,
    MiB,
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

__all__ = [
    "DEV_MODE_ENV",
    "BranchMovedError",
    "RepositoryConfigError",
    "RepositoryUnavailableError",
    "WorkCopy",
    "check",
    "commit_turn",
    "continuation_note",
    "dev_mode",
    "diff",
    "keep_failed",
    "prepare",
    "read_text_file",
    "remove",
    "reset_to",
    "result",
    "transport",
    "write_text_file",
]

OFFICE_NAME, OFFICE_EMAIL = "Office", "office@localhost"
DEV_MODE_ENV = "OFFICE_DEV_MODE"  # 1: a worker started for development (office dev, tests, benches)
TOKEN_VAR = "OFFICE_GIT_TOKEN"  # the only place the resolved credential lives: the git subprocess environment
HOST_VAR = "OFFICE_GIT_HOST"  # the one host (and port) the credential helper answers for
# What git on the worker inherits from the worker's environment: nothing else (no provider keys, no database URL,
# no Temporal settings, no GIT_* of the worker's shell). Network commands (fetch, push, ls-remote) also get what
# reaching a server may need: the ssh agent, an ssh command, certificate and proxy settings.
_PASS = ("PATH", "TZ", "TMPDIR")
_PASS_NETWORK = (
    "SSH_AUTH_SOCK", "GIT_SSH_COMMAND", "GIT_SSL_CAINFO", "GIT_SSL_CAPATH", "SSL_CERT_FILE", "SSL_CERT_DIR",
    "http_proxy", "https_proxy", "no_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
)  # fmt: skip
# Answers `get` with the token only when git asks for https on the configured host; says nothing otherwise (plain
# http, another host: a redirect target, a submodule, a second remote).
_HELPER = (
    '!f() { test "$1" = get || return 0; p=; h=; '
    'while IFS= read -r l; do case "$l" in protocol=*) p=${l#protocol=};; host=*) h=${l#host=};; "") break;; esac; '
    f'done; test "$p" = https && test -n "$h" && test "$h" = "${HOST_VAR}" || return 0; '
    f'echo username=x-access-token; echo "password=${TOKEN_VAR}"; }}; f'
)
_AUTH = re.compile(
    r"authentication failed|could not read (username|password)|terminal prompts disabled|permission denied|"
    r"\b40[13]\b|access denied|not authorized|invalid credentials",
    re.IGNORECASE,
)
_NOT_THERE = re.compile(
    r"does not appear to be a git repository|repository .* not found|not a git repository|no such file|"
    r"could not resolve host|unable to access|connection refused|couldn't connect|could not read from remote",
    re.IGNORECASE,
)
_STALE = re.compile(r"stale info|\(fetch first\)|\(non-fast-forward\)", re.IGNORECASE)

# Per-process coordination, never conversation data: one asyncio lock per mirror and how many fetches started.
_locks: dict[str, asyncio.Lock] = {}
_fetches_started: dict[str, int] = {}
_last_fetch_ok: dict[str, bool] = {}


@dataclass
class WorkCopy:
    """One attempt's working copy. `head` is the last commit of a completed turn in it; `remote_head` the
    branch's value in the repository as this copy last saw it (the push lease; None: branch not pushed yet)."""

    run_id: str
    config: RepositoryConfig
    path: Path
    mirror: Path
    branch: str
    base_commit: str
    start_commit: str
    head: str
    remote_head: str | None


# ------------------------------------------------------------------------------------------------ running git


@dataclass(frozen=True)
class _Out:
    rc: int
    out: str
    err: str


class _GitError(RepositoryUnavailableError):  # an unexpected git failure: infrastructure, not a setting
    def __init__(self, args: tuple[str, ...], out: _Out) -> None:
        super().__init__(f"git {args[0] if args else ''} failed ({out.rc}): {_first_line(out.err)}")
        self.out = out


def _first_line(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    useful = [ln for ln in lines if ln.lower().startswith(("fatal", "error", "remote:", "!"))]
    return (useful or lines or ["(no message)"])[0][:300]


def dev_mode() -> bool:
    """OFFICE_DEV_MODE=1: this worker was started for development (`office dev`, the test stack, the benches) and
    accepts repositories on its own disk."""
    return os.environ.get(DEV_MODE_ENV, "").strip().lower() in ("1", "true", "on", "yes")


def transport(url: str) -> str:
    """How git reaches `url`, by git's own rules: the scheme of `scheme://…`, `ssh` for scp-like `host:path`, and
    `file` for a path on this machine (and `file://`)."""
    m = re.match(r"([A-Za-z0-9][A-Za-z0-9+.-]*)://", url)
    if m:
        return m.group(1).lower()
    colon, slash = url.find(":"), url.find("/")
    return "ssh" if colon >= 0 and (slash < 0 or colon < slash) else "file"


def _home(root: Path) -> Path:
    """The HOME of the worker's git: an empty owner-only directory of its own, never the worker's."""
    home = root / "git-home"
    try:
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as err:
        raise RepositoryConfigError(
            "repository",
            f"the worker cannot create {home} ({err}); set the worker's OFFICE_WORK_DIR to a writable directory",
        ) from err
    return home


def _env(config: RepositoryConfig, root: Path, *, network: bool = False) -> dict[str, str]:
    """The whole environment of a git command the worker runs: built from nothing, never the worker's own.
    `network`: fetch, push, ls-remote; only those may carry the push token, and only to an https URL."""
    kind = transport(config.url)
    if network and kind == "file" and not dev_mode():
        raise RepositoryConfigError(
            "repository.url",
            f"repository.url {config.url} is a path on the worker: pushing to it would run that repository's hooks "
            f"as the worker, so only a worker started for development ({DEV_MODE_ENV}=1, as `office dev` and the "
            f"tests set) accepts it; use an https:// or ssh URL",
        )
    home = _home(root)
    remote = network and kind != "file"  # a repository on this disk needs no ssh agent, certificate or proxy
    env = {k: os.environ[k] for k in (*_PASS, *(_PASS_NETWORK if remote else ())) if k in os.environ}
    env.setdefault("PATH", os.defpath)
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        LC_ALL="C",
        LANG="C",
        GIT_CONFIG_NOSYSTEM="1",  # no system or user configuration: no helpers, filters, hooks or URL rewrites
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_ATTR_NOSYSTEM="1",
        GIT_TERMINAL_PROMPT="0",
        GIT_AUTHOR_NAME=OFFICE_NAME,
        GIT_AUTHOR_EMAIL=OFFICE_EMAIL,
        GIT_COMMITTER_NAME=OFFICE_NAME,
        GIT_COMMITTER_EMAIL=OFFICE_EMAIL,
        GIT_ALLOW_PROTOCOL="file:git:http:https:ssh" if dev_mode() else "git:http:https:ssh",
    )
    if remote:
        env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    if network and config.push_credential_env:
        if kind == "http":
            raise RepositoryConfigError(
                "repository.url",
                f"repository.url {config.url} is plain http: the token named in repository.push_credential_env is "
                f"sent only over https; use the repository's https:// URL",
            )
        try:
            token = read_credential(config.push_credential_env, "repository.push_credential_env")
        except CredentialRefused as err:
            raise RepositoryConfigError("repository.push_credential_env", str(err)) from None
        if not token:
            raise RepositoryConfigError(
                "repository.push_credential_env",
                f"repository.push_credential_env names {config.push_credential_env}, which is not set on this "
                f"worker; set it there to a token with write access to {config.url}",
            )
        if kind == "https":  # the token is an https password: ssh and local repositories never see it
            env[TOKEN_VAR] = token
            env[HOST_VAR] = urlsplit(config.url).netloc
    return env


def _net_args(env: dict[str, str]) -> list[str]:
    """Options of every fetch, push and ls-remote: no redirects (a token never follows one to another host), no
    credential helper but the office's, and that one only when this command carries the token."""
    args = ["-c", "http.followRedirects=false", "-c", "credential.helper="]
    if TOKEN_VAR in env:
        args += ["-c", f"credential.helper={_HELPER}"]
    return args


async def _git(*args: str, cwd: Path, env: dict[str, str], check: bool = True, pre: list[str] | None = None) -> _Out:
    proc = await asyncio.create_subprocess_exec(
        "git",
        *(pre or []),
        *args,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await proc.communicate()
    out = _Out(proc.returncode or 0, stdout.decode(errors="replace"), stderr.decode(errors="replace"))
    if check and out.rc != 0:
        raise _GitError(args, out)
    return out


async def _rev(ref: str, cwd: Path, env: dict[str, str]) -> str | None:
    out = await _git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", cwd=cwd, env=env, check=False)
    return out.out.strip() if out.rc == 0 else None


# ----------------------------------------------------------------------------------------------------- mirror


def _root(root_dir: str | Path) -> Path:
    return Path(root_dir).resolve()


def _scratch_index(real_index: str) -> str:
    fd, index = tempfile.mkstemp(prefix="office-index-")
    os.close(fd)
    if os.path.exists(real_index):
        shutil.copyfile(real_index, index)
    else:
        os.unlink(index)
    return index


def _root_of(wc: WorkCopy) -> Path:
    return wc.mirror.parent.parent  # <root>/mirrors/<key>.git


def _in_copy(path: Path, mirror: Path, env: dict[str, str]) -> dict[str, str]:
    """A git command in a working copy names its repository itself: the worktree's own directory in the mirror,
    never what the working copy's `.git` says. The agent can replace that file with a repository of its own whose
    config (core.fsmonitor, hooks) would run on the worker."""
    return {**env, "GIT_DIR": str(mirror / "worktrees" / path.name), "GIT_WORK_TREE": str(path)}


def _wc_env(wc: WorkCopy, *, network: bool = False) -> dict[str, str]:
    return _in_copy(wc.path, wc.mirror, _env(wc.config, _root_of(wc), network=network))


def _mirror_path(config: RepositoryConfig, root: Path) -> Path:
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", posixpath.basename(config.url.rstrip("/")) or "repo")[:40]
    key = hashlib.sha256(config.url.encode()).hexdigest()[:16]
    return root / "mirrors" / f"{name.removesuffix('.git')}-{key}.git"


@contextlib.asynccontextmanager
async def _locked(mirror: Path) -> AsyncIterator[None]:
    """One holder at a time per mirror: an asyncio lock in this process, an flock across worker processes."""
    async with _locks.setdefault(str(mirror), asyncio.Lock()):
        mirror.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(mirror.with_suffix(".lock"), os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # another worker process holds it: wait in a thread, not on the loop
            waiting = asyncio.ensure_future(asyncio.to_thread(fcntl.flock, fd, fcntl.LOCK_EX))
            try:
                await asyncio.shield(waiting)
            except BaseException:  # cancelled while waiting: close only once the thread let go of the fd
                waiting.add_done_callback(lambda _: os.close(fd))
                raise
        try:
            yield
        finally:
            os.close(fd)  # releases the flock


async def _init_mirror(config: RepositoryConfig, mirror: Path, env: dict[str, str]) -> None:
    if (mirror / "HEAD").exists():
        return
    mirror.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".init-", dir=mirror.parent))
    try:
        await _git("init", "--bare", "--quiet", str(tmp), cwd=mirror.parent, env=env)
        for key, value in (
            ("remote.origin.url", config.url),
            ("gc.auto", "0"),  # no automatic gc while working copies commit into the shared object store
            ("maintenance.auto", "false"),
            ("core.hooksPath", "/dev/null"),  # no hooks run on the office's commits and pushes
        ):
            await _git("config", key, value, cwd=tmp, env=env)
        await _git("config", "--add", "remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*", cwd=tmp, env=env)
        await _git("config", "--add", "remote.origin.fetch", "+refs/tags/*:refs/tags/*", cwd=tmp, env=env)
        os.rename(tmp, mirror)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # gone after the rename


async def _fetch(config: RepositoryConfig, mirror: Path, env: dict[str, str], asked: int) -> None:
    """Fetches unless a fetch that started after this caller asked already succeeded (it saw everything the
    caller needs). Runs under the mirror lock."""
    key = str(mirror)
    if _fetches_started.get(key, 0) > asked and _last_fetch_ok.get(key):
        return
    _fetches_started[key] = _fetches_started.get(key, 0) + 1
    _last_fetch_ok[key] = False
    fetched_before = (mirror / "office-fetched").exists()
    out = await _git("fetch", "--quiet", "--prune", "origin", cwd=mirror, env=env, check=False, pre=_net_args(env))
    if out.rc != 0:
        why = _first_line(out.err)
        if _AUTH.search(out.err):
            raise RepositoryConfigError(
                "repository.push_credential_env",
                f"repository.url {config.url} refused this worker's credentials ({why}); set "
                f"repository.push_credential_env to the name of a variable holding a token that can read and push",
            )
        if fetched_before:  # it worked before: the network or the server, not the setting
            raise RepositoryUnavailableError(f"fetching {config.url} failed: {why}")
        await asyncio.to_thread(shutil.rmtree, mirror, True)  # never fetched: nothing to keep
        raise RepositoryConfigError(
            "repository.url",
            f"repository.url {config.url} cannot be reached from this worker ({why}); set it to a git URL the "
            f"workers can read (redirects are not followed: give the repository's own URL)",
        )
    (mirror / "office-fetched").touch()
    _last_fetch_ok[key] = True


async def _base_commit(config: RepositoryConfig, mirror: Path, env: dict[str, str]) -> str:
    ref = config.base_ref
    name = ref.removeprefix("refs/heads/").removeprefix("refs/tags/")
    candidates = [f"refs/remotes/origin/{name}", f"refs/tags/{name}"]
    if re.fullmatch(r"[0-9a-fA-F]{7,64}", ref):
        candidates.append(ref)
    for cand in candidates:
        sha = await _rev(cand, mirror, env)
        if sha:
            return sha
    heads = await _git("for-each-ref", "--count=50", "--format=%(refname:lstrip=3)", "refs/remotes/origin/", cwd=mirror,
                       env=env, check=False)  # fmt: skip
    known = [h for h in heads.out.split() if h != "HEAD" and not h.startswith(("office/", "office-failed/"))][:5]
    hint = f" (it has {', '.join(known)})" if known else " (it has no branches yet: push a first commit)"
    raise RepositoryConfigError(
        "repository.base_ref",
        f"repository.base_ref {ref!r} does not exist in {config.url}{hint}; set it to an existing branch or tag",
    )


async def _trailer(commit: str, key: str, cwd: Path, env: dict[str, str]) -> str | None:
    out = await _git("log", "-1", f"--format=%(trailers:key={key},valueonly)", commit, cwd=cwd, env=env, check=False)
    value = out.out.strip().splitlines()
    return value[-1].strip() if out.rc == 0 and value else None


# ------------------------------------------------------------------------------------------------ working copy


def _probe_writable(directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=".probe-", dir=directory)
    os.close(fd)
    os.unlink(name)


async def check(config: RepositoryConfig, root_dir: str | Path) -> str:
    """Before any agent starts, cheaply (`git ls-remote`, no fetch): the repository answers, its base ref exists
    and working copies can be created under `root_dir`. Returns the base ref's commit as the repository has it
    now; raises RepositoryConfigError naming the setting."""
    root = _root(root_dir)
    try:
        await asyncio.to_thread(_probe_writable, root / "worktrees")
    except OSError as err:
        raise RepositoryConfigError(
            "repository",
            f"working copies of {config.url} cannot be created under {root / 'worktrees'} ({err}); set the "
            f"worker's OFFICE_WORK_DIR to a writable directory with free space",
        ) from err
    env = _env(config, root, network=True)
    name = config.base_ref.removeprefix("refs/heads/").removeprefix("refs/tags/")
    out = await _git("ls-remote", config.url, f"refs/heads/{name}", f"refs/tags/{name}", f"refs/tags/{name}^{{}}",
                     cwd=root, env=env, check=False, pre=_net_args(env))  # fmt: skip
    if out.rc != 0:
        why = _first_line(out.err)
        if _AUTH.search(out.err):
            raise RepositoryConfigError(
                "repository.push_credential_env",
                f"repository.url {config.url} refused this worker's credentials ({why}); set "
                f"repository.push_credential_env to the name of a variable holding a token that can read and push",
            )
        raise RepositoryConfigError(
            "repository.url",
            f"repository.url {config.url} cannot be reached from this worker ({why}); set it to a git URL the "
            f"workers can read (redirects are not followed: give the repository's own URL)",
        )
    found = [line.split("\t", 1)[0] for line in out.out.splitlines() if line.strip()]
    if found:
        return found[-1]  # a peeled tag's commit comes last
    if re.fullmatch(r"[0-9a-fA-F]{7,64}", config.base_ref):
        return config.base_ref  # a commit id: the working copy's fetch checks it
    raise RepositoryConfigError(
        "repository.base_ref",
        f"repository.base_ref {config.base_ref!r} does not exist in {config.url}; set it to an existing branch or tag",
    )


async def prepare(
    run_id: str,
    config: RepositoryConfig,
    start_commit: str | None,
    root_dir: str | Path,
    *,
    base_commit: str | None = None,
) -> WorkCopy:
    """A fresh working copy for one attempt of a run, on branch office/<run-id>, at `start_commit` (the last
    completed turn's commit, for a fallback or another worker) or, for a new run, at the base ref.
    `base_commit` (the first attempt's `WorkCopy.base_commit`) keeps the run's base fixed; without it the
    base is read from the start commit's Office-Base trailer."""
    for given in (start_commit, base_commit):
        if given is not None and not re.fullmatch(r"[0-9a-f]{7,64}", given):
            raise ValueError(f"{given!r} is not a commit id (start and base commits come from TurnCommit/WorkCopy)")
    root = _root(root_dir)
    mirror = _mirror_path(config, root)
    net, env = _env(config, root, network=True), _env(config, root)
    branch = branch_for(run_id)
    asked = _fetches_started.get(str(mirror), 0)
    async with _locked(mirror):
        await _init_mirror(config, mirror, env)
        await _fetch(config, mirror, net, asked)
        remote_head = await _rev(f"refs/remotes/origin/{branch}", mirror, env)
        if start_commit is None:
            base = base_commit or await _base_commit(config, mirror, env)
            start = base
        else:
            start = await _rev(start_commit, mirror, env) or ""
            if not start:
                raise RepositoryConfigError(
                    "repository.url",
                    f"commit {start_commit[:12]} of run {run_id} is not in {config.url} (was {branch} deleted or "
                    f"rewritten?); the run cannot continue from its last completed turn",
                )
            base = base_commit or await _trailer(start, "Office-Base", mirror, env) or start
        await _check_bounds(config, start, branch if start_commit else config.base_ref, mirror, env)
        await _drop_worktrees_of(branch, mirror, env)
        path = root / "worktrees" / f"{ref_id(run_id)}-{secrets.token_hex(4)}"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            made = _Out(1, "", f"fatal: {err}")
        else:
            made = await _git("worktree", "add", "--quiet", "--no-checkout", "-f", "-B", branch, str(path), start,
                              cwd=mirror, env=env, check=False)  # fmt: skip
    if made.rc != 0:
        raise RepositoryConfigError(
            "repository",
            f"a working copy of {config.url} for run {run_id} cannot be created under {path.parent} "
            f"({_first_line(made.err)}); check the worker's disk space and that this directory is writable",
        )
    checkout = await _git("reset", "--quiet", "--hard", start, cwd=path, env=_in_copy(path, mirror, env), check=False)
    if checkout.rc != 0:
        await remove(WorkCopy(run_id, config, path, mirror, branch, base, start, start, remote_head))
        raise RepositoryConfigError(
            "repository",
            f"a working copy of {config.url} for run {run_id} cannot be checked out under {path.parent} "
            f"({_first_line(checkout.err)}); check the worker's disk space and that this directory is writable",
        )
    return WorkCopy(run_id, config, path, mirror, branch, base, start, start, remote_head)


BLOCK = 4096  # what a file takes on disk at least, and its granularity


def _size(n: int) -> str:
    return f"{n / MiB:,.1f} MiB" if n >= MiB else f"{n:,} bytes"


async def _check_bounds(config: RepositoryConfig, commit: str, where: str, mirror: Path, env: dict[str, str]) -> None:
    """Before anything is checked out: every file of `commit` within repository.max_file_bytes and the working copy
    (each file in whole blocks) within repository.max_checkout_bytes. Sizes come from the object headers, so a
    200 MB file of zeros is measured without being inflated."""
    out = await _git("ls-tree", "-r", "-l", "-z", "--full-tree", commit, cwd=mirror, env=env)
    total, files, biggest, biggest_path = 0, 0, -1, ""
    for record in out.out.split("\0"):
        meta, _, path = record.partition("\t")
        parts = meta.split()
        if len(parts) != 4 or parts[1] != "blob":
            continue  # a submodule (commit) entry is never checked out
        size = int(parts[3])
        files += 1
        total += max(-(-size // BLOCK), 1) * BLOCK
        if size > biggest:
            biggest, biggest_path = size, path
    if biggest > config.max_file_bytes:
        raise RepositoryConfigError(
            "repository.max_file_bytes",
            f"{biggest_path} in {where} ({commit[:12]}) of {config.url} is {_size(biggest)}, over "
            f"repository.max_file_bytes ({_size(config.max_file_bytes)}); remove it from {where} (keep large files "
            f"out of the repository) or raise repository.max_file_bytes in the workspace settings",
        )
    if total > config.max_checkout_bytes:
        raise RepositoryConfigError(
            "repository.max_checkout_bytes",
            f"a working copy of {where} ({commit[:12]}) of {config.url} would take {_size(total)} on disk ({files:,} "
            f"files), over repository.max_checkout_bytes ({_size(config.max_checkout_bytes)}); point "
            f"repository.base_ref at a smaller tree or raise repository.max_checkout_bytes in the workspace settings",
        )


async def _drop_worktrees_of(branch: str, mirror: Path, env: dict[str, str]) -> None:
    """A new attempt of a run ends any earlier attempt's working copy on this worker (same branch)."""
    listing = await _git("worktree", "list", "--porcelain", cwd=mirror, env=env, check=False)
    current: str | None = None
    for line in listing.out.splitlines():
        if line.startswith("worktree "):
            current = line.removeprefix("worktree ")
        elif line == f"branch refs/heads/{branch}" and current:
            gone = await _git("worktree", "remove", "--force", "--force", current, cwd=mirror, env=env, check=False)
            if gone.rc != 0:
                await asyncio.to_thread(shutil.rmtree, current, True)
    await _git("worktree", "prune", cwd=mirror, env=env, check=False)


async def _numstat(old: str, new: str, cwd: Path, env: dict[str, str]) -> list[FileChange]:
    if old == new:
        return []
    out = await _git("diff", "--numstat", "-z", "--no-renames", old, new, cwd=cwd, env=env)
    changes: list[FileChange] = []
    for record in out.out.split("\0"):
        if not record.strip():
            continue
        ins, dels, path = record.split("\t", 2)
        binary = ins == "-"
        changes.append(FileChange(path=path, insertions=0 if binary else int(ins), deletions=0 if binary else int(dels),
                                  binary=binary))  # fmt: skip
    return changes


async def _push(wc: WorkCopy, commit: str, env: dict[str, str]) -> None:
    lease = f"--force-with-lease=refs/heads/{wc.branch}:{wc.remote_head or ''}"
    out = await _git("push", "--quiet", "--no-verify", lease, "origin", f"{commit}:refs/heads/{wc.branch}",
                     cwd=wc.path, env=env, check=False, pre=_net_args(env))  # fmt: skip
    if out.rc == 0:
        wc.remote_head = commit
        return
    _raise_push_error(wc.config, wc.branch, out)


def _raise_push_error(config: RepositoryConfig, ref: str, out: _Out) -> None:
    why = _first_line(out.err)
    if _STALE.search(out.err):
        raise BranchMovedError(
            f"{ref} moved on in {config.url} since this working copy started ({why}): this attempt is stale and "
            f"does not overwrite the newer work"
        )
    if _AUTH.search(out.err):
        raise RepositoryConfigError(
            "repository.push_credential_env",
            f"pushing {ref} to {config.url} was refused ({why}); set repository.push_credential_env to the name of "
            f"a variable on the worker holding a token with write access",
        )
    if "remote rejected" in out.err or "hook declined" in out.err:
        raise RepositoryConfigError(
            "repository.url",
            f"{config.url} refuses pushes to {ref} ({why}); allow the office to push office/* and office-failed/* "
            f"branches there",
        )
    raise RepositoryUnavailableError(f"pushing {ref} to {config.url} failed: {why}")


async def commit_turn(wc: WorkCopy, turn: int, provider: str, model: str | None) -> TurnCommit:
    """Commits what a completed turn changed (no empty commit) and pushes the run's branch. Counts are for this
    turn; commits the agent made itself during the turn are included and pushed too."""
    net, env = _wc_env(wc, network=True), _wc_env(wc)
    await _git("add", "--all", cwd=wc.path, env=env)
    staged = await _git("diff", "--cached", "--quiet", cwd=wc.path, env=env, check=False)
    if staged.rc == 1:
        message = commit_message(wc.run_id, turn, provider, model, wc.base_commit)
        await _git("commit", "--quiet", "--no-verify", "--no-gpg-sign", "-m", message, cwd=wc.path, env=env)
    elif staged.rc != 0:
        raise RepositoryUnavailableError(f"git diff failed in {wc.path}: {_first_line(staged.err)}")
    head = await _rev("HEAD", wc.path, env) or wc.head
    changes = await _numstat(wc.head, head, wc.path, env)
    if head != wc.remote_head:
        await _push(wc, head, net)
    wc.head = head
    return TurnCommit(
        commit=head,
        changed=bool(changes),
        files_changed=len(changes),
        insertions=sum(c.insertions for c in changes),
        deletions=sum(c.deletions for c in changes),
    )


async def keep_failed(wc: WorkCopy, seq: int, note: str = "") -> str | None:
    """Keeps a failed turn's partial changes on refs/heads/office-failed/<run-id>-<seq> (the run's branch does
    not move; the working tree is left as it is). Returns that commit, or None when nothing changed."""
    net, env = _wc_env(wc, network=True), _wc_env(wc)
    real_index = (await _git("rev-parse", "--path-format=absolute", "--git-path", "index", cwd=wc.path,
                             env=env)).out.strip()  # fmt: skip
    index = _scratch_index(real_index)
    try:  # a scratch copy of the index: the working copy's own index and branch stay as they are
        scratch = {**env, "GIT_INDEX_FILE": index}
        await _git("add", "--all", cwd=wc.path, env=scratch)
        tree = (await _git("write-tree", cwd=wc.path, env=scratch)).out.strip()
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(index)
    head = await _rev("HEAD", wc.path, env) or wc.head
    head_tree = (await _git("rev-parse", f"{head}^{{tree}}", cwd=wc.path, env=env)).out.strip()
    if head == wc.head and tree == head_tree:
        return None
    message = f"office: partial changes of failed attempt {seq} of run {wc.run_id}\n\n{note}".strip() + "\n"
    commit = (await _git("commit-tree", tree, "-p", head, "-m", message, cwd=wc.path, env=env)).out.strip()
    ref = failed_ref(wc.run_id, seq)
    out = await _git("push", "--quiet", "--no-verify", "--force", "origin", f"{commit}:{ref}", cwd=wc.path, env=net,
                     check=False, pre=_net_args(net))  # fmt: skip
    if out.rc != 0:
        _raise_push_error(wc.config, ref, out)
    return commit


async def reset_to(wc: WorkCopy, commit: str | None = None) -> None:
    """Puts the working copy back at a commit (default: the last completed turn), dropping uncommitted work
    (untracked files too; ignored files stay) — for a retry that keeps the same live session and cwd."""
    env = _wc_env(wc)
    target = commit or wc.head
    await _git("reset", "--quiet", "--hard", target, cwd=wc.path, env=env)
    await _git("clean", "-fdq", cwd=wc.path, env=env)
    wc.head = target


async def continuation_note(wc: WorkCopy) -> str:
    """For a fallback's first prompt: the branch, the commit it starts from, files changed since the base."""
    env = _wc_env(wc)
    changes = await _numstat(wc.base_commit, wc.head, wc.path, env)
    return _note(wc.branch, wc.config.base_ref, wc.base_commit, wc.head, changes)


async def result(wc: WorkCopy) -> RunResult:
    env = _wc_env(wc)
    changes = await _numstat(wc.base_commit, wc.head, wc.path, env)
    return RunResult(
        branch=wc.branch,
        base_commit=wc.base_commit,
        head_commit=wc.head,
        files_changed=len(changes),
        insertions=sum(c.insertions for c in changes),
        deletions=sum(c.deletions for c in changes),
    )


async def diff(
    config: RepositoryConfig, root_dir: str | Path, base_commit: str, head_commit: str, *, stat: bool = False
) -> str:
    """The text of a run's changes (`runs diff`), from the mirror: works after the working copy is gone and on
    any machine that can fetch the repository (fetches when the commits are not there yet)."""
    root = _root(root_dir)
    mirror = _mirror_path(config, root)
    net, env = _env(config, root, network=True), _env(config, root)
    if not (await _rev(head_commit, mirror, env) if _exists(mirror / "HEAD") else None):
        asked = _fetches_started.get(str(mirror), 0)
        async with _locked(mirror):
            await _init_mirror(config, mirror, env)
            await _fetch(config, mirror, net, asked)
    args = ["diff", "--stat=120"] if stat else ["diff", "--no-color"]
    out = await _git(*args, base_commit, head_commit, cwd=mirror, env=env, check=False)
    if out.rc != 0:
        raise RepositoryConfigError(
            "repository.url", f"commits {base_commit[:12]}..{head_commit[:12]} are not in {config.url}: "
            f"{_first_line(out.err)}"
        )  # fmt: skip
    return out.out


async def remove(wc: WorkCopy) -> None:
    """Removes the working copy (the branch stays in the repository). The files go outside the mirror lock;
    only git's bookkeeping of the worktree is done under it."""
    env = _env(wc.config, _root_of(wc))
    await asyncio.to_thread(shutil.rmtree, wc.path, True)
    async with _locked(wc.mirror):
        await _git("worktree", "prune", cwd=wc.mirror, env=env, check=False)
        await _git("branch", "-D", "--quiet", wc.branch, cwd=wc.mirror, env=env, check=False)  # in use elsewhere: kept


def _exists(path: Path) -> bool:
    return path.exists()


def disk_bytes(path: Path) -> int:
    """Bytes a working copy occupies (files only; the shared mirror is not counted)."""
    total = 0
    for dirpath, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, name)).st_size
    return total


# ---------------------------------------------------------------------------- the ACP client's fs/* methods


def confine(root: Path | str, path: str) -> Path:
    """`path` (absolute, or relative to the working copy) when it stays inside the working copy, lexically and
    after following symlinks; PermissionError otherwise."""
    lexical_root = posixpath.normpath(os.path.abspath(root))
    if not inside(path, lexical_root):
        raise PermissionError(f"{path} is outside the run's working copy")
    full = posixpath.normpath(posixpath.join(lexical_root, path))
    real_root, real = os.path.realpath(lexical_root), os.path.realpath(full)
    if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
        raise PermissionError(f"{path} leads outside the run's working copy (through a symbolic link)")
    return Path(full)


# fs/read_text_file refuses a whole file larger than this, and a `line`/`limit` read whose lines come to more: the
# worker holds what it reads and sends it to the agent in one JSON-RPC message. The agent can read a bigger file in
# `line`/`limit` slices (streamed: the worker never reads more of the file than up to the last line asked for).
MAX_READ_BYTES = 8 * 1024 * 1024
_READ_BLOCK = 1024 * 1024


class FileTooLargeError(ValueError):
    """A read the worker refuses to hold: the message names the file, its size and MAX_READ_BYTES."""


def _too_large(path: str, what: str, advice: str = "read it in parts with line and limit") -> FileTooLargeError:
    limit = f"{MAX_READ_BYTES // (1024 * 1024)} MiB"
    return FileTooLargeError(
        f"{path}: {what} than the {limit} limit of fs/read_text_file (MAX_READ_BYTES = {MAX_READ_BYTES} bytes); "
        f"{advice}"
    )


def _open_inside(root: Path | str, path: str, target: Path, flags: int) -> int:
    """Opens a confined path and checks what was opened: a regular file whose real path (the kernel's, from
    /proc/self/fd) is inside the working copy, so a symlink swapped in after `confine` looked is refused too."""
    from stat import S_ISREG

    fd = os.open(target, flags | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)  # a FIFO must never block a worker thread
    try:
        if not S_ISREG(os.fstat(fd).st_mode):
            raise PermissionError(f"{path} is not a regular file")
        try:
            opened = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            opened = None  # no /proc: confine's check stands
        real_root = os.path.realpath(root)
        if opened is not None and opened != real_root and not opened.startswith(real_root.rstrip(os.sep) + os.sep):
            raise PermissionError(f"{path} leads outside the run's working copy")
    except BaseException:
        os.close(fd)
        raise
    return fd


def _read(fd: int, size: int) -> bytes:
    """Up to `size` bytes (fewer only at the end of the file)."""
    data = bytearray()
    while len(data) < size and (block := os.read(fd, size - len(data))):
        data += block
    return bytes(data)


def _read_lines(fd: int, path: str, first: int, count: int | None) -> bytes:
    """Lines `first` (1-based) to `first + count - 1` of an open file, read in blocks: lines before `first` are
    counted and dropped, reading stops after the last line wanted, and no more than MAX_READ_BYTES are kept."""
    kept = bytearray()
    number = 1  # the line the next byte read belongs to
    last = None if count is None else first + count  # the first line not wanted
    while last is None or number < last:
        block = _read(fd, _READ_BLOCK)
        if not block:
            break
        start = 0
        if number < first:
            need = first - number
            if block.count(b"\n") < need:
                number += block.count(b"\n")
                continue
            pos = -1
            for _ in range(need):
                pos = block.index(b"\n", pos + 1)
            number, start = first, pos + 1
        end = len(block)
        if last is not None:
            pos = start - 1
            while number < last and (pos := block.find(b"\n", pos + 1)) >= 0:
                number += 1
            if number >= last:
                end = pos + 1
        kept += block[start:end]
        if len(kept) > MAX_READ_BYTES:
            raise _too_large(path, "the lines asked for come to more", "ask for fewer lines")
    return bytes(kept)


def read_text_file(root: Path | str, path: str, line: int | None = None, limit: int | None = None) -> str:
    """ACP fs/read_text_file confined to the working copy (`line` is 1-based; lines end at `\\n`). A whole file
    larger than MAX_READ_BYTES is refused from its size, before any of it is read (FileTooLargeError names the
    limit); a `line`/`limit` read streams the file and keeps only the lines asked for."""
    fd = _open_inside(root, path, confine(root, path), os.O_RDONLY)
    try:
        if line is None and limit is None:
            size = os.fstat(fd).st_size
            if size > MAX_READ_BYTES:
                raise _too_large(path, f"the file has {size} bytes, more")
            data = _read(fd, MAX_READ_BYTES + 1)
            if len(data) > MAX_READ_BYTES:  # it grew since
                raise _too_large(path, "the file has more bytes")
        else:
            data = _read_lines(fd, path, max(line or 1, 1), None if limit is None else max(limit, 0))
    finally:
        os.close(fd)
    return data.decode("utf-8", errors="replace")


def _names_git(parts: tuple[str, ...]) -> bool:
    return any(part.casefold() == ".git" for part in parts)


def write_text_file(root: Path | str, path: str, content: str) -> None:
    """ACP fs/write_text_file confined to the working copy; no `.git` is ever written, at any depth (the working
    copy's own points into the worker's mirror; a nested repository's config can make git run programs)."""
    target = confine(root, path)
    lexical_root = posixpath.normpath(os.path.abspath(root))
    refused = PermissionError("the working copy's .git (and any nested .git) belongs to the office, not the agent")
    if _names_git(target.relative_to(lexical_root).parts):
        raise refused
    target.parent.mkdir(parents=True, exist_ok=True)
    confine(root, str(target))  # a directory that already existed may be a symlink: check the real path again
    if _names_git(Path(os.path.realpath(target)).relative_to(os.path.realpath(lexical_root)).parts):
        raise refused
    with os.fdopen(_open_inside(root, path, target, os.O_WRONLY | os.O_CREAT), "wb") as f:
        f.truncate(0)  # only now: a file found outside was refused before anything in it changed
        f.write(content.encode("utf-8"))
