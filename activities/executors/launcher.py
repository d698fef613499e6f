"""The one place agents are started: what runs (resolved from the operator's installation, never from the
repository), with which environment, inside which sandbox, and how it is reaped. Every ACP adapter goes through it.

Nothing of ours runs between fork and exec in the worker (a `preexec_fn` can deadlock a multithreaded process):
bubblewrap arms its own parent-death signal (`--die-with-parent`), and with `sandbox: none` the guard
(guard.py) arms it for itself as its first step.
"""

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from acp.transports import default_environment

from activities.executors.agents import AgentAdapter, adapter_for
from activities.executors.base import resolve_credential
from activities.executors.sandbox import Sandbox, SandboxPlan
from routing.config import ExecutionProfile
from routing.sandbox import SandboxSettings, allowed_endpoints, provider_endpoints

STDIO_LIMIT = 16 * 1024 * 1024
# Every process of an agent's tree carries its worker's mark (pid:start time), so a restarted worker can find
# and reap what a crashed predecessor left (`kill_orphaned_agents`).
OWNER_ENV = "OFFICE_AGENT_OWNER"
GUARD = str(Path(__file__).with_name("guard.py"))
# Package runners resolve what they run from the working directory (a committed node_modules/.bin, an .npmrc).
PACKAGE_RUNNERS = {"npx", "pnpx", "bunx", "uvx", "pipx"}
RUNNER_SUBCOMMANDS = {"npm": {"exec", "x"}, "pnpm": {"dlx", "exec"}, "yarn": {"dlx", "exec"}, "bun": {"x"}}


class CommandRefused(ValueError):
    """The profile's command would let the repository decide what runs; the message names the fix."""


def adapter_of(profile: ExecutionProfile) -> AgentAdapter:
    return adapter_for(profile.command, profile.adapter)


def launch_environment(profile: ExecutionProfile, provider: str, start_model: str | None) -> dict[str, str]:
    """A trimmed environment (no worker secrets leak by inheritance), the adapter's settings (provider base URL,
    retries off, headless), the profile's own variables (they win), the credential resolved from its reference
    (under the profile's name and the agent's own), and the start model where the agent reads it from."""
    adapter = adapter_of(profile)
    env = {**default_environment(), **adapter.environment(profile.base_url), **profile.env}
    if (credential := resolve_credential(profile, provider)) is not None:
        env[profile.credential_env] = credential  # type: ignore[index]  # set whenever a credential resolved
        if adapter.credential_env and adapter.credential_env not in profile.env:
            env[adapter.credential_env] = credential
    if adapter.model_env and start_model and adapter.model_env not in env:
        env[adapter.model_env] = start_model
    env[OWNER_ENV] = worker_mark()
    return env


def launch_command(profile: ExecutionProfile) -> list[str]:
    adapter = adapter_of(profile)
    return [*profile.command, *(adapter.args(profile.base_url, profile.credential_env) if adapter.args else [])]


def sandbox_plan(profile: ExecutionProfile, workspace: SandboxSettings) -> SandboxPlan | None:
    """The sandbox the store's profile and workspace give this agent; None when the workspace says `sandbox: none`."""
    if workspace.off:
        return None
    narrowing = profile.sandbox
    return SandboxPlan(
        endpoints=allowed_endpoints(profile.base_url, adapter_of(profile).default_hosts, workspace, narrowing),
        provider=provider_endpoints(profile.base_url, adapter_of(profile).default_hosts),
        read_only=[
            *workspace.read_only,
            *(narrowing.read_only if narrowing else []),
            *adapter_of(profile).read_only_files,
        ],
        home_files=dict(adapter_of(profile).home_files),
        read_write=list(narrowing.read_write) if narrowing else [],
    )


def _inside(path: str, root: str) -> bool:
    root = os.path.realpath(root)
    return path == root or path.startswith(root.rstrip("/") + "/")


def resolve_command(command: list[str], path: str | None, cwd: str) -> list[str]:
    """The command with its program as an absolute path outside the working copy. A package runner, a relative
    path or a program found inside the working copy is refused (CommandRefused); a missing one is
    FileNotFoundError (the agent is not installed)."""
    program = command[0]
    name = os.path.basename(program)
    if name in PACKAGE_RUNNERS or (len(command) > 1 and command[1] in RUNNER_SUBCOMMANDS.get(name, ())):
        raise CommandRefused(
            f"command {' '.join(command[:2])!r} runs a package runner, which takes what it runs from the "
            "repository's node_modules and .npmrc: name the installed agent's absolute path instead (e.g. the "
            "one `make agents` installs, .cache/agents/node_modules/.bin/claude-agent-acp)"
        )
    if "/" in program and not os.path.isabs(program):
        raise CommandRefused(f"command {program!r} is a relative path: name the agent's absolute path")
    search = ":".join(p for p in (path or "").split(":") if os.path.isabs(p) and not _inside(os.path.realpath(p), cwd))
    found = program if os.path.isabs(program) else shutil.which(program, path=search)
    if found is None or not os.access(found, os.X_OK) or os.path.isdir(found):
        raise FileNotFoundError(2, "No such file or directory", program)
    if _inside(os.path.realpath(found), cwd):
        raise CommandRefused(f"command {program!r} resolves inside the working copy: name an installed agent")
    return [found, *command[1:]]


