"""What an agent may do in an office run without asking: the workspace's permission policy, pure.

An ACP agent asks the client (`session/request_permission`) before a tool call; the request names the tool
call's kind (the ACP `ToolKind`: read, edit, delete, move, search, execute, think, fetch, switch_mode, other),
the file locations it touches and its raw input (for `execute`, the command). An office run is unattended, so
the run answers from the policy here:

    permissions: {read: allow, edit: allow, execute: ["pytest", "npm test"], fetch: deny}

- Per kind: `allow`, `deny` or `ask`. **`ask` is treated as `deny`**: nobody watches an office run, so a request
  that would need a person is refused (the agent sees a rejection and may choose another way). `ask` is kept
  as written so the setting round-trips and may mean "ask" once runs can be attended.
- `execute` may also be a list of allowed command prefixes: a command is allowed only if its words start with
  the words of a prefix (`pytest` allows `pytest -q tests/` but not `pytestevil`), it contains no shell
  metacharacter (`;`, `&`, `|`, backtick, `$`, `>`, `<`, parentheses, newlines), and every path-like argument
  stays inside the working copy. `execute: allow` hands the agent a shell: only the lexical path check applies.
- Defaults (a kind not mentioned): read, search, think allow; edit, delete, move, execute, fetch, switch_mode,
  other deny. `switch_mode` is denied by default because a mode switch can leave the client's policy behind
  (e.g. a "bypass permissions" mode).
- Whatever the policy says, a request touching a path outside the run's working copy is refused, and so is
  an edit, delete or move of the working copy's `.git` (it points into the worker's mirror). The check is
  lexical (`..` and absolute paths are resolved against the working copy, `~` is refused, no symlinks are
  followed: this module does no I/O); the file-system handlers add a real-path check on the worker.
- A profile can only narrow the workspace's policy (`narrow`): per kind the stricter of the two wins, and two
  `execute` allow-lists meet in the commands both allow.
- The answer is always the agent's own *once* option (`allow_once` / `reject_once`); `*_always` options are
  never chosen, so an agent never remembers a grant beyond the request the policy judged.
"""

import posixpath
import re
import shlex
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, Protocol, TypeAlias, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

# The ACP schema's ToolKind (acp.schema.ToolKind) and PermissionOptionKind, spelled out: routing imports no acp.
ToolKind = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"]
TOOL_KINDS: tuple[ToolKind, ...] = get_args(ToolKind)
PermissionOptionKind = Literal["allow_once", "allow_always", "reject_once", "reject_always"]

Rule = Literal["allow", "deny", "ask"]
# Kinds whose requests are about files: without a path they cannot be confined, so they are refused.
FILE_KINDS: frozenset[str] = frozenset({"read", "edit", "delete", "move"})
# Shell metacharacters that would let an allowed prefix run something else.
METACHARACTERS: tuple[str, ...] = (";", "&", "|", "`", "$", ">", "<", "(", ")", "\n", "\r", "\x00")


def _rule(value: object) -> object:
    """YAML turns `yes`/`no`/`on`/`off` into booleans; read them as allow/deny."""
    if value is True:
        return "allow"
    if value is False:
        return "deny"
    return value


RuleField = Annotated[Rule, BeforeValidator(_rule)]


def _words(prefix: str) -> tuple[str, ...]:
    return tuple(prefix.split())


def _normal_prefix(prefix: str) -> str:
    words = _words(prefix)
    if not words:
        raise ValueError("an execute prefix is empty: list commands such as 'pytest' or 'npm test'")
    bad = [c for c in METACHARACTERS if c in prefix]
    if bad:
        raise ValueError(f"execute prefix {prefix!r} contains the shell metacharacter {bad[0]!r}")
    return " ".join(words)


def _execute_rule(value: object) -> object:
    value = _rule(value)
    if isinstance(value, str) and value not in get_args(Rule):
        raise ValueError(
            f"{value!r} is neither allow, deny, ask nor a list: write execute: [{value!r}] to allow that command"
        )
    if isinstance(value, list | tuple):
        if not all(isinstance(p, str) for p in value):
            raise ValueError("execute lists command prefixes as strings, e.g. ['pytest', 'npm test']")
        prefixes = tuple(dict.fromkeys(_normal_prefix(p) for p in value))
        return prefixes or "deny"  # an empty allow-list allows nothing
    return value


