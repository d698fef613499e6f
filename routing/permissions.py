"""What an agent may do in an office run without asking: the workspace's permission policy, pure.

An ACP agent asks the client (`session/request_permission`) before a tool call; the request names the tool
call's kind (the ACP `ToolKind`: read, edit, delete, move, search, execute, think, fetch, switch_mode, other),
the file locations it touches and its raw input (for `execute`, the command). An office run is unattended, so
the run answers from the policy here:

    permissions: {read: allow, edit: allow, execute: ["pytest", "npm test"], fetch: deny}

- Per kind: `allow`, `deny` or `ask`. **`ask` waits for a person** (routing.questions): the run shows the request
  (`office runs show`, `OfficeAwaiting = "permission"` in the Temporal UI) until someone answers it with
  `office runs answer RUN --allow|--deny`; nobody answering within `ask_timeout` seconds is a refusal (the agent
  sees a rejection and may choose another way). The wait counts inside the turn, so `ask_timeout` must be shorter
  than the `timeout_s` of the workspace's agent providers (checked with the workspace).
- `execute` may also be a list of allowed command prefixes: a command is allowed only if its words start with
  the words of a prefix (`pytest` allows `pytest -q tests/` but not `pytestevil`), it contains no shell
  metacharacter (`;`, `&`, `|`, backtick, `$`, `>`, `<`, parentheses, newlines, and the brace, glob and tilde
  characters `{ } * ? [ ] ~`, which expand to paths the policy never saw; quoted or not), and every word of it
  stays inside the working copy. `execute: allow` hands the agent a shell: only the path checks apply. An
  allowed test runner plus `edit` is arbitrary code (`pytest -p plugin`, a conftest.py the agent writes): the
  policy confines what a request names, the sandbox confines what the code reaches.
- A request that carries a command (raw input `command`, `cmd`, `script`, `argv`, `shell_command`) is judged as
  `execute`, whatever kind the agent claims (a `think` or `search` with a command is an execution).
- Defaults (a kind not mentioned): read, search, think allow; edit, delete, move, execute, fetch, switch_mode,
  other deny. `switch_mode` is denied by default because a mode switch can leave the client's policy behind
  (e.g. a "bypass permissions" mode).
- Whatever the policy says, a request naming a path outside the run's working copy is refused: its file paths and
  directories, every word of its command, and every alternative of a search's `pattern`, `glob` or `include`
  (`{/etc,src}/*` names `/etc/*`; a regular expression is judged the same way, so one starting with `/` is
  refused). So is an edit, delete, move or command naming a `.git` at any depth (the
  working copy's own points into the worker's mirror; a nested one's config can run programs when git reads it).
  This module does no I/O: it checks lexically (`..` and absolute paths resolved against the working copy, `~`
  refused) and, given the real paths the worker resolved (`to_resolve` lists them, `os.path.realpath` on the
  worker), checks that each lies inside the working copy's real path, so a symlink leading out is refused.
- A profile can only narrow the workspace's policy (`narrow`): per kind the stricter of the two wins, and two
  `execute` allow-lists meet in the commands both allow.
- The answer is always the agent's own *once* option (`allow_once` / `reject_once`); `*_always` options are
  never chosen, so an agent never remembers a grant beyond the request the policy judged.
"""

import itertools
import posixpath
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Protocol, TypeAlias, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from routing.invariants import InvariantBroken

# The ACP schema's ToolKind (acp.schema.ToolKind) and PermissionOptionKind, spelled out: routing imports no acp.
ToolKind = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"]
TOOL_KINDS: tuple[ToolKind, ...] = get_args(ToolKind)
PermissionOptionKind = Literal["allow_once", "allow_always", "reject_once", "reject_always"]

