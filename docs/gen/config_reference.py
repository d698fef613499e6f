"""The configuration reference, generated from the pydantic models a workspace file and an agent profile are
validated with (`routing.config`). Every key the models accept is listed with its type, default and constraints,
the description below (or the field's own docstring), and an example that is checked against the model.

A key without a description here or in its model is an error: `make docs` stops, naming the key, so the manual
cannot fall behind the models. A description here for a key the models no longer have is an error too.
"""

import enum
import json
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import annotated_types
import yaml
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from routing.config import AgentProfile, WorkspaceConfig

# Placeholder segments of a dotted key: a map's key, or an item of a list.
SAMPLE_NAMES = {"providers": "claude", "tiers": "premium", "prices": "our-model"}


@dataclass(frozen=True)
class Doc:
    """What the models cannot say about a key: what it does and an example value."""

    text: str
    example: Any


# Keys are dotted paths as a file spells them: `<name>` stands for a map's key, `[]` for an item of a list.
WORKSPACE_KEYS: dict[str, Doc] = {
    "name": Doc("The workspace's name: `office submit --workspace NAME` runs in it.", "team"),
    "provider_order": Doc(
        "The providers a run may use, in order: the first eligible one starts the run, and after a failure the "
        "scheduler may re-dispatch down this order (the user's consent to fall back). A plain name is short for "
        "`{provider: NAME}`.",
        ["claude", "openai"],
    ),
    "provider_order[].provider": Doc("A provider name: a key of `providers`.", "claude"),
    "provider_order[].emergency": Doc("Used only when no normal candidate is eligible for a run.", True),
    "default_tier": Doc(
        "The tier a run uses when `office submit --tier` is not given; a provider's `tiers` entry of that name "
        "overrides its model.",
        "standard",
    ),
    "providers": Doc(
        "One execution profile per provider named in `provider_order` (and no other): how to reach it.",
        {"openai": {"base_url": "https://api.openai.com/v1", "credential_env": "OPENAI_API_KEY"}},
    ),
    "max_attempts": Doc(
        "Failed attempts a run may make in all (short retries and fallbacks); a lost worker or a capacity wait is "
        "not counted. At the cap the run fails with the last error's message.",
        8,
    ),
    # The ceilings' descriptions are their fields' own (routing.config).
    "max_concurrent_runs": Doc("", 4),
    "repository": Doc(
        "Runs that change a repository: each run works on its own branch `office/<run-id>` created from "
        "`base_ref`, committed and pushed after every completed turn. See "
        "[Runs that change a repository](../concepts.md#runs-that-change-a-repository).",
        {"url": "https://git.example.com/team/app.git", "base_ref": "main", "push_credential_env": "GIT_PUSH_TOKEN"},
    ),
    "repository.url": Doc("", "https://git.example.com/team/app.git"),
    "repository.base_ref": Doc("The branch, tag or commit each run's branch starts from.", "main"),
    "repository.push_credential_env": Doc("", "GIT_PUSH_TOKEN"),
    "repository.max_file_bytes": Doc("", 104857600),
    "repository.max_checkout_bytes": Doc("", 2147483648),
    "permissions": Doc(
        "What an agent may do without asking, per ACP tool kind: `allow`, `deny` or `ask` (a person answers with "
        "`office runs answer`; refused when nobody does within `ask_timeout`). A profile's `permissions` can only "
        "narrow it. See "
        "[Permissions](../concepts.md#permissions).",
        {"read": "allow", "edit": "allow", "execute": ["pytest", "npm test"], "fetch": "deny"},
    ),
    "permissions.read": Doc("Reading files inside the working copy.", "allow"),
    "permissions.edit": Doc("Writing files inside the working copy.", "allow"),
    "permissions.delete": Doc("Deleting files inside the working copy.", "deny"),
    "permissions.move": Doc("Moving or renaming files inside the working copy.", "deny"),
    "permissions.search": Doc("Searching the working copy (patterns are checked as paths).", "allow"),
    "permissions.execute": Doc(
        "Running commands: `allow` (a shell: arbitrary code inside the sandbox), `deny`, `ask`, or a list of "
        "command prefixes; a command allowed by a prefix may hold no shell metacharacter, brace, glob or tilde.",
        ["pytest", "npm test"],
    ),
    "permissions.think": Doc("The agent's planning steps.", "allow"),
    "permissions.fetch": Doc(
        "Fetching URLs through the agent's tool (the sandbox still admits only its allowed hosts).", "deny"
    ),
    "permissions.switch_mode": Doc("The agent switching its own mode (e.g. to one that asks less).", "deny"),
    "permissions.other": Doc("Any request of another or no kind.", "deny"),
    "permissions.ask_timeout": Doc(
        "Seconds a request a rule marks `ask` waits for a person (`office runs answer RUN --allow|--deny`) before "
        "it is refused. The wait counts inside the agent's turn, so each agent provider's `timeout_s` must exceed "
        "it by at least 15 s (checked when the workspace is saved); a question still open 15 s before its turn "
        "times out is refused then.",
        300,
    ),
    "sandbox": Doc(
        "Where ACP agents run: a bubblewrap sandbox holding the working copy, the agent's installation, a home of "
        "its own and the network path to its provider. `sandbox: none` turns it off for the workspace (a warning "
        "on every run). See [The agent's sandbox](../security.md#the-agents-sandbox).",
        {"network": ["registry.npmjs.org"], "read_only": ["/opt/toolchain"]},
    ),
    "sandbox.mode": Doc(
        "`bubblewrap`, or `none` to run agents unconfined (`sandbox: none` is short for it).", "bubblewrap"
    ),
    "sandbox.network": Doc(
        "Hosts (`host` or `host:port`, `*.` for subdomains) every agent may reach besides its provider, through "
        "the sandbox's proxy.",
        ["registry.npmjs.org", "*.pypi.org", "pypi.org"],
    ),
    "sandbox.read_only": Doc(
        "Absolute paths every agent may read besides its working copy and installation.", ["/opt/toolchain"]
    ),
    # The idle timeout's and the history bound's descriptions are their fields' own (routing.config,
    # routing.conversation).
    "idle_timeout": Doc(
        "See [Talking to a run](../concepts.md#talking-to-a-run-and-conversations-of-any-length).", 600
    ),
    "unreadable_failure_wait": Doc(
        "Seconds a run whose failure no rule could read waits, parked as `unreadable_failure`, for a person's "
        "`office runs decide` before it fails; 0 fails it at once. See [Classification and decisions]"
        "(../concepts.md#classification-and-decisions).",
        3600,
    ),
    "history_bound": Doc(
        "See [Continue-as-new](../concepts.md#talking-to-a-run-and-conversations-of-any-length).",
        {"max_events": 10000, "max_bytes": 8388608},
    ),
    "history_bound.max_events": Doc("", 10000),
    "history_bound.max_bytes": Doc("", 8388608),
    "history_bound.turn_events": Doc("", 500),
    "history_bound.turn_bytes": Doc("", 2097152),
    # The prices' descriptions are their fields' own (routing.config, routing.usage).
    "prices": Doc("", {"llama-3.3-70b": {"input_per_million": 0, "output_per_million": 0}}),
    "prices.<name>.input_per_million": Doc("", 2.5),
    "prices.<name>.output_per_million": Doc("", 10.0),
    "prices.<name>.cache_read_per_million": Doc("", 0.25),
    "prices.<name>.cache_write_per_million": Doc("", 3.125),
    "notify": Doc(
        "Webhooks told about runs' events, each signed as a Standard Webhook with the secret its `secret_env` "
        "names; delivered and retried by Temporal, never delaying or failing a run. See "
        "[Notifications](../operations.md#notifications).",
        [
            {
                "url": "https://hooks.example.com/office",
                "events": ["completed", "failed", "parked"],
                "secret_env": "OFFICE_CRED_WEBHOOK_SECRET",
            }
        ],
    ),
    # The endpoints' descriptions are their fields' own (routing.notify).
    "notify[].url": Doc("", "https://hooks.example.com/office"),
    "notify[].events": Doc("", ["failed", "parked"]),
    "notify[].secret_env": Doc("", "OFFICE_CRED_WEBHOOK_SECRET"),
    "notify[].name": Doc("", "team-pager"),
    "notify[].include_prompt": Doc("", False),
    "notify[].max_attempts": Doc("", 12),
    "notify[].first_retry_s": Doc("", 5.0),
    # The budgets' descriptions are their fields' own (routing.config, routing.budget).
    "budgets": Doc("", {"daily_usd": 20, "monthly_usd": 300, "run_max_cost_usd": 2}),
    "budgets.daily_usd": Doc("", 20),
    "budgets.monthly_usd": Doc("", 300),
    "budgets.run_max_cost_usd": Doc("", 2.5),
    "budgets.run_max_tokens": Doc("", 500000),
}

