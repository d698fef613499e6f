"""Agent adapters: one declarative entry per known ACP agent saying how to launch it against a provider.

Each adapter names where the provider's base URL and the resolved credential go, the settings that switch the
agent's own retries off (the routing decider's short retries are the only ones: provider activities run once),
what it needs to start headless, and how
it relays provider failures. A profile names its adapter (`adapter: claude-code`) or it is recognised from the
command; the profile's own `env` wins wherever it sets the same name.

The repository is untrusted (docs/security.md: nothing in a repository decides what program starts or which settings an
agent loads). Each adapter also says which repository files its agent reads as configuration and how that is
switched off (`repository_config`); instructions (AGENTS.md, CLAUDE.md, GEMINI.md) are text the model reads and
may stay. What an adapter cannot switch off is listed in `repository_config_always`: a working copy holding one
of those paths is refused before the agent starts (`refused_repository_config`).
"""

import json
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from routing.classifier import FailureSignal


@dataclass(frozen=True)
class AgentAdapter:
    name: str
    recognise: tuple[str, ...]  # substrings of the command that identify the agent
    settings: dict[str, str] = field(default_factory=dict)  # headless, retries off, no update checks or telemetry
    base_url_env: str | None = None  # the variable the agent reads its provider's base URL from
    base_url_without_v1: bool = False  # the agent appends /v1 (/v1beta) itself; the profile's base_url may end in it
    credential_env: str | None = None  # the variable the agent reads its key from
    model_env: str | None = None  # the variable the agent reads its start model from
    # Extra command-line arguments, given (base_url, credential variable name): Codex's provider definition.
    args: Callable[[str | None, str | None], list[str]] | None = None
    # How provider failures arrive: a relayed "API Error: <status> <body>" is read back into status and body.
    relays_http_errors: bool = False
    # The hosts the agent reaches when the profile names no base URL (its vendor's API): the sandbox's network
    # allows these, and nothing else, through its proxy (see activities/executors/sandbox.py).
    default_hosts: tuple[str, ...] = ()
    # Settings made fresh for every launch from the base URL (OpenCode's inline configuration, a per-launch secret).
    launch_settings: Callable[[str | None], dict[str, str]] | None = None
    # The repository files the agent reads as configuration, and how each is switched off (documentation).
    repository_config: str = ""
    # Paths at the working copy's root the agent loads as configuration whatever it is told: refused.
    repository_config_always: tuple[str, ...] = ()
    # Files of the office's own the agent reads (its settings): given to its sandbox read-only, at the same path.
    read_only_files: tuple[str, ...] = ()
    # Files put in a sandboxed session's own home before the agent starts (path under the home, content).
    home_files: tuple[tuple[str, str], ...] = ()
    # The line (its start) the office's own plugin writes on stderr when it stopped one of the agent's own retries,
    # followed by {"message": what the provider said}: the turn failed with that, whatever the agent answers.
    retry_stopped_marker: str | None = None
    # Words the bridge takes, anywhere in a finished turn's final text, for its "not logged in" notice (and answers
    # authRequired in place of the turn): model text that holds them is still the model's answer.
    login_words: str | None = None
    note: str = ""

    def environment(self, base_url: str | None) -> dict[str, str]:
        env = dict(self.settings)
        if self.base_url_env and base_url:
            url = base_url.rstrip("/")
            env[self.base_url_env] = re.sub(r"/v1(beta)?$", "", url) if self.base_url_without_v1 else url
        if self.launch_settings is not None:
            env.update(self.launch_settings(base_url))
        return env


def _codex_args(base_url: str | None, credential_env: str | None) -> list[str]:
    """Codex takes `-c key=value` overrides (TOML values). Its Rust core speaks only the Responses API
    (`wire_api = "chat"` is rejected since 2025), so the provider is declared with wire_api "responses", the
    key read from the credential variable by name, and its request and stream retries off."""
    if not base_url and not credential_env:
        return []  # Codex's own login and provider
    provider = {
        "name": '"office"',
        "base_url": f'"{(base_url or "https://api.openai.com/v1").rstrip("/")}"',
        "wire_api": '"responses"',
        "request_max_retries": "0",
        "stream_max_retries": "0",
        "supports_websockets": "false",
    }
    if credential_env:
        provider["env_key"] = f'"{credential_env}"'
    args = ["-c", 'model_provider="office"']
    for key, value in provider.items():
        args += ["-c", f"model_providers.office.{key}={value}"]
    return args