class PermissionPolicy(BaseModel):
    """A workspace's permission policy: one rule per ACP tool kind; `execute` may be a list of command prefixes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    read: RuleField = "allow"
    edit: RuleField = "deny"
    delete: RuleField = "deny"
    move: RuleField = "deny"
    search: RuleField = "allow"
    execute: RuleField | tuple[str, ...] = "deny"
    think: RuleField = "allow"
    fetch: RuleField = "deny"
    switch_mode: RuleField = "deny"
    other: RuleField = "deny"

    @field_validator("execute", mode="before")
    @classmethod
    def _execute(cls, value: object) -> object:
        return _execute_rule(value)

    def rule(self, kind: str) -> Rule | tuple[str, ...]:
        value: Rule | tuple[str, ...] = getattr(self, tool_kind(kind))
        return value


class ProfilePermissions(BaseModel):
    """What an agent profile says about permissions: only the kinds it names narrow the workspace policy."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    read: RuleField | None = None
    edit: RuleField | None = None
    delete: RuleField | None = None
    move: RuleField | None = None
    search: RuleField | None = None
    execute: RuleField | tuple[str, ...] | None = None
    think: RuleField | None = None
    fetch: RuleField | None = None
    switch_mode: RuleField | None = None
    other: RuleField | None = None

    @field_validator("execute", mode="before")
    @classmethod
    def _execute(cls, value: object) -> object:
        return None if value is None else _execute_rule(value)


def tool_kind(kind: str | None) -> ToolKind:
    """The ACP tool kind of a request; a missing or unknown kind is `other`."""
    for known in TOOL_KINDS:
        if kind == known:
            return known
    return "other"


# ---------------------------------------------------------------------------------------------------- narrowing

ExecuteRule: TypeAlias = Rule | tuple[str, ...]


def _starts_with(words: tuple[str, ...], prefix: tuple[str, ...]) -> bool:
    return words[: len(prefix)] == prefix


def _narrow_rule(a: ExecuteRule, b: ExecuteRule) -> ExecuteRule:
    if a == "deny" or b == "deny":
        return "deny"
    if a == "ask" or b == "ask":
        return "ask"
    if a == "allow":
        return b
    if b == "allow":
        return a
    assert isinstance(a, tuple) and isinstance(b, tuple)
    # A command allowed by both starts with a prefix of each; of two such prefixes one extends the other, and
    # the command starts with the longer one. So the meet is the longer of every compatible pair.
    meet: dict[str, None] = {}
    for pa in a:
        for pb in b:
            wa, wb = _words(pa), _words(pb)
            if _starts_with(wa, wb):
                meet[pa] = None
            elif _starts_with(wb, wa):
                meet[pb] = None
    return tuple(meet) if meet else "deny"


def narrow(workspace: PermissionPolicy, profile: PermissionPolicy | ProfilePermissions | None) -> PermissionPolicy:
    """The workspace policy narrowed by a profile's: per kind the stricter rule; never wider than either."""
    if profile is None:
        return workspace
    changes: dict[str, Any] = {}
    for kind in TOOL_KINDS:
        theirs: ExecuteRule | None = getattr(profile, kind)
        if theirs is not None:
            changes[kind] = _narrow_rule(workspace.rule(kind), theirs)
    return workspace.model_copy(update=changes)


# ------------------------------------------------------------------------------------------------------ verdicts


class PermissionVerdict(BaseModel):
    model_config = ConfigDict(frozen=True)

    allowed: bool
    reason: str
    kind: ToolKind = "other"


def _absolute_dir(workdir: str) -> str | None:
    if not workdir.startswith("/") or "\x00" in workdir:
        return None
    return posixpath.normpath(workdir)


def inside(path: str, workdir: str) -> bool:
    """Whether `path` (absolute, or relative to `workdir`) lies inside `workdir`, lexically: `..` resolved,
    `~` refused, no symlinks followed. `workdir` must be absolute."""
    root = _absolute_dir(workdir)
    if root is None or "\x00" in path or path.startswith("~"):
        return False
    full = posixpath.normpath(posixpath.join(root, path))
    if full.startswith("//") and not root.startswith("//"):
        return False  # POSIX keeps a leading '//' as implementation-defined; never the working copy
    return full == root or full.startswith(root.rstrip("/") + "/")