PROVIDER = "providers.<name>"
PROVIDER_KEYS: dict[str, Doc] = {
    "max_concurrent_sessions": Doc("", 5),
    "kind": Doc(
        "`openai`: an OpenAI-compatible chat endpoint called over HTTP; `acp`: a coding agent launched as a process "
        "and spoken to over the Agent Client Protocol.",
        "acp",
    ),
    "base_url": Doc(
        "The provider's endpoint (`http(s)://…`, no credentials in it). Required for `openai`; for an `acp` agent "
        "it is handed to the agent the way it reads it, or left out for the vendor's default.",
        "https://api.anthropic.com/v1",
    ),
    "command": Doc(
        "`acp` only, required there: the agent's command line, by the absolute path of the operator's "
        "installation (package runners such as `npx` and paths inside the working copy are refused).",
        ["/opt/office-agents/node_modules/.bin/claude-agent-acp"],
    ),
    "adapter": Doc(
        "`acp` only: how to launch the agent against `base_url` and the credential. Unset, it is recognised from "
        "the command. See [Agents](../agents.md).",
        "claude-code",
    ),
    "env": Doc(
        "Plain settings for the agent process. Names that look secret (`*_KEY`, `*_TOKEN`, …) and values that "
        "look like a credential are refused. The profile's `env` wins over what the adapter sets.",
        {"CLAUDE_CODE_MAX_OUTPUT_TOKENS": "16000"},
    ),
    "credential_env": Doc(
        "The NAME of an environment variable on the worker holding the provider's key, never the key. It must be "
        "admitted by the worker's `OFFICE_CREDENTIAL_ENV_ALLOW`.",
        "ANTHROPIC_API_KEY",
    ),
    "default_model": Doc(
        "The model the provider uses when the profile's model is not advertised and no fallback applies (as the "
        "provider reports it).",
        "claude-sonnet-4-5",
    ),
    "requests_per_minute": Doc(
        "A declared quota: the provider gets its own task queue dispatched at this rate across all workers, and a "
        "shared pacer spaces its calls. Unset, the rate is learned from the provider's answers.",
        500,
    ),
    "timeout_s": Doc("How long one call or turn may take before it fails `timeout`.", 300),
    "heartbeat_timeout_s": Doc(
        "How soon a lost worker is noticed: a turn that stops heartbeating this long is `worker_lost` and runs "
        "again on a live worker.",
        30,
    ),
    "tiers": Doc(
        "Per tier, a model that overrides the agent profile's on this provider.",
        {"premium": {"model": "claude-opus-4-1"}},
    ),
    "tiers.<tier>.model": Doc("The model runs of this tier use on this provider.", "claude-opus-4-1"),
    "permissions": Doc(
        "Narrows the workspace's `permissions` for this agent (never widens them).", {"execute": "deny"}
    ),
    "sandbox": Doc(
        "`acp` only: narrows the sandbox's network for this agent and names paths its command needs.", {"network": []}
    ),
    "sandbox.network": Doc(
        "Only these of the hosts the workspace's `sandbox.network` allows; `[]` for the provider only. Unset: all "
        "the workspace allows.",
        [],
    ),
    "sandbox.read_only": Doc(
        "Absolute paths this agent may read besides its working copy and installation.", ["/opt/claude-plugins"]
    ),
    "sandbox.read_write": Doc(
        "Absolute paths this agent may write besides its working copy (each one is a hole in the sandbox).",
        ["/var/log/agent"],
    ),
}
for _kind in ("read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"):
    PROVIDER_KEYS[f"permissions.{_kind}"] = Doc(
        f"Narrows the workspace's `permissions.{_kind}` for this agent; unset, the workspace's rule applies.",
        ["pytest"] if _kind == "execute" else "deny",
    )
