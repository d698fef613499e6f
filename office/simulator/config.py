"""What each simulated provider does: models, keys, latency, injected failures, quotas, stream cuts, tool use."""

from typing import Any, Literal

from pydantic import BaseModel, Field

Shape = Literal["openai", "anthropic", "gemini", "openrouter", "azure"]
# The generation APIs a simulated provider answers on, each with its native error shape.
Api = Literal["chat", "messages", "responses", "gemini"]
NATIVE_SHAPE: dict[str, Shape] = {"chat": "openai", "messages": "anthropic", "responses": "openai", "gemini": "gemini"}
FailureKind = Literal[
    "auth",
    "invalid_key",
    "rate_limit",
    "quota",
    "credit_balance",
    "model_not_found",
    "overloaded",
    "server_error",
    "unavailable",
    "context_length",
    "content_policy",
    "bad_request",
    "opaque",  # a body that names no kind of error: what no rule knows (the run waits for a person, or fails)
    "timeout",  # hold the request for hold_s seconds, then answer 504: the caller's timeout should fire first
    # A claude.ai subscription window used up: 429 with the anthropic-ratelimit-unified-* headers (status rejected,
    # the window's reset as epoch seconds retry_after_s from now, the window as the representative claim).
    "subscription_limit",
]
# The windows of a claude.ai subscription as `anthropic-ratelimit-unified-representative-claim` names them
# (Claude Code 2.1.83 cli.js: as9 words each one: session, weekly, Opus, Sonnet limit, extra usage).
UnifiedWindow = Literal["five_hour", "seven_day", "seven_day_opus", "seven_day_sonnet", "overage"]


# "chat" is any generation call (chat completions, Messages, Responses); "models" the catalog.
Endpoint = Literal["chat", "models"]


class InjectedFailure(BaseModel):
    status: int = Field(ge=400, le=599)
    kind: FailureKind
    shape: Shape | None = None  # None: the API's own shape (chat/responses → OpenAI, messages → Anthropic)
    retry_after_s: float | None = None
    times: int | None = None  # fail this many matching calls, then stop; None: always
    skip: int = 0  # let this many matching calls through first
    models: list[str] = Field(default_factory=list)  # only when one of these models (or patterns) is asked for
    match_text: str | None = None  # only when the newest user message contains this text
    endpoints: list[Endpoint] = Field(default_factory=lambda: list[Endpoint](["chat"]))
    apis: list[Api] = Field(default_factory=list)  # only on these generation APIs; empty: all of them
    hold_s: float = 30.0  # for kind "timeout"
    window: UnifiedWindow = "five_hour"  # for kind "subscription_limit"
    message: str | None = None


class ScriptedToolUse(BaseModel):
    """Instead of a text answer, ask the caller to run a tool (Anthropic tool_use, Responses function_call, chat
    tool_calls); once the request carries the tool's result, answer with text as usual."""

    name: str  # e.g. "Write" for Claude Code, "shell" for Codex
    input: dict[str, Any] = Field(default_factory=dict)
    match_text: str | None = None  # only when the newest user message contains this text
    times: int | None = None  # ask this many times, then answer text; None: on every matching turn


class SimProvider(BaseModel):
    # Advertised and accepted models; a pattern such as "claude-*" accepts any id it matches (agents resolve
    # aliases like "sonnet" to dated ids themselves).
    models: list[str] = Field(default_factory=lambda: ["sim-small", "sim-large"])
    default_model: str | None = None  # used when a request names no model; first advertised otherwise
    api_key: str | None = None  # when set, requests must carry it (Bearer, x-api-key or x-goog-api-key)
    shape: Shape = "openai"  # error body shape for auth and quota failures
    latency_ms: float = Field(default=0, ge=0)
    chunk_delay_ms: float = Field(default=0, ge=0)
    rpm: float | None = Field(default=None, gt=0)  # token bucket: refills rpm/60 per second
    burst: float = Field(default=1, ge=1)
    # With `rpm`: send the provider's rate-limit headers (OpenAI's x-ratelimit-*, Anthropic's
    # anthropic-ratelimit-requests-*) on every answer, as those providers do; off: only Retry-After on a 429.
    rate_headers: bool = True
    cut_after_chunks: int | None = None  # streaming: close the stream after N chunks, no final event
    cut_times: int | None = None  # cut this many streams, then stop; None: always
    failures: list[InjectedFailure] = Field(default_factory=list)
    tool_uses: list[ScriptedToolUse] = Field(default_factory=list)


class SimConfig(BaseModel):
    providers: dict[str, SimProvider] = Field(default_factory=dict)