def _in_git_dir(path: str, workdir: str) -> bool:
    root = posixpath.normpath(workdir)
    rel = posixpath.relpath(posixpath.normpath(posixpath.join(root, path)), root)
    return rel.split("/", 1)[0] == ".git"


def command_text(command: str | Sequence[str] | None) -> str | None:
    """A command as one line. Codex-style argv lists that wrap a script in `bash -lc` yield the script."""
    if command is None or isinstance(command, str):
        return command
    argv = list(command)
    if len(argv) == 3 and posixpath.basename(argv[0]) in ("sh", "bash", "zsh", "dash") and argv[1] in ("-c", "-lc"):
        return argv[2]
    return shlex.join(argv)


_PATHISH_SPLIT = re.compile(r"[\s;&|()<>`'\"=,:]+")


def _pathish(token: str) -> bool:
    return token.startswith(("/", "~")) or ".." in token.split("/")


def _outside_paths(text: str, workdir: str) -> list[str]:
    """Path-like words of a command (absolute, `~`, or with a `..` step) that leave the working copy."""
    return [t for t in _PATHISH_SPLIT.split(text) if t and _pathish(t) and not inside(t, workdir)]


def _command_allowed(prefixes: tuple[str, ...], text: str) -> tuple[bool, str]:
    bad = next((c for c in METACHARACTERS if c in text), None)
    if bad is not None:
        return False, f"the command contains the shell metacharacter {bad!r}"
    try:
        words = tuple(shlex.split(text))
    except ValueError as err:
        return False, f"the command does not parse ({err})"
    if not words:
        return False, "the command is empty"
    for prefix in prefixes:
        if _starts_with(words, _words(prefix)):
            return True, f"it starts with the allowed prefix {prefix!r}"
    return False, f"it starts with none of the allowed prefixes ({', '.join(prefixes)})"


def decide_permission(
    policy: PermissionPolicy,
    kind: str | None,
    paths: Sequence[str] = (),
    command: str | Sequence[str] | None = None,
    workdir: str = "",
) -> PermissionVerdict:
    """Whether an unattended run lets the agent go ahead with one tool call, and why."""
    k = tool_kind(kind)
    setting = f"permissions.{k}"
    if _absolute_dir(workdir) is None:
        return PermissionVerdict(allowed=False, kind=k, reason=f"refused: the working copy {workdir!r} is not known")
    outside = [p for p in paths if not inside(p, workdir)]
    if outside:
        return PermissionVerdict(
            allowed=False, kind=k, reason=f"refused: {outside[0]} is outside the working copy (whatever {setting} says)"
        )
    text = command_text(command)
    if text is not None:
        stray = _outside_paths(text, workdir)
        if stray:
            return PermissionVerdict(
                allowed=False, kind=k, reason=f"refused: the command touches {stray[0]}, outside the working copy"
            )
    if k in ("edit", "delete", "move") and any(_in_git_dir(p, workdir) for p in paths):
        return PermissionVerdict(
            allowed=False, kind=k, reason="refused: the working copy's .git belongs to the office, not the agent"
        )
    rule = policy.rule(k)
    if rule == "deny":
        return PermissionVerdict(allowed=False, kind=k, reason=f"refused by {setting}: deny")
    if rule == "ask":
        return PermissionVerdict(
            allowed=False, kind=k, reason=f"refused: {setting} is 'ask' and an unattended run has no one to ask"
        )
    if k in FILE_KINDS and not paths:
        return PermissionVerdict(
            allowed=False,
            kind=k,
            reason=f"refused: a {k} request without a path cannot be kept inside the working copy",
        )
    if isinstance(rule, tuple):
        if not text:
            return PermissionVerdict(
                allowed=False, kind=k, reason=f"refused: no command given to match {setting} against"
            )
        ok, why = _command_allowed(rule, text)
        verdict = "allowed" if ok else "refused"
        return PermissionVerdict(allowed=ok, kind=k, reason=f"{verdict} by {setting}: {why}")
    return PermissionVerdict(allowed=True, kind=k, reason=f"allowed by {setting}: allow")


# ------------------------------------------------------------------------------------------ the agent's options


class OptionLike(Protocol):
    @property
    def option_id(self) -> str: ...

    @property
    def kind(self) -> Any: ...