CODEX_REPOSITORY_CONFIG = (
    "Codex reads the project's .codex/ (config.toml: model provider, mcp_servers, sandbox and approval policy; "
    "rules/, hooks) from the working copy up to the git root only for a project its CODEX_HOME/config.toml marks "
    "trusted (codex-core config loader: '… is marked as untrusted in … To load …, mark it trusted.'); "
    "AGENTS.md and .agents/skills/*/SKILL.md are instructions. CODEX_HOME is the launch's own ~/.codex (a "
    "per-run home trusts nothing), and codex-acp marks a project trusted only when the client switches the session "
    "to mode auto or full-access (src/thread.rs mode_trusts_project → set_project_trust_level), which the office "
    "never does (it selects models only; switch_mode is refused by the permission policy)."
)


OPENCODE_NO_OWN_RETRIES = str(Path(__file__).with_name("agent_settings") / "opencode-no-own-retries.js")


def _opencode_settings(base_url: str | None) -> dict[str, str]:
    """OpenCode's configuration, inline (OPENCODE_CONFIG_CONTENT, merged last): its built-in OpenAI provider
    (Responses API, key from OPENAI_API_KEY) pointed at the base URL, nothing else enabled; no title-generation
    call (a second model call per session the office would not count), no session sharing, snapshots, formatters or
    language servers (they run the project's tools); every edit, command, fetch and path outside the working copy
    asked of the client, so the run's permission policy answers. And a password for the HTTP API `opencode acp`
    serves on 127.0.0.1:4096 (or another port), which is open to every local process without one."""
    config: dict[str, object] = {
        "$schema": "https://opencode.ai/config.json",
        "share": "disabled",
        "autoupdate": False,
        "snapshot": False,
        "formatter": False,
        "lsp": False,
        "agent": {"title": {"disable": True}},
        "permission": {kind: "ask" for kind in ("edit", "bash", "webfetch", "websearch", "external_directory")},
        "plugin": [Path(OPENCODE_NO_OWN_RETRIES).as_uri()],  # its own retries stopped at the first (the file says how)
    }
    if base_url:
        config["provider"] = {"openai": {"options": {"baseURL": base_url.rstrip("/")}}}
        config["enabled_providers"] = ["openai"]
    return {"OPENCODE_CONFIG_CONTENT": json.dumps(config), "OPENCODE_SERVER_PASSWORD": secrets.token_urlsafe(24)}