WORKSPACE_KEYS.update({f"{PROVIDER}.{key}": doc for key, doc in PROVIDER_KEYS.items()})

PROFILE_KEYS: dict[str, Doc] = {
    "name": Doc("The profile's name: `office submit --agent NAME`.", "coder"),
    "model": Doc(
        "The start model. It is selected only when the executor advertises it; otherwise `fallback_model` (when "
        "advertised) or the executor's default runs, and one `model_selection_warning` records the difference. "
        "See [the start-model policy](../concepts.md#the-start-model-policy).",
        "claude-sonnet-4-5",
    ),
    "fallback_model": Doc(
        "At session start only: the model selected when `model` is not advertised (ignored with `auto_fallback`). "
        "Claude Code also gets it as its own fallback model.",
        "claude-haiku-4-5",
    ),
    "auto_fallback": Doc(
        "At session start only: leave the model to the executor whenever the start model cannot be used, also "
        "when selecting an advertised model fails (which otherwise fails the session start); `fallback_model` is "
        "then not used.",
        True,
    ),
    "pinned_providers": Doc(
        "A durable pin: runs of this agent use only these providers and never fall back outside them; a failed "
        "pinned route waits for `office runs decide`.",
        ["claude"],
    ),
    "max_concurrent_sessions": Doc("", 2),
}


