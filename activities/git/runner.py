"""Runs git for the worker with an environment built from nothing, so git trusts neither the repository nor the
worker: PATH, a private HOME under the work directory, C locale, no system or user git configuration, the office's
identity. Neither a repository's hooks nor anything git starts sees the worker's provider keys, database URL or
Temporal settings. A repository on the worker's disk (a path or file://) is pushed to by running its own hooks as the
worker, so only a worker started for development (OFFICE_DEV_MODE=1) accepts one.

Credentials: `push_credential_env` names a variable on the worker; its value reaches git only through the
environment of network commands (a credential helper that echoes it), never a URL, argv, config or log, and never
a local command. The helper answers only for https on the URL's own host, and redirects are not followed.

Errors: settings that cannot work raise `RepositoryConfigError` naming the setting; an unexpected git failure raises
`GitError`, a `RepositoryUnavailableError` (infrastructure, retried)."""

import asyncio
import contextlib
import os
import re
import signal
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from activities.executors.base import CredentialRefused, read_credential
from routing.repository import RepositoryConfig, RepositoryConfigError, RepositoryUnavailableError

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
# What git says when a server refused the worker's credentials.
AUTH_REFUSED = re.compile(
    r"authentication failed|could not read (username|password)|terminal prompts disabled|permission denied|"
    r"\b40[13]\b|access denied|not authorized|invalid credentials",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class GitOutput:
    rc: int
    out: str
    err: str


class GitError(RepositoryUnavailableError):
    """An unexpected git failure: infrastructure, not a setting."""

    def __init__(self, args: tuple[str, ...], out: GitOutput) -> None:
        super().__init__(f"git {args[0] if args else ''} failed ({out.rc}): {first_line(out.err)}")
        self.out = out


def first_line(text: str) -> str:
    """The line of git's stderr that says what went wrong (fatal, error, the remote's words), at most 300 chars."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    useful = [ln for ln in lines if ln.lower().startswith(("fatal", "error", "remote:", "!"))]
    return (useful or lines or ["(no message)"])[0][:300]


def unreachable(config: RepositoryConfig, out: GitOutput) -> RepositoryConfigError:
    """The setting to change when the repository did not answer a worker that never reached it before: the
    credential when the server refused it, else the URL."""
    why = first_line(out.err)
    if AUTH_REFUSED.search(out.err):
        return RepositoryConfigError(
            "repository.push_credential_env",
            f"repository.url {config.url} refused this worker's credentials ({why}); set "
            f"repository.push_credential_env to the name of a variable holding a token that can read and push",
        )
    return RepositoryConfigError(
        "repository.url",
        f"repository.url {config.url} cannot be reached from this worker ({why}); set it to a git URL the "
        f"workers can read (redirects are not followed: give the repository's own URL)",
    )


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


def _refuse_local_in_production(config: RepositoryConfig) -> None:
    raise RepositoryConfigError(
        "repository.url",
        f"repository.url {config.url} is a path on the worker: pushing to it would run that repository's hooks "
        f"as the worker, so only a worker started for development ({DEV_MODE_ENV}=1, as `office dev` and the "
        f"tests set) accepts it; use an https:// or ssh URL",
    )


def _token(config: RepositoryConfig, env_name: str) -> str:
    """The push token named by repository.push_credential_env, for a URL that may carry one."""
    if transport(config.url) == "http":
        raise RepositoryConfigError(
            "repository.url",
            f"repository.url {config.url} is plain http: the token named in repository.push_credential_env is "
            f"sent only over https; use the repository's https:// URL",
        )
    try:
        token = read_credential(env_name, "repository.push_credential_env")
    except CredentialRefused as err:
        raise RepositoryConfigError("repository.push_credential_env", str(err)) from None
    if not token:
        raise RepositoryConfigError(
            "repository.push_credential_env",
            f"repository.push_credential_env names {env_name}, which is not set on this "
            f"worker; set it there to a token with write access to {config.url}",
        )
    return token


def git_env(config: RepositoryConfig, root: Path, *, network: bool = False) -> dict[str, str]:
    """The whole environment of a git command the worker runs: built from nothing, never the worker's own.
    `network`: fetch, push, ls-remote; only those may carry the push token, and only to an https URL."""
    kind = transport(config.url)
    if network and kind == "file" and not dev_mode():
        _refuse_local_in_production(config)
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
        token = _token(config, config.push_credential_env)
        if kind == "https":  # the token is an https password: ssh and local repositories never see it
            env[TOKEN_VAR] = token
            env[HOST_VAR] = urlsplit(config.url).netloc
    return env


def net_args(env: dict[str, str]) -> list[str]:
    """Options of every fetch, push and ls-remote: no redirects (a token never follows one to another host), no
    credential helper but the office's, and that one only when this command carries the token."""
    args = ["-c", "http.followRedirects=false", "-c", "credential.helper="]
    if TOKEN_VAR in env:
        args += ["-c", f"credential.helper={_HELPER}"]
    return args


# How long one git command may take before the worker gives up on it (and kills it with everything it started):
# a command that talks to a server gets longer than one that works on this disk. A stuck command is the
# infrastructure's fault (`RepositoryUnavailableError`), retried like any other.
NETWORK_COMMANDS = frozenset({"fetch", "push", "ls-remote", "clone"})
NETWORK_TIMEOUT_S = 600.0
LOCAL_TIMEOUT_S = 300.0
# How long a stopped command has to remove its own lock files (on SIGTERM) before the rest of it is killed.
STOP_GRACE_S = 2.0


class GitTimeout(RepositoryUnavailableError):
    """A git command did not finish in time; it was killed with its children."""


def _signal_group(proc: asyncio.subprocess.Process, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


async def _stop_group(proc: asyncio.subprocess.Process) -> None:
    """git runs in a process group of its own: ssh, helpers and hooks it started go with it. SIGTERM first, so git
    removes the lock files it holds (a killed git leaves `index.lock` or a ref's `.lock`, in the worker's shared
    mirror too, and the next command there fails "File exists"); SIGKILL after STOP_GRACE_S for whatever is left."""
    _signal_group(proc, signal.SIGTERM)  # also when git itself has exited: a hook's child may still hold the group
    try:
        await asyncio.wait_for(asyncio.shield(proc.wait()), STOP_GRACE_S)
    except TimeoutError:
        pass
    finally:  # a cancellation during the grace still kills the rest, and is not swallowed
        _signal_group(proc, signal.SIGKILL)  # a hook or helper that ignored SIGTERM (the group outlives its leader)


async def run_git(
    *args: str,
    cwd: Path,
    env: dict[str, str],
    check: bool = True,
    pre: list[str] | None = None,
    timeout_s: float | None = None,
) -> GitOutput:
    """Runs `git <pre> <args>` in `cwd` with exactly `env` and no stdin. `check`: a non-zero exit raises GitError.
    A command still running after `timeout_s` (default by kind: network or local) or whose caller is cancelled
    (a cancelled activity) is killed with everything it started; the former raises GitTimeout."""
    command = args[0] if args else ""
    limit = timeout_s or (NETWORK_TIMEOUT_S if command in NETWORK_COMMANDS else LOCAL_TIMEOUT_S)
    proc = await asyncio.create_subprocess_exec(
        "git",
        *(pre or []),
        *args,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    try:
        stdout, stderr = await asyncio.wait_for(proc.communicate(), timeout=limit)
    except TimeoutError:
        await _stop_group(proc)
        await proc.wait()
        raise GitTimeout(f"git {command} did not finish within {limit:g} s and was stopped") from None
    except BaseException:  # cancelled: nothing of this command outlives the activity that ran it
        await _stop_group(proc)
        raise
    out = GitOutput(proc.returncode or 0, stdout.decode(errors="replace"), stderr.decode(errors="replace"))
    if check and out.rc != 0:
        raise GitError(args, out)
    return out


async def rev(ref: str, cwd: Path, env: dict[str, str]) -> str | None:
    """The commit `ref` names in the repository at `cwd`, or None."""
    out = await run_git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", cwd=cwd, env=env, check=False)
    return out.out.strip() if out.rc == 0 else None