Rule = Literal["allow", "deny", "ask"]
# Kinds whose requests are about files: without a path they cannot be confined, so they are refused.
FILE_KINDS: frozenset[str] = frozenset({"read", "edit", "delete", "move"})
# Shell metacharacters that would let an allowed prefix run something else, or name files it does not show:
# brace, glob and tilde expansion turn `cat {/etc/shadow,README}` into paths the policy never saw.
METACHARACTERS: tuple[str, ...] = (
    *(";", "&", "|", "`", "$", ">", "<", "(", ")", "\n", "\r", "\x00"),
    *("{", "}", "*", "?", "[", "]", "~"),
)
# Raw-input keys that carry a command: a request with one is judged as `execute`, whatever kind it claims.
COMMAND_KEYS: tuple[str, ...] = ("command", "cmd", "script", "argv", "shell_command")
# Raw-input keys naming a directory a tool runs in (also paths): a command's relative words are resolved there too.
DIR_KEYS: tuple[str, ...] = ("cwd", "dir", "directory", "workdir", "working_directory")
# Raw-input keys naming files by pattern (a search's): every brace alternative is checked as a path.
PATTERN_KEYS: tuple[str, ...] = ("pattern", "glob", "include")
# Kinds that may change files: none of them may name a `.git` at any depth.
GIT_GUARDED: frozenset[str] = frozenset({"edit", "delete", "move", "execute"})
# A request naming more paths than this (paths, command words, pattern alternatives, against each base) is refused:
# checking them costs the worker a real-path lookup each.
MAX_CHECKED_PATHS = 1024
# A pattern with braces longer than this is refused rather than expanded.
MAX_BRACE_PATTERN = 1024
# How long a request marked `ask` waits for a person by default (permissions.ask_timeout).
DEFAULT_ASK_TIMEOUT_S = 90.0
# A question still open this close to the end of its turn's activity is refused: the agent hears "no" rather than
# the turn timing out under it. A turn's timeout_s must exceed ask_timeout by at least this.
ASK_TURN_MARGIN_S = 15.0


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
    ask_timeout: float = Field(
        default=DEFAULT_ASK_TIMEOUT_S,
        gt=0,
        le=24 * 3600,
        description=(
            "Seconds a request a rule marks `ask` waits for a person (`office runs answer`) before it is refused. "
            "The wait counts inside the agent's turn: it must be shorter than each agent provider's timeout_s."
        ),
    )

    @field_validator("execute", mode="before")
    @classmethod
    def _execute(cls, value: object) -> object:
        return _execute_rule(value)

    def asks(self) -> bool:
        """Whether any kind waits for a person."""
        return any(self.rule(k) == "ask" for k in TOOL_KINDS)

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
    if not (isinstance(a, tuple) and isinstance(b, tuple)):
        raise InvariantBroken("every word rule (allow, ask, deny) is narrowed above; only prefix lists are left")
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
    ask: bool = False  # the policy says `ask`: a person decides (refused until one allows it)


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


def _git_component(path: str, workdir: str) -> bool:
    """Whether `path` (inside `workdir`) names a `.git` at any depth: the working copy's own or a nested one."""
    root = posixpath.normpath(workdir)
    rel = posixpath.relpath(posixpath.normpath(posixpath.join(root, path)), root)
    return any(part.casefold() == ".git" for part in rel.split("/"))


def command_text(command: str | Sequence[str] | None) -> str | None:
    """A command as one line. Codex-style argv lists that wrap a script in `bash -lc` yield the script."""
    if command is None or isinstance(command, str):
        return command
    argv = list(command)
    if len(argv) == 3 and posixpath.basename(argv[0]) in ("sh", "bash", "zsh", "dash") and argv[1] in ("-c", "-lc"):
        return argv[2]
    return shlex.join(argv)


_PATHISH_SPLIT = re.compile(r"[\s;&|()<>`'\"=,:{}]+")
_PIECE_SPLIT = re.compile(r"[=,:{}]+")  # `--rootdir=/`, `a:b` search paths, `{a,b}` alternatives


def _pathish(token: str) -> bool:
    return token.startswith(("/", "~")) or ".." in token.split("/")


def command_words(text: str) -> tuple[str, ...]:
    """Every word of a command that could name a file: the shell's words (quotes removed) and the raw text's
    tokens, each also split at `=`, `,`, `:` and braces, and a short option's glued value (`-c/etc/x.ini`).
    Over-inclusive on purpose: each is checked as a path."""
    try:
        words = shlex.split(text)
    except ValueError:
        words = []
    pieces: dict[str, None] = {}
    for word in (*words, *_PATHISH_SPLIT.split(text)):
        glued = (word[2:],) if len(word) > 2 and word[0] == "-" and word[1] != "-" else ()
        for piece in (word, *glued, *_PIECE_SPLIT.split(word)):
            if piece:
                pieces[piece] = None
    return tuple(pieces)


def _brace_group(text: str) -> tuple[int, int, list[str]] | None:
    """The first `{a,b,…}` of `text` that expands (a top-level comma inside): its bounds and alternatives."""
    for start, ch in enumerate(text):
        if ch != "{":
            continue
        depth = 0
        commas: list[int] = []
        for i in range(start, len(text)):
            c = text[i]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    if commas:
                        cuts = [start, *commas, i]
                        return start, i, [text[a + 1 : b] for a, b in itertools.pairwise(cuts)]
                    break
            elif c == "," and depth == 1:
                commas.append(i)
    return None


