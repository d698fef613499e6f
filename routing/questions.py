"""Permission questions a person answers, pure: what an agent's `ask` request looks like on the way to a person, the
answer, the run's record of both, and what `--for-run` allows for the rest of the run.

The flow (workflows/questions.py, activities/executors/acp.py): the policy says `ask` → the worker holding the agent
signals the run (`PERMISSION_ASKED`) with a question it keeps open → the run shows it (`RunView.question`, the search
attribute `OfficeAwaiting = "permission"`) → `office runs answer RUN --allow|--deny [--for-run]` (the update
`ANSWER_PERMISSION`) or the workspace's `permissions.ask_timeout` decides → the run hands the answer to the worker,
which acts only on a question it holds itself. A question travels redacted (routing.redact) and with its paths
relative to the working copy: it is stored in the run's history and shown in the Temporal UI.
"""

import posixpath
from collections.abc import Sequence
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from routing.permissions import ToolKind
from routing.redact import redact

PERMISSION_ASKED = "permission_asked"  # the signal a worker sends when its agent's request needs a person
ANSWER_PERMISSION = "answer_permission"  # the update a person answers with (`office runs answer`)
AWAITING_PERMISSION = "permission"  # the run's `awaiting` and its OfficeAwaiting search attribute
# How much of a question travels: its paths (each cut short) and its command, redacted.
QUESTION_PATHS, QUESTION_TEXT = 20, 300


class PermissionAsked(BaseModel):
    """A worker's question, as signalled to the run: the session that holds it and what the agent asked for."""

    model_config = ConfigDict(frozen=True)

    session_key: str = Field(max_length=300)
    question_id: str = Field(min_length=1, max_length=64)
    kind: ToolKind
    title: str = Field(default="", max_length=QUESTION_TEXT)
    paths: tuple[str, ...] = Field(default=(), max_length=QUESTION_PATHS)  # relative to the working copy
    command: str | None = Field(default=None, max_length=QUESTION_TEXT)


class PermissionAnswer(BaseModel):
    """A person's answer (`office runs answer`): `question_id` names the question they saw (None: the oldest one
    pending); `for_run` allows the same kind and path prefix for the rest of this run."""

    model_config = ConfigDict(frozen=True)

    allow: bool
    for_run: bool = False
    actor: str = Field(default="user", min_length=1, max_length=200)
    question_id: str | None = Field(default=None, max_length=64)


Answerer = Literal["person", "timeout", "grant", "turn_ended"]


class QuestionRecord(BaseModel):
    """One question of the run's permission record: what was asked, the answer, who or what gave it, when."""

    question_id: str
    kind: ToolKind
    title: str = ""
    paths: tuple[str, ...] = ()
    command: str | None = None
    asked_at: datetime | None = None
    allowed: bool | None = None  # None: still pending, or the turn ended with it open (nobody answered)
    answered_by: Answerer | None = None
    actor: str | None = None  # the person (`--actor`, as `runs decide` records it)
    answered_at: datetime | None = None
    for_run: bool = False  # the answer also allowed this kind and path prefix for the rest of the run
    deadline: datetime | None = None  # denied when nobody answers by then


class RunGrant(BaseModel):
    """`--for-run`: requests of `kind` whose paths all lie under one of `prefixes` (directories relative to the
    working copy; "." is all of it) are allowed for the rest of the run without asking. A request without paths (a
    command) is covered only when it is the same `command`."""

    model_config = ConfigDict(frozen=True)

    kind: ToolKind
    prefixes: tuple[str, ...] = ()
    command: str | None = None


def relative_paths(paths: Sequence[str], workdir: str) -> tuple[str, ...]:
    """The paths a question shows: relative to the working copy (absolute ones inside it; the policy refused any
    outside before asking), redacted, at most QUESTION_PATHS."""
    root = posixpath.normpath(workdir) if workdir.startswith("/") else ""
    shown: dict[str, None] = {}
    for path in paths:
        full = posixpath.normpath(posixpath.join(root, path)) if root else posixpath.normpath(path)
        rel = posixpath.relpath(full, root) if root and (full == root or full.startswith(root + "/")) else full
        shown[redact(rel, QUESTION_TEXT)] = None
    return tuple(shown)[:QUESTION_PATHS]


def question_of(
    session_key: str, question_id: str, kind: ToolKind, title: str, paths: Sequence[str], command: str | None,
    workdir: str,
) -> PermissionAsked:  # fmt: skip
    """A request made fit to travel: redacted, cut short, its paths relative to the working copy."""
    return PermissionAsked(
        session_key=session_key,
        question_id=question_id,
        kind=kind,
        title=redact(title, QUESTION_TEXT),
        paths=relative_paths(paths, workdir),
        command=redact(command, QUESTION_TEXT) if command is not None else None,
    )


def _directory(path: str) -> str:
    return posixpath.dirname(posixpath.normpath(path)) or "."


def grant_of(asked: PermissionAsked | QuestionRecord) -> RunGrant:
    """What `--for-run` on this question allows: its kind under the directories of its paths (or its command)."""
    if asked.paths:
        return RunGrant(kind=asked.kind, prefixes=tuple(dict.fromkeys(_directory(p) for p in asked.paths)))
    return RunGrant(kind=asked.kind, command=asked.command)


def _under(path: str, prefix: str) -> bool:
    path = posixpath.normpath(path)
    if path.startswith(("/", "../")) or path == "..":
        return False  # never relative to the working copy: a grant covers nothing outside it
    return prefix == "." or path == prefix or path.startswith(prefix.rstrip("/") + "/")


def covered(grants: Sequence[RunGrant], asked: PermissionAsked) -> RunGrant | None:
    """The run's grant that allows this question without asking, if any."""
    for grant in grants:
        if grant.kind != asked.kind:
            continue
        if asked.paths and grant.prefixes:
            if all(any(_under(p, prefix) for prefix in grant.prefixes) for p in asked.paths):
                return grant
        elif not asked.paths and not grant.prefixes and grant.command == asked.command:
            return grant
    return None