CLAUDE_CODE = AgentAdapter(
    name="claude-code",
    recognise=("claude-code-acp", "claude-agent-acp"),
    settings={
        "CLAUDE_CODE_MAX_RETRIES": "0",  # default 10: its own retries would multiply the decider's
        # claude-agent-acp 0.23 runs as root without it, but then throws at session/new on a repository whose
        # .claude/settings.json says defaultMode bypassPermissions; with it the session starts and is reset to mode
        # default right after (activities/acp_session.py), and no bypass option is ever chosen (once options only).
        "IS_SANDBOX": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",  # no telemetry, error reporting or update checks
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
    },
    base_url_env="ANTHROPIC_BASE_URL",
    base_url_without_v1=True,
    credential_env="ANTHROPIC_API_KEY",
    model_env="ANTHROPIC_MODEL",
    relays_http_errors=True,
    default_hosts=("api.anthropic.com",),
    login_words="Please run /login",  # claude-agent-acp dist/acp-agent.js: result.includes("Please run /login")
    repository_config=(
        "Claude Code (the CLI under the bridge) reads .claude/settings.json and .claude/settings.local.json "
        "(hooks, permissions.allow, env, apiKeyHelper, MCP approval), CLAUDE.md, .claude/{commands,agents,skills} "
        "and .mcp.json as the project's settings. session/new's _meta.claudeCode.options sets settingSources [] "
        "(the bridge's default is user, project, local: claude-agent-acp dist/acp-agent.js createSession) and "
        "strictMcpConfig (only the client's MCP servers), and env CLAUDE_CONFIG_DIR a directory of the session's "
        "own (activities/acp_session.py claude_meta). The bridge itself still reads permissions.defaultMode and "
        "model from <cwd>/.claude/settings{,.local}.json (dist/settings.js SettingsManager, whatever "
        "settingSources say): the session is put back in mode default right after session/new, and the "
        "start-model policy's one selection call replaces a repository's model."
    ),
    note="provider failures arrive as JSON-RPC -32603 `Internal error: API Error: <status> <body>`, headers dropped",
)
CODEX = AgentAdapter(
    name="codex",
    recognise=("codex-acp",),
    settings={"RUST_LOG": "error"},
    args=_codex_args,
    relays_http_errors=True,
    default_hosts=("api.openai.com", "chatgpt.com"),
    repository_config=CODEX_REPOSITORY_CONFIG,
    note="the provider is declared with -c overrides: model_providers.office (wire_api responses, retries 0)",
)
GEMINI_SYSTEM_SETTINGS = str(Path(__file__).with_name("agent_settings") / "gemini-cli-system-settings.json")
GEMINI_CLI = AgentAdapter(
    name="gemini-cli",
    recognise=("gemini-cli", "gemini"),
    settings={
        "GEMINI_CLI_NO_RELAUNCH": "true",
        "NO_BROWSER": "true",
        # Folder trust, decided by the launcher: the working copy is untrusted whatever settings or
        # trustedFolders.json say, so its .gemini/settings.json (MCP servers, hooks, tools), .gemini/policies and
        # .env (beyond the auth variables) are not loaded and approval stays at "default".
        "GEMINI_CLI_TRUST_WORKSPACE": "false",
        # Its own retries off: Gemini CLI 0.61 retries a failed call up to 10 times with 5-30 s backoff (retry.ts
        # DEFAULT_MAX_ATTEMPTS), so a rate-limited provider took the turn's timeout and many calls before the
        # decider heard of it. Settings `general.maxAttempts` bounds it. System settings (this file) win over the
        # user's and the workspace's, but Gemini CLI reads them only when root owns the file and its directories;
        # so the sandbox's own home also gets them as the user's settings (the untrusted workspace's are dropped).
        "GEMINI_CLI_SYSTEM_SETTINGS_PATH": GEMINI_SYSTEM_SETTINGS,
    },
    read_only_files=(GEMINI_SYSTEM_SETTINGS,),
    home_files=((".gemini/settings.json", Path(GEMINI_SYSTEM_SETTINGS).read_text()),),
    base_url_env="GOOGLE_GEMINI_BASE_URL",
    base_url_without_v1=True,
    credential_env="GEMINI_API_KEY",
    relays_http_errors=True,
    default_hosts=("generativelanguage.googleapis.com",),
    repository_config=(
        "Gemini CLI reads .gemini/settings.json (mcpServers, hooks, tools, security), .gemini/policies/ and .env "
        "from the workspace, GEMINI.md as instructions. GEMINI_CLI_TRUST_WORKSPACE=false makes the workspace "
        "untrusted first of all (bundle checkPathTrust): mergeSettings drops the workspace settings, workspace "
        "policies are skipped, approval mode stays default, and a workspace .env may set only GEMINI_API_KEY, "
        "GOOGLE_API_KEY, GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION, sanitised, where the launch did not set "
        "them (loadEnvironment). A .gemini/settings.json that is not JSON still fails the start (FatalConfigError)."
    ),
    note="own retries off: general.maxAttempts 1 in system settings and, sandboxed, in its home's user settings",
)
OPENCODE = AgentAdapter(
    name="opencode",
    recognise=("opencode",),
    settings={
        # Project configuration off: opencode.json[c] and .opencode/ from the working copy up to its git root,
        # and with it AGENTS.md/CLAUDE.md/CONTEXT.md from the project (OpenCode ties the two together).
        "OPENCODE_DISABLE_PROJECT_CONFIG": "1",
        "OPENCODE_DISABLE_EXTERNAL_SKILLS": "1",  # .claude/skills and .agents/skills, the project's and home's
        "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",  # the built-in auth plugins (Copilot, Codex login, …)
        "OPENCODE_DISABLE_MODELS_FETCH": "1",  # no models.dev fetch: the catalog the binary ships
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
        # OpenCode installs @opencode-ai/plugin into its configuration directories with npm at start, in the
        # background: offline, that fails at once instead of reaching a registry.
        "npm_config_offline": "true",
    },
    credential_env="OPENAI_API_KEY",
    launch_settings=_opencode_settings,
    default_hosts=("api.openai.com", "opencode.ai"),
    repository_config=(
        "OpenCode reads opencode.json, opencode.jsonc and .opencode/ (opencode.json, plugin(s)/*.{ts,js} it "
        "imports and runs, agent(s)/, command(s)/, mode(s)/, skill(s)/, tool(s)/, package.json it npm-installs) "
        "from the working copy up to the git root, .claude/skills and .agents/skills, and AGENTS.md, CLAUDE.md, "
        "CONTEXT.md as instructions. OPENCODE_DISABLE_PROJECT_CONFIG=1 switches off the first loader "
        "(ConfigPaths.projectFiles/directories, Config.loadInstanceState) and the project instruction files, "
        "OPENCODE_DISABLE_EXTERNAL_SKILLS=1 the skill scan. OpenCode 1.18's second configuration loader "
        "(@opencode/v2/Config, which feeds config-plugin, config-skill, config-reference and "
        "experimental.policies) walks up for the same .opencode/ and opencode.json[c] with no switch at all and "
        "imports .opencode/plugin/*.ts: such a working copy is refused (repository_config_always)."
    ),
    repository_config_always=(".opencode", "opencode.json", "opencode.jsonc"),
    read_only_files=(OPENCODE_NO_OWN_RETRIES,),
    retry_stopped_marker="OFFICE_AGENT_RETRY_STOPPED ",
    # OpenCode's session loop retries a retryable failure (429, 5xx, overloaded, network) 5 more times with
    # backoff, honouring any Retry-After (SessionRetry RETRY_MAX_RETRIES = 5), and no setting turns that off: the
    # office's plugin (agent_settings/opencode-no-own-retries.js) aborts the session at its first retry and says
    # why on stderr. The AI SDK's own retries are 0. Failures arrive as JSON-RPC -32603
    # `Internal error: <the provider's message>` (data.errorName APIError), with no status.
    note="own retries stopped at the first by the office's plugin; errors arrive without status",
)
GENERIC = AgentAdapter(name="generic", recognise=())