def expand_braces(pattern: str, limit: int = MAX_CHECKED_PATHS) -> tuple[str, ...] | None:
    """The alternatives of a brace pattern, nested, as shells and glob libraries expand them (`src/*.{ts,tsx}` →
    `src/*.ts`, `src/*.tsx`; `{.,}./x` → `../x`, `./x`); None when there are more than `limit` or the pattern is too
    long to expand."""
    if "{" not in pattern:
        return (pattern,)
    if len(pattern) > MAX_BRACE_PATTERN:
        return None
    done: dict[str, None] = {}
    todo = [pattern]
    while todo:
        text = todo.pop()
        group = _brace_group(text)
        if group is None:
            done[text] = None
        else:
            start, end, alternatives = group
            todo += [text[:start] + alt + text[end + 1 :] for alt in reversed(alternatives)]
        if len(done) + len(todo) > limit:
            return None
    return tuple(done)


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


@dataclass(frozen=True)
class _Named:
    """Everything a request names that must stay inside the working copy."""

    paths: tuple[str, ...] = ()  # file paths, directories and pattern alternatives
    words: tuple[str, ...] = ()  # the command's words
    problem: str | None = None  # why it cannot be checked at all


def _named(paths: Sequence[str], command: str | None, dirs: Sequence[str], patterns: Sequence[str]) -> _Named:
    named = dict.fromkeys([*paths, *dirs])
    for pattern in patterns:
        alternatives = expand_braces(pattern)
        if alternatives is None:
            return _Named(problem=f"the pattern {pattern[:80]!r} has too many brace alternatives to check")
        named.update(dict.fromkeys(alternatives))
    words = command_words(command) if command is not None else ()
    return _Named(paths=tuple(p for p in named if p), words=words)


def _resolve_keys(named: _Named, workdir: str) -> tuple[str, ...]:
    """What the worker resolves: each path against the working copy, each command word against the working copy
    and against every path the request names (a command's cwd; a search's base). Joined, never normalised: the
    kernel follows `link/..` from the link's target, so `..` must be resolved after the symlinks, by realpath."""
    root = posixpath.normpath(workdir)
    keys = dict.fromkeys(posixpath.join(root, p) for p in named.paths if _checkable(p))
    bases = [root, *(posixpath.join(root, p) for p in named.paths if _checkable(p))]
    for word in named.words:
        if _checkable(word):
            keys.update(dict.fromkeys(posixpath.join(base, word) for base in bases))
    return tuple(keys)


def _checkable(path: str) -> bool:
    return not path.startswith("~") and "\x00" not in path  # refused lexically; nothing for the worker to resolve


def to_resolve(request: "PermissionRequest", workdir: str) -> tuple[str, ...]:
    """The absolute paths whose real paths `decide_permission` needs (`real`): the worker resolves each with
    os.path.realpath. More than MAX_CHECKED_PATHS are refused without resolving any."""
    if _absolute_dir(workdir) is None:
        return ()
    named = _named(request.paths, request.command, request.dirs, request.patterns)
    return () if named.problem else _resolve_keys(named, workdir)


GIT_REFUSAL = "the working copy's .git (and any nested .git) belongs to the office, not the agent"


def _refused(k: ToolKind, why: str) -> PermissionVerdict:
    return PermissionVerdict(allowed=False, kind=k, reason=f"refused: {why}")


def _lexical_refusal(k: ToolKind, setting: str, named: _Named, workdir: str) -> str | None:
    """Why the request, read as text, reaches outside the working copy or into its .git (None: it does not)."""
    if named.problem:
        return named.problem
    outside = [p for p in named.paths if not inside(p, workdir)]
    if outside:
        return f"{outside[0]} is outside the working copy (whatever {setting} says)"
    stray = [w for w in named.words if _pathish(w) and not inside(w, workdir)]
    if stray:
        return f"the command touches {stray[0]}, outside the working copy"
    if k in GIT_GUARDED and any(_git_component(p, workdir) for p in (*named.paths, *named.words)):
        return GIT_REFUSAL
    return None


def _real_refusal(k: ToolKind, keys: Sequence[str], real: Mapping[str, str], real_workdir: str) -> str | None:
    """Why the worker's real paths (symbolic links followed) lead outside the working copy or into its .git."""
    real_root = _absolute_dir(real_workdir)
    if real_root is None:
        return f"the working copy's real path {real_workdir!r} is not known"
    for key in keys:
        resolved = real.get(key)
        if resolved is None or not resolved.startswith("/"):
            return f"{key} was not resolved on the worker"
        if not inside(resolved, real_root):
            return f"{key} leads outside the working copy (through a symbolic link)"
        if k in GIT_GUARDED and _git_component(resolved, real_root):
            return GIT_REFUSAL
    return None