def _start_ticks(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[19].decode()
    except (OSError, IndexError):
        return None


@cache
def worker_mark() -> str:
    return f"{os.getpid()}:{_start_ticks(os.getpid())}"


def orphaned_agents() -> list[int]:
    """Agent processes whose worker is gone: their mark names a pid that no longer runs (or runs something else)."""
    orphans = []
    for entry in os.listdir("/proc") if sys.platform == "linux" else []:
        if not entry.isdigit():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        mark = next((v[len(OWNER_ENV) + 1 :] for v in environ if v.startswith(f"{OWNER_ENV}=".encode())), None)
        if mark is None:
            continue
        owner, _, ticks = mark.decode(errors="replace").partition(":")
        if owner.isdigit() and _start_ticks(int(owner)) != ticks:
            orphans.append(int(entry))
    return orphans


def kill_orphaned_agents() -> int:
    orphans = orphaned_agents()
    for pid in orphans:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    return len(orphans)


@dataclass
class LaunchedAgent:
    """An agent process (in its sandbox, or under its guard) and what must go when it goes."""

    process: asyncio.subprocess.Process
    sandbox: Sandbox | None
    stdio: list[asyncio.StreamWriter] = field(default_factory=list)  # our ends of its stdio sockets, closed at reap

    async def communicate(self) -> tuple[bytes, bytes]:
        """Its stdin closed, all it writes to stdout and stderr until it exits (`Process.communicate` reads pipes
        only, and its stdio are sockets)."""
        process = self.process
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        process.stdin.close()
        out, err = await asyncio.gather(process.stdout.read(), process.stderr.read())
        await process.wait()
        return out, err

    async def reap(self) -> None:
        """The whole tree terminated, then killed; the sandbox's directory and relays removed. With a sandbox,
        killing bubblewrap ends its pid namespace: every process in it, `setsid` or not."""
        if self.process.returncode is None:
            for sig, wait_s in ((signal.SIGTERM, 2.0), (signal.SIGKILL, 5.0)):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.process.pid, sig)
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self.process.wait(), wait_s)
                    break
        with contextlib.suppress(ProcessLookupError, PermissionError):  # what is left of the group
            os.killpg(self.process.pid, signal.SIGKILL)
        for stream in self.stdio:
            stream.close()
        if self.sandbox is not None:
            await self.sandbox.close()


async def launch(
    command: list[str], env: dict[str, str], cwd: str, plan: SandboxPlan | None, work_dir: str
) -> LaunchedAgent:
    """Starts the agent with stdio sockets in its own process group: inside a sandbox when `plan` is given
    (SandboxUnavailable when this worker cannot make one), else under the guard."""
    program = resolve_command(command, env.get("PATH"), cwd)
    sandbox = await Sandbox.create(plan, program, env, cwd, work_dir) if plan is not None else None
    if sandbox is not None:
        argv, env = sandbox.argv, sandbox.env
    elif sys.platform == "linux":
        argv = [sys.executable, "-I", "-S", GUARD, str(os.getpid()), *program]
    else:
        argv = program
    # Its stdin, stdout and stderr are sockets, not pipes: a pipe can be opened again through /proc/<pid>/fd/N by
    # any process of the same user, so a command the agent runs (repository code) could write protocol messages or
    # stderr lines in the agent's name; a socket cannot be opened that way (ENXIO).
    pairs = [socket.socketpair() for _ in range(3)]
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=pairs[0][1].fileno(),
            stdout=pairs[1][1].fileno(),
            stderr=pairs[2][1].fileno(),
            env=env,
            cwd=cwd,
            start_new_session=True,
            pass_fds=sandbox.pass_fds() if sandbox is not None else (),
        )
    except BaseException:
        for ours, theirs in pairs:
            ours.close()
            theirs.close()
        if sandbox is not None:
            await sandbox.close()
        raise
    for _ours, theirs in pairs:
        theirs.close()
    streams = [await asyncio.open_unix_connection(sock=ours, limit=STDIO_LIMIT) for ours, _theirs in pairs]
    process.stdin, process.stdout, process.stderr = streams[0][1], streams[1][0], streams[2][0]
    if sandbox is not None:
        sandbox.started()
    return LaunchedAgent(process, sandbox, [writer for _reader, writer in streams])