ADAPTERS: dict[str, AgentAdapter] = {a.name: a for a in (CLAUDE_CODE, CODEX, GEMINI_CLI, OPENCODE, GENERIC)}


def adapter_for(command: list[str], named: str | None = None) -> AgentAdapter:
    """The profile's named adapter, else the one its command runs, else the generic ACP agent."""
    if named:
        return ADAPTERS[named]
    for adapter in (CLAUDE_CODE, CODEX, GEMINI_CLI, OPENCODE):
        if any(any(mark in part.rsplit("/", 1)[-1] or mark in part for mark in adapter.recognise) for part in command):
            return adapter
    return GENERIC


_RELAYED = re.compile(r"API Error:\s*(\d{3})\b\s*(\{.*\}|.*)?", re.S)
_CODEX_STATUS = re.compile(r"\bstatus:?\s*(\d{3})\b[^{]*(\{.*\})?", re.S | re.I)


def read_relayed(adapter: AgentAdapter, signal: FailureSignal) -> FailureSignal:
    """A provider failure the agent relayed in its error text, read back into the HTTP status and body the
    classifier reads first. The headers are gone (Claude Code drops Retry-After), so no reset time is known."""
    if not adapter.relays_http_errors or signal.status is not None or not signal.error_text:
        return signal
    match = _RELAYED.search(signal.error_text) or _CODEX_STATUS.search(signal.error_text)
    if match is None:
        return signal
    body = (match.group(2) or "").strip() or None
    return signal.model_copy(update={"status": int(match.group(1)), "body": body})


def refused_repository_config(adapter: AgentAdapter, workcopy: str | Path) -> list[str]:
    """The paths at the working copy's root that this agent would load as configuration whatever it is told."""
    root = Path(workcopy)
    return [name for name in adapter.repository_config_always if (root / name).is_symlink() or (root / name).exists()]