def _by_policy(
    policy: PermissionPolicy, k: ToolKind, setting: str, has_paths: bool, text: str | None
) -> PermissionVerdict:
    """The policy's rule for the kind, once the request is known to stay inside the working copy."""
    rule = policy.rule(k)
    if rule == "deny":
        return PermissionVerdict(allowed=False, kind=k, reason=f"refused by {setting}: deny")
    if k in FILE_KINDS and not has_paths:
        return _refused(k, f"a {k} request without a path cannot be kept inside the working copy")
    if rule == "ask":
        return PermissionVerdict(allowed=False, ask=True, kind=k, reason=f"{setting} is 'ask': a person decides")
    if isinstance(rule, tuple):
        if not text:
            return _refused(k, f"no command given to match {setting} against")
        ok, why = _command_allowed(rule, text)
        verdict = "allowed" if ok else "refused"
        return PermissionVerdict(allowed=ok, kind=k, reason=f"{verdict} by {setting}: {why}")
    return PermissionVerdict(allowed=True, kind=k, reason=f"allowed by {setting}: allow")


def decide_permission(
    policy: PermissionPolicy,
    kind: str | None,
    paths: Sequence[str] = (),
    command: str | Sequence[str] | None = None,
    workdir: str = "",
    *,
    dirs: Sequence[str] = (),
    patterns: Sequence[str] = (),
    real: Mapping[str, str] | None = None,
    real_workdir: str | None = None,
) -> PermissionVerdict:
    """Whether the run lets the agent go ahead with one tool call, and why (`ask`: a person decides).

    `dirs` are directories the tool runs in (also checked as paths), `patterns` a search's file patterns. `real`
    maps each path `to_resolve` lists to its real path, resolved by the worker; the real paths must then lie in
    `real_workdir` (the working copy's real path). Without `real` only the lexical checks apply."""
    k: ToolKind = "execute" if command is not None else tool_kind(kind)  # a command is an execution, whatever kind
    setting = f"permissions.{k}"
    if _absolute_dir(workdir) is None:
        return _refused(k, f"the working copy {workdir!r} is not known")
    text = command_text(command)
    named = _named(paths, text, dirs, patterns)
    why = _lexical_refusal(k, setting, named, workdir)
    if why is not None:
        return _refused(k, why)
    keys = _resolve_keys(named, workdir)
    if len(keys) > MAX_CHECKED_PATHS:
        return _refused(k, f"the request names more than {MAX_CHECKED_PATHS} paths to check")
    if real is not None:
        why = _real_refusal(k, keys, real, real_workdir or workdir)
        if why is not None:
            return _refused(k, why)
    return _by_policy(policy, k, setting, bool(paths), text)


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

_PATH_KEYS = ("file_path", "path", "paths", "notebook_path", "old_path", "new_path", "source", "destination")


class PermissionRequest(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: ToolKind
    paths: tuple[str, ...] = ()  # every path it names, its directories included
    command: str | None = None
    dirs: tuple[str, ...] = ()  # the directories it runs in (a command's cwd)
    patterns: tuple[str, ...] = ()  # a search's pattern, glob and include


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, list | tuple):
        return [v for v in value if isinstance(v, str) and v]
    return []


def _command(raw_input: Mapping[str, Any]) -> str | None:
    """The command a tool call carries, under any of COMMAND_KEYS. Several different ones are judged together
    (joined by a newline, itself a metacharacter); a shape that is no command line is judged as its text."""
    found: dict[str, None] = {}
    for key in COMMAND_KEYS:
        value = raw_input.get(key)
        if value is None:
            continue
        if isinstance(value, str):
            found[value] = None
        elif isinstance(value, list) and all(isinstance(w, str) for w in value):
            found[command_text(value) or ""] = None
        else:
            found[repr(value)] = None  # brackets and braces: never a listed command
    return "\n".join(found) if found else None


def read_tool_call(kind: str | None, raw_input: object = None, locations: Sequence[str] = ()) -> PermissionRequest:
    """The kind, paths and command of a tool call as agents send them (ACP `locations` plus the usual
    raw-input keys: Claude Code's `file_path`/`command`, Codex's argv `command` and `cwd`, Gemini's `directory`
    and `include`, …). A tool call with a command is an `execute`, whatever kind it claims."""
    paths = [p for p in locations if p]
    command: str | None = None
    dirs: list[str] = []
    patterns: list[str] = []
    if isinstance(raw_input, Mapping):
        for key in _PATH_KEYS:
            paths += _strings(raw_input.get(key))
        for key in DIR_KEYS:
            dirs += _strings(raw_input.get(key))
        for key in PATTERN_KEYS:
            patterns += _strings(raw_input.get(key))
        command = _command(raw_input)
    return PermissionRequest(
        kind="execute" if command is not None else tool_kind(kind),
        paths=tuple(dict.fromkeys([*paths, *dirs])),
        command=command,
        dirs=tuple(dict.fromkeys(dirs)),
        patterns=tuple(dict.fromkeys(patterns)),
    )


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