@dataclass(frozen=True)
class Key:
    path: str
    field: FieldInfo
    doc: Doc


def _inner_model(annotation: Any) -> tuple[type[BaseModel] | None, str]:
    """The model a field holds, and how: '' (itself), '[]' (a list of it), '<name>' (a map of it)."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    origin = typing.get_origin(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation, ""
    if origin in (typing.Union, types.UnionType) and len(args) == 1:
        return _inner_model(args[0])
    if origin is list and args and isinstance(args[0], type) and issubclass(args[0], BaseModel):
        return args[0], "[]"
    if origin is dict and len(args) == 2 and isinstance(args[1], type) and issubclass(args[1], BaseModel):
        return args[1], "<name>"
    return None, ""


def keys_of(model: type[BaseModel], prefix: str = "") -> Iterator[tuple[str, FieldInfo]]:
    """Every key of a model, nested models included, as dotted paths (`providers.<name>.sandbox.network`)."""
    for name, info in model.model_fields.items():
        path = f"{prefix}{name}"
        yield path, info
        inner, how = _inner_model(info.annotation)
        if inner is not None:
            if how == "<name>":
                how = "<tier>" if name == "tiers" else "<name>"
                yield from keys_of(inner, f"{path}.{how}.")
            else:
                yield from keys_of(inner, f"{path}{how}.")


def _documented(model: type[BaseModel], docs: dict[str, Doc]) -> list[Key]:
    found = list(keys_of(model))
    missing = [path for path, info in found if path not in docs]
    stale = sorted(set(docs) - {path for path, _ in found})
    undescribed = [path for path, info in found if path in docs and not (docs[path].text or info.description)]
    problems = [f"{model.__name__}: no description for {', '.join(missing)}" if missing else ""]
    problems.append(f"{model.__name__}: described but not in the model: {', '.join(stale)}" if stale else "")
    problems.append(f"{model.__name__}: empty description for {', '.join(undescribed)}" if undescribed else "")
    if any(problems):
        raise ReferenceIncomplete(
            "; ".join(p for p in problems if p)
            + " (describe each key in docs/gen/config_reference.py or in its model's field docstring)"
        )
    return [Key(path, info, docs[path]) for path, info in found]


class ReferenceIncomplete(Exception):
    """The models and the reference's descriptions disagree: the message names the keys."""