class PermissionChoice(BaseModel):
    """The answer to send: the agent's own option id (None: no fitting option, answer `cancelled`)."""

    model_config = ConfigDict(frozen=True)

    option_id: str | None
    allowed: bool
    reason: str


def _option(option: OptionLike | Mapping[str, Any]) -> tuple[str | None, str | None]:
    if isinstance(option, Mapping):
        oid, okind = option.get("optionId", option.get("option_id")), option.get("kind")
    else:
        oid, okind = option.option_id, option.kind
    okind = getattr(okind, "value", okind)  # an enum member or its string
    return (oid if isinstance(oid, str) else None), (okind if isinstance(okind, str) else None)


def choose_option(verdict: PermissionVerdict, options: Sequence[OptionLike | Mapping[str, Any]]) -> PermissionChoice:
    """Picks the agent's `allow_once` (allowed) or `reject_once` (refused) option; never an `*_always` one.
    An allowed request whose agent offers no `allow_once` is refused rather than granted for good."""
    parsed = [_option(o) for o in options]
    allow = next((oid for oid, k in parsed if k == "allow_once" and oid), None)
    reject = next((oid for oid, k in parsed if k == "reject_once" and oid), None)
    if verdict.allowed and allow is not None:
        return PermissionChoice(option_id=allow, allowed=True, reason=verdict.reason)
    reason = verdict.reason if not verdict.allowed else "refused: the agent offers no allow-once option"
    return PermissionChoice(option_id=reject, allowed=False, reason=reason)


# ----------------------------------------------------------------------------------- reading an ACP tool call

_PATH_KEYS = ("file_path", "path", "notebook_path", "old_path", "new_path", "source", "destination", "cwd", "dir")


class PermissionRequest(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: ToolKind
    paths: tuple[str, ...] = ()
    command: str | None = None


def read_tool_call(kind: str | None, raw_input: object = None, locations: Sequence[str] = ()) -> PermissionRequest:
    """The kind, paths and command of a tool call as agents send them (ACP `locations` plus the usual
    raw-input keys: Claude Code's `file_path`/`command`, Codex's argv `command` and `cwd`, …)."""
    paths = [p for p in locations if p]
    command: str | None = None
    if isinstance(raw_input, Mapping):
        for key in _PATH_KEYS:
            value = raw_input.get(key)
            if isinstance(value, str) and value:
                paths.append(value)
        many = raw_input.get("paths")
        if isinstance(many, list):
            paths += [p for p in many if isinstance(p, str) and p]
        raw_command = raw_input.get("command", raw_input.get("cmd"))
        if isinstance(raw_command, str):
            command = raw_command
        elif isinstance(raw_command, list) and all(isinstance(w, str) for w in raw_command):
            command = command_text(raw_command)
    return PermissionRequest(kind=tool_kind(kind), paths=tuple(dict.fromkeys(paths)), command=command)


# ----------------------------------------------------------------------------------------------------- counts


def _bump(counts: Mapping[str, int], kind: str) -> dict[str, int]:
    out = dict(counts)
    out[kind] = out.get(kind, 0) + 1
    return out


class PermissionCounts(BaseModel):
    """How many permissions a run's agent asked for, and how many were allowed or refused, by tool kind."""

    model_config = ConfigDict(frozen=True)

    asked: dict[str, int] = Field(default_factory=dict)
    allowed: dict[str, int] = Field(default_factory=dict)
    refused: dict[str, int] = Field(default_factory=dict)

    def add(self, kind: str, allowed: bool) -> "PermissionCounts":
        k = tool_kind(kind)
        return PermissionCounts(
            asked=_bump(self.asked, k),
            allowed=_bump(self.allowed, k) if allowed else dict(self.allowed),
            refused=dict(self.refused) if allowed else _bump(self.refused, k),
        )

    def merged(self, other: "PermissionCounts") -> "PermissionCounts":
        def total(a: Mapping[str, int], b: Mapping[str, int]) -> dict[str, int]:
            return {k: a.get(k, 0) + b.get(k, 0) for k in sorted(set(a) | set(b))}

        return PermissionCounts(
            asked=total(self.asked, other.asked),
            allowed=total(self.allowed, other.allowed),
            refused=total(self.refused, other.refused),
        )
