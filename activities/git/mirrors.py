"""`Mirrors`: the bare mirrors of one worker, one per repository URL, shared by the runs on that worker.

A mirror is fetched, never re-cloned; remote branches land in refs/remotes/origin/*, so a fetch never touches the
office/* branches checked out in working copies. One holder at a time changes a mirror (fetch, worktree changes):
an asyncio lock in this `Mirrors` and an flock across worker processes. The worker runtime makes one `Mirrors` for
its work directory and hands it to the activities that need it; nothing about mirrors is kept at module level."""

import asyncio
import contextlib
import fcntl
import hashlib
import os
import posixpath
import re
import shutil
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

from activities.git.runner import AUTH_REFUSED, first_line, git_env, net_args, rev, run_git, unreachable
from routing.repository import RepositoryConfig, RepositoryConfigError, RepositoryUnavailableError


@dataclass
class _MirrorState:
    """Coordination inside this worker process, never conversation data: who holds the mirror, how many fetches
    started and whether the last one succeeded (a caller whose fetch another one already covered skips its own)."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    fetches_started: int = 0
    last_fetch_ok: bool = False


class Mirrors:
    """The mirrors under `<root_dir>/mirrors`, and the HOME of the worker's git under `<root_dir>/git-home`."""

    def __init__(self, root_dir: str | Path) -> None:
        self.root = Path(root_dir).resolve()
        self._states: dict[Path, _MirrorState] = {}

    def path(self, config: RepositoryConfig) -> Path:
        """Where the mirror of `config.url` lives: a readable name and a hash of the whole URL."""
        name = re.sub(r"[^A-Za-z0-9_.-]+", "-", posixpath.basename(config.url.rstrip("/")) or "repo")[:40]
        key = hashlib.sha256(config.url.encode()).hexdigest()[:16]
        return self.root / "mirrors" / f"{name.removesuffix('.git')}-{key}.git"

    def env(self, config: RepositoryConfig, *, network: bool = False) -> dict[str, str]:
        """The environment of a git command on `config`'s repository from this worker (runner.git_env)."""
        return git_env(config, self.root, network=network)

    def _state(self, mirror: Path) -> _MirrorState:
        return self._states.setdefault(mirror, _MirrorState())

    @contextlib.asynccontextmanager
    async def locked(self, mirror: Path) -> AsyncIterator[None]:
        """One holder at a time per mirror: an asyncio lock in this process, an flock across worker processes."""
        async with self._state(mirror).lock:
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

    @contextlib.asynccontextmanager
    async def fetched(self, config: RepositoryConfig) -> AsyncIterator[Path]:
        """The mirror of `config`, created when new and fetched, held locked for the block. The fetch is skipped
        when one that started after this call succeeded meanwhile (it saw everything this caller needs)."""
        net, env = self.env(config, network=True), self.env(config)
        mirror = self.path(config)
        asked = self._state(mirror).fetches_started
        async with self.locked(mirror):
            await self._init(config, mirror, env)
            await self._fetch(config, mirror, net, asked)
            yield mirror

    async def _init(self, config: RepositoryConfig, mirror: Path, env: dict[str, str]) -> None:
        if (mirror / "HEAD").exists():
            return
        mirror.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".init-", dir=mirror.parent))
        try:
            await run_git("init", "--bare", "--quiet", str(tmp), cwd=mirror.parent, env=env)
            for key, value in (
                ("remote.origin.url", config.url),
                ("gc.auto", "0"),  # no automatic gc while working copies commit into the shared object store
                ("maintenance.auto", "false"),
                ("core.hooksPath", "/dev/null"),  # no hooks run on the office's commits and pushes
            ):
                await run_git("config", key, value, cwd=tmp, env=env)
            for refspec in ("+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"):
                await run_git("config", "--add", "remote.origin.fetch", refspec, cwd=tmp, env=env)
            os.rename(tmp, mirror)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)  # gone after the rename

    async def _fetch(self, config: RepositoryConfig, mirror: Path, env: dict[str, str], asked: int) -> None:
        """Fetches unless a fetch that started after this caller asked already succeeded. Runs under the lock."""
        state = self._state(mirror)
        if state.fetches_started > asked and state.last_fetch_ok:
            return
        state.fetches_started += 1
        state.last_fetch_ok = False
        fetched_before = (mirror / "office-fetched").exists()
        out = await run_git("fetch", "--quiet", "--prune", "origin", cwd=mirror, env=env, check=False,
                            pre=net_args(env))  # fmt: skip
        if out.rc != 0:
            refused = AUTH_REFUSED.search(out.err) is not None
            if fetched_before and not refused:  # it worked before: the network or the server, not the setting
                raise RepositoryUnavailableError(f"fetching {config.url} failed: {first_line(out.err)}")
            if not refused:  # never fetched: nothing to keep
                await asyncio.to_thread(shutil.rmtree, mirror, True)
            raise unreachable(config, out)  # the credential when the server refused it, else the URL
        (mirror / "office-fetched").touch()
        state.last_fetch_ok = True

    async def diff(self, config: RepositoryConfig, base_commit: str, head_commit: str, *, stat: bool = False) -> str:
        """The text of a run's changes (`runs diff`), from the mirror: works after the working copy is gone and on
        any machine that can fetch the repository (fetches when the commits are not there yet)."""
        self.env(config, network=True)  # a URL this worker may not reach is refused even when the commits are here
        mirror, env = self.path(config), self.env(config)
        if not ((mirror / "HEAD").exists() and await rev(head_commit, mirror, env)):
            async with self.fetched(config):
                pass
        args = ["diff", "--stat=120"] if stat else ["diff", "--no-color"]
        out = await run_git(*args, base_commit, head_commit, cwd=mirror, env=env, check=False)
        if out.rc != 0:
            raise RepositoryConfigError(
                "repository.url", f"commits {base_commit[:12]}..{head_commit[:12]} are not in {config.url}: "
                f"{first_line(out.err)}"
            )  # fmt: skip
        return out.out
