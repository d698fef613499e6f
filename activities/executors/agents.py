"""Agent adapters: one declarative entry per known ACP agent saying how to launch it against a provider.

Each adapter names where the provider's base URL and the resolved credential go, the settings that switch the
agent's own retries off (Temporal's attempts are the only retries), what it needs to start headless, and how
it relays provider failures. A profile names its adapter (`adapter: claude-code`) or it is recognised from the
command; the profile's own `env` wins wherever it sets the same name.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass, field

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
    note: str = ""

    def environment(self, base_url: str | None) -> dict[str, str]:
        env = dict(self.settings)
        if self.base_url_env and base_url:
            url = base_url.rstrip("/")
            env[self.base_url_env] = re.sub(r"/v1(beta)?$", "", url) if self.base_url_without_v1 else url
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


CLAUDE_CODE = AgentAdapter(
    name="claude-code",
    recognise=("claude-code-acp", "claude-agent-acp"),
    settings={
        "CLAUDE_CODE_MAX_RETRIES": "0",  # default 10: a 529 endpoint took 9 min 14 s and 33 calls
        "IS_SANDBOX": "1",  # Claude Code refuses to skip permissions as root otherwise
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
    note="provider failures arrive as JSON-RPC -32603 `Internal error: API Error: <status> <body>`, headers dropped",
)
CODEX = AgentAdapter(
    name="codex",
    recognise=("codex-acp",),
    settings={"RUST_LOG": "error"},
    args=_codex_args,
    relays_http_errors=True,
    default_hosts=("api.openai.com", "chatgpt.com"),
    note="the provider is declared with -c overrides: model_providers.office (wire_api responses, retries 0)",
)
GEMINI_CLI = AgentAdapter(
    name="gemini-cli",
    recognise=("gemini-cli", "gemini"),
    settings={"GEMINI_CLI_NO_RELAUNCH": "true", "NO_BROWSER": "true"},
    base_url_env="GOOGLE_GEMINI_BASE_URL",
    base_url_without_v1=True,
    credential_env="GEMINI_API_KEY",
    relays_http_errors=True,
    default_hosts=("generativelanguage.googleapis.com",),
    # Gemini CLI 0.61 retries failed calls itself (DEFAULT_MAX_ATTEMPTS = 10, with backoff) and no environment
    # variable switches that off; the scheduler bounds such a turn by the profile's timeout_s instead.
    note="own retries cannot be switched off; bounded by the profile's timeout_s",
)
GENERIC = AgentAdapter(name="generic", recognise=())

ADAPTERS: dict[str, AgentAdapter] = {a.name: a for a in (CLAUDE_CODE, CODEX, GEMINI_CLI, GENERIC)}


def adapter_for(command: list[str], named: str | None = None) -> AgentAdapter:
    """The profile's named adapter, else the one its command runs, else the generic ACP agent."""
    if named:
        return ADAPTERS[named]
    for adapter in (CLAUDE_CODE, CODEX, GEMINI_CLI):
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