def type_text(annotation: Any) -> str:
    """A field's type as a file's author reads it: `string`, `list of string`, `allow | deny | ask`, …"""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return type_text(args[0])
    if origin in (typing.Union, types.UnionType):
        shown = [type_text(a) for a in args if a is not type(None)]
        text = " or ".join(dict.fromkeys(shown))
        return f"{text} (optional)" if type(None) in args else text
    if origin is typing.Literal:
        return " | ".join(f"`{a}`" for a in args)
    if origin in (list, tuple):
        return f"list of {type_text(args[0])}"
    if origin is dict:
        return f"map of {type_text(args[0])} to {type_text(args[1])}"
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return " | ".join(f"`{m.value}`" for m in annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "object"
    names = {str: "string", int: "integer", float: "number", bool: "boolean"}
    return names.get(annotation, getattr(annotation, "__name__", str(annotation)))


def constraints_text(info: FieldInfo) -> str:
    parts: list[str] = []
    for item in [*info.metadata, *_annotated_metadata(info.annotation)]:
        for attr, sign in (("gt", ">"), ("ge", "≥"), ("lt", "<"), ("le", "≤")):
            if isinstance(item, getattr(annotated_types, attr.capitalize())):
                parts.append(f"{sign} {getattr(item, attr)}")
        if isinstance(item, annotated_types.MinLen):
            parts.append(f"at least {item.min_length} characters")
        if isinstance(item, annotated_types.MaxLen):
            parts.append(f"at most {item.max_length} characters")
        pattern = getattr(item, "pattern", None)
        if isinstance(pattern, str):
            parts.append(f"matches `{pattern}`")
    return ", ".join(parts)


def _annotated_metadata(annotation: Any) -> list[Any]:
    if typing.get_origin(annotation) is typing.Annotated:
        return list(typing.get_args(annotation)[1:])
    return []


def default_text(info: FieldInfo) -> str:
    if info.is_required():
        return "required"
    value = info.get_default(call_default_factory=True)
    if isinstance(value, BaseModel):
        return "see its keys"
    if isinstance(value, enum.Enum):
        value = value.value
    if value is None:
        return "unset"
    return f"`{json.dumps(value)}`"


def example_document(path: str, value: Any) -> Any:
    """The example as the nested document a file would hold: `providers.<name>.timeout_s` → providers: claude: …"""
    parts = path.split(".")
    document: Any = value
    for index in range(len(parts) - 1, -1, -1):
        part = parts[index]
        if part.startswith("<"):
            previous = parts[index - 1].removesuffix("[]")
            document = {SAMPLE_NAMES.get(previous, "name"): document}
        elif part.endswith("[]"):
            document = {part[:-2]: [document]}
        else:
            document = {part: document}
    return document


def example_yaml(path: str, value: Any) -> str:
    return yaml.safe_dump(example_document(path, value), sort_keys=False, default_flow_style=False, width=100).strip()


# What each example is merged into before it is validated: a workspace every example key fits.
BASE_WORKSPACE: dict[str, Any] = {
    "name": "team",
    "provider_order": [{"provider": "claude"}, {"provider": "openai"}],
    "providers": {
        "claude": {"kind": "acp", "command": ["/opt/office-agents/node_modules/.bin/claude-agent-acp"]},
        "openai": {"base_url": "https://api.openai.com/v1", "credential_env": "OPENAI_API_KEY"},
    },
    "repository": {"url": "https://git.example.com/team/app.git"},
    "prices": {"our-model": {"input_per_million": 1.0, "output_per_million": 2.0}},
    "notify": [{"url": "https://hooks.example.com/office", "events": ["failed"], "secret_env": "OFFICE_CRED_HOOK"}],
}
BASE_PROFILE: dict[str, Any] = {"name": "coder", "model": "claude-sonnet-4-5"}


def merged(base: Any, example: Any) -> Any:
    """`example` laid over `base`: maps key by key, a list of maps item by item, anything else replaced."""
    if isinstance(base, dict) and isinstance(example, dict):
        return {**base, **{k: merged(base[k], v) if k in base else v for k, v in example.items()}}
    if isinstance(base, list) and isinstance(example, list) and all(isinstance(i, dict) for i in example):
        return [merged(b, e) for b, e in zip(base, example, strict=False)] + base[len(example) :]
    return example


def check_example(model: type[BaseModel], base: dict[str, Any], key: Key) -> None:
    """The key's example, in a file otherwise valid, validates: a stale example stops the build."""
    document = merged(base, example_document(key.path, key.doc.example))
    try:
        model.model_validate(document)
    except ValueError as err:
        raise ReferenceIncomplete(f"the example for {key.path} does not validate: {err}") from err


def _key_section(key: Key) -> list[str]:
    description = key.doc.text or " ".join((key.field.description or "").split())
    rows = [
        f"### `{key.path}`",
        "",
        description,
        "",
        f"- **Type:** {type_text(key.field.annotation)}",
        f"- **Default:** {default_text(key.field)}",
    ]
    constraints = constraints_text(key.field)
    if constraints:
        rows.append(f"- **Constraints:** {constraints}")
    rows += ["", "```yaml", example_yaml(key.path, key.doc.example), "```", ""]
    return rows


SECTIONS = (
    ("Workspace", lambda path: "." not in path),
    ("Providers (execution profiles)", lambda path: path.startswith(PROVIDER)),
    ("Provider order", lambda path: path.startswith("provider_order[]")),
    ("Repository", lambda path: path.startswith("repository.")),
    ("Permissions", lambda path: path.startswith("permissions.")),
    ("Sandbox", lambda path: path.startswith("sandbox.")),
    ("Prices", lambda path: path.startswith("prices.")),
    ("Notifications", lambda path: path.startswith("notify[]")),
    ("Budgets", lambda path: path.startswith("budgets.")),
    ("History bound", lambda path: path.startswith("history_bound.")),
)


def workspace_keys() -> list[Key]:
    keys = _documented(WorkspaceConfig, WORKSPACE_KEYS)
    for key in keys:
        check_example(WorkspaceConfig, BASE_WORKSPACE, key)
    return keys


def profile_keys() -> list[Key]:
    keys = _documented(AgentProfile, PROFILE_KEYS)
    for key in keys:
        check_example(AgentProfile, BASE_PROFILE, key)
    return keys


INTRO = """# Configuration reference

<!-- Generated by docs/gen/config_reference.py from the pydantic models in routing/ at build time: edit the
descriptions there, not the built page. -->

A **workspace** file (`office workspace set --file FILE`, YAML or JSON) says which providers a team's runs may use,
in which order, how to reach each one, and what agents may do; an **agent profile** (`office profile set`) says
which model an agent starts with. Both are validated as a whole before anything is saved: a misspelt, unknown or
duplicate key, a YAML anchor or alias, a value that looks like a credential (`sk-…`, `ghp_…`, a JWT, a bearer
token, `user:password@` in a URL) or a credential variable the workers do not admit is refused with exit status 2
and one line naming the key. Settings are stored in plain text and appear in workflow histories: keys live in
environment variables on the workers, and the settings name those variables (`credential_env`,
`repository.push_credential_env`).

Every key below is generated from the models, with its type, its default and an example checked against the
model. `<name>` stands for a key you choose (a provider's name), `[]` for an item of a list.

A complete workspace with a real provider, a repository and a sandboxed Claude Code agent is in
[Getting started](../getting-started.md#your-own-workspace).
"""


def render() -> str:
    lines = [INTRO]
    keys = workspace_keys()
    for title, wanted in SECTIONS:
        lines += [f"## {title}", ""]
        for key in keys:
            if wanted(key.path) and not (title == "Workspace" and key.path.startswith(PROVIDER)):
                lines += _key_section(key)
    lines += [
        "## Agent profiles",
        "",
        "`office profile set NAME --model M [--fallback-model F] [--auto-fallback]`, or `--file` with these keys "
        "(flags override the file).",
        "",
    ]
    for key in profile_keys():
        lines += _key_section(key)
    lines += environment_section()
    return "\n".join(lines)


# Environment variables the product reads (besides Temporal's own, read through temporalio.envconfig).
ENVIRONMENT: dict[str, str] = {
    "OFFICE_DATABASE_URL": "The store: `postgresql://…` or `sqlite:///…` (default `sqlite:///.office-data/office.db`). "
    "CLI and workers.",
    "OFFICE_TASK_QUEUE": "The task queue runs and workers use (default `office-runs`).",
    "OFFICE_WORK_DIR": "A worker's repository mirrors and per-run working copies (default "
    "`$XDG_STATE_HOME/office/work` or `~/.local/state/office/work`, created 0700).",
    "OFFICE_CODEC_KEYS_FILE": "A file of `key-id=<base64 AES key>` lines: payloads are encrypted with the first, "
    "decrypted with any. CLI, workers and the codec server.",
    "OFFICE_CODEC_ACCEPT_PLAIN": "`1`: workers with keys still accept plain payloads (runs started before "
    "encryption was switched on).",
    "OFFICE_CODEC_TOKEN": "The bearer token the codec server requires.",
    "OFFICE_CREDENTIAL_ENV_ALLOW": "The credential variables profiles may name: comma-separated names, `PREFIX*` "
    "for a prefix. Unset: the names the adapters and examples use. `OFFICE_CRED_*` is always admitted; other "
    "`OFFICE_*` and `TEMPORAL_*` names never are.",
    "OFFICE_CRED_": "Prefix for a team's own credential variables: always admitted by the allow-list.",
    "OFFICE_DEV_MODE": "`1`: a development worker; accepts a repository on its own disk and webhooks on its own "
    "machine and networks (`office dev` and the tests set it). Never on production workers.",
    "OFFICE_UI_URL": "The Temporal UI's address, for the run links in notifications (default "
    "`http://127.0.0.1:8233`). Workers.",
    "OFFICE_NOTIFY_ALLOW_PRIVATE": "`1`: workers post webhooks to loopback and private addresses too (an endpoint "
    "inside the team's network). Link-local and cloud metadata addresses are refused regardless.",
    "OFFICE_MAX_CONCURRENT_ACTIVITIES": "Turns in progress per worker process (default 2000).",
    "OFFICE_MAX_CACHED_WORKFLOWS": "Runs kept in memory between their tasks per worker process (default 2000).",
    "OFFICE_MAX_LIVE_AGENTS": "Live ACP agent processes per worker process (default: from the machine's or "
    "container's memory; logged at start).",
    "OFFICE_MAX_CONCURRENT_WORKFLOW_TASKS": "Workflow tasks a worker process works on at once (default 8). "
    "Lower keeps a burst's backlog on the server, where priority and fairness order it.",
    "OFFICE_GATE_CHECK_S": "While runs wait behind a full ceiling, how often its gate asks whether its holders "
    "still run (seconds, default 30; a gate takes it when it first starts).",
    "OFFICE_DB_POOL_SIZE": "Store connections kept per process (default 20; up to 1.5× in a burst).",
    "OFFICE_WORKFLOW_SANDBOX": "`1`: run workflow code inside the Temporal SDK's sandbox (default off).",
    "OFFICE_OTEL_EXPORTER": "`console`, `otlp` or `none`; OTLP over HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` is set.",
    "OFFICE_SIMULATOR_URL": "Printed by `office dev`: where the provider simulator listens.",
    "OFFICE_AGENT_GUARD": "Internal: set by the worker on every process of an agent's tree. Do not set.",
    "OFFICE_AGENT_OWNER": "Internal: marks an agent with its worker. Do not set.",
    "OFFICE_GIT_HOST": "Internal: the host the worker's git credential helper answers for. Do not set.",
    "OFFICE_GIT_TOKEN": "Internal: the push token, in the environment of the worker's git fetch and push only. "
    "Do not set.",
}


def environment_section() -> list[str]:
    rows = [
        "## Environment variables",
        "",
        "The CLI and the workers also read Temporal's standard environment configuration (`TEMPORAL_ADDRESS`, "
        "`TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`, TLS and profile files, through `temporalio.envconfig`).",
        "",
        "| variable | meaning |",
        "|---|---|",
    ]
    rows += [f"| `{name}` | {text} |" for name, text in ENVIRONMENT.items()]
    return [*rows, ""]
