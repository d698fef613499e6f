"""A workspace's repository and what a run leaves in it, pure: settings, branch names, per-turn and per-run
results, the continuation note for a fallback, and the errors that are configuration, not provider, failures.

    repository: {url: https://git.example.com/team/app.git, base_ref: main, push_credential_env: GIT_PUSH_TOKEN}

Each run works on its own branch `office/<run-id>` created from `base_ref`; after every completed turn the
branch is committed and pushed, so the branch (not a worker's disk) is the run's file state. Workflow history
carries only commit ids and counts (`TurnCommit`, `RunResult`), never file content.
"""

import hashlib
import re
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field, field_validator

ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
BRANCH_PREFIX = "office/"
FAILED_PREFIX = "office-failed/"
_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")
_HASHED = re.compile(r"-[0-9a-f]{10}$|\.$")
_BAD_REF = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//|/\.|\.lock(/|$)")


class RepositoryConfigError(Exception):
    """The repository settings cannot work (unreachable URL, unknown base ref, no working copy, refused push
    credential). A configuration problem: the run fails at once with this message naming the setting; it is
    never a provider failure, never marks provider health, never routes elsewhere."""

    def __init__(self, setting: str, message: str) -> None:
        super().__init__(message)
        self.setting = setting


class BranchMovedError(Exception):
    """The run's branch moved on in the repository since this working copy started: this attempt is stale
    (another worker continued the run) and must not overwrite that work."""


class RepositoryUnavailableError(Exception):
    """A repository that worked before cannot be reached now (network, server): infrastructure, retried."""


MiB = 1024 * 1024


class RepositoryConfig(BaseModel):
    """Where a workspace's runs read and push code. `push_credential_env` names a variable on the worker
    holding a token (used as the HTTPS password); it is never the token, and a URL never carries one."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    url: str = Field(min_length=1)
    """An https:// or ssh URL (`git@host:team/app.git`). A path on the worker or a file:// URL is accepted only by a
    worker started for development (OFFICE_DEV_MODE=1: `office dev`, the tests)."""
    base_ref: str = "main"
    push_credential_env: str | None = None
    """The name of a variable on the worker holding the token sent as the HTTPS password, only over https and only
    to the URL's host."""
    max_file_bytes: int = Field(default=50 * MiB, gt=0)
    """The largest file a working copy may hold, in bytes (default 50 MiB). Checked on the commit a run starts from,
    before anything is checked out: a bigger file fails the run with invalid_configuration naming this key (a file of
    zeros costs the repository almost nothing and every working copy its full size). Remove the file from the
    branch (large assets belong outside the repository) or raise this value."""
    max_checkout_bytes: int = Field(default=1024 * MiB, gt=0)
    """The disk one working copy may take when checked out, in bytes (default 1 GiB): the sum of its files, each
    counted in whole 4 KiB blocks (so a tree of many tiny files counts too). Checked like max_file_bytes, before
    checkout; over it the run fails with invalid_configuration naming this key. Point base_ref at a smaller tree or
    raise this value (each run on a worker holds its own working copy)."""

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        value = value.strip()
        if value.startswith("-"):
            raise ValueError("repository.url must be a git URL or a path, not an option")
        if "::" in value.split("/", 1)[0]:
            raise ValueError("repository.url: transport helpers (ext::, fd::, …) are not allowed")
        m = re.match(r"^(https?)://([^/@]*)@", value, re.IGNORECASE)
        if m:
            raise ValueError(
                "repository.url carries credentials: remove them from the URL and name the variable that holds "
                "the token in repository.push_credential_env"
            )
        return value

    @field_validator("base_ref")
    @classmethod
    def _base_ref(cls, value: str) -> str:
        if not value or value.startswith(("-", "/")) or value.endswith(("/", ".")) or _BAD_REF.search(value):
            raise ValueError(f"repository.base_ref {value!r} is not a valid branch, tag or commit name")
        return value

    @field_validator("push_credential_env")
    @classmethod
    def _env_name(cls, value: str | None) -> str | None:
        if value is not None and not ENV_NAME.match(value):
            raise ValueError(
                "repository.push_credential_env must be an environment variable NAME (e.g. GIT_PUSH_TOKEN), "
                "never the token itself"
            )
        return value


def ref_id(run_id: str) -> str:
    """The run id as it appears in ref names and directory names: as is when it is safe there, otherwise a
    readable slug plus a hash of the id, so distinct ids never share a branch."""
    if _SAFE_ID.match(run_id) and not _BAD_REF.search(run_id) and not _HASHED.search(run_id):
        return run_id  # an id kept as is never ends like a hashed one, so the two forms never meet
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", run_id).strip("-")[:60] or "run"
    return f"{slug}-{hashlib.sha256(run_id.encode()).hexdigest()[:10]}"


def branch_for(run_id: str) -> str:
    return BRANCH_PREFIX + ref_id(run_id)


def failed_ref(run_id: str, seq: int) -> str:
    return f"refs/heads/{FAILED_PREFIX}{ref_id(run_id)}-{seq}"


class TurnCommit(BaseModel):
    """What a completed turn left on the run's branch. `changed` is False when the turn touched no file (no
    empty commit is made; `commit` is then the unchanged head)."""

    model_config = ConfigDict(frozen=True)

    commit: str
    changed: bool
    files_changed: int = 0
    insertions: int = 0
    deletions: int = 0


class RunResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    branch: str
    base_commit: str
    head_commit: str
    files_changed: int = 0
    insertions: int = 0
    deletions: int = 0


class FileChange(BaseModel):
    model_config = ConfigDict(frozen=True)

    path: str
    insertions: int = 0
    deletions: int = 0
    binary: bool = False


def commit_message(run_id: str, turn: int, provider: str, model: str | None, base_commit: str) -> str:
    """The office's commit message for a completed turn; the trailers make the branch self-describing."""
    return (
        f"office: turn {turn} of run {run_id} ({provider}, {model or 'provider default model'})\n\n"
        f"Office-Run: {run_id}\nOffice-Turn: {turn}\nOffice-Provider: {provider}\n"
        f"Office-Model: {model or 'default'}\nOffice-Base: {base_commit}\n"
    )


def continuation_note(
    branch: str,
    base_ref: str,
    base_commit: str,
    start_commit: str,
    changes: Sequence[FileChange],
    max_files: int = 20,
) -> str:
    """The note a fallback agent's first prompt starts with: where the files are and what changed so far."""
    short = start_commit[:12]
    if not changes:
        return (
            f"[office] You are continuing this run on branch {branch}, at commit {short} ({base_ref} as it was at "
            f"the start, {base_commit[:12]}). No file has been changed yet."
        )
    ins, dels = sum(c.insertions for c in changes), sum(c.deletions for c in changes)
    lines = [
        f"[office] You are continuing this run on branch {branch}, at commit {short}: the working copy already "
        f"holds the earlier turns' work. Changed since {base_ref} ({base_commit[:12]}): {len(changes)} "
        f"file{'s' if len(changes) != 1 else ''}, +{ins} -{dels}.",
    ]
    width = min(max(len(c.path) for c in changes[:max_files]), 60)
    for c in changes[:max_files]:
        stat = "binary" if c.binary else f"+{c.insertions} -{c.deletions}"
        lines.append(f"  {c.path:<{width}}  {stat}")
    if len(changes) > max_files:
        lines.append(f"  … and {len(changes) - max_files} more (git diff --stat {base_commit[:12]}..HEAD)")
    lines.append("Continue from there; do not redo finished work.")
    return "\n".join(lines)
