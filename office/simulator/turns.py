"""What one generation request is, and what the simulator decides for it, independent of the wire API."""

from dataclasses import dataclass
from typing import Any

from office.simulator.config import ScriptedToolUse


@dataclass
class Turn:
    """One generation request, whatever API it came on."""

    api: str  # "chat" | "messages" | "responses"
    provider: str
    requested_model: str | None
    messages: list[dict[str, Any]]  # role + text content, the caller's conversation without tool plumbing
    stream: bool
    credential: str | None = None
    tool_result: bool = False  # the newest message carries a tool's result
    include_usage: bool = False  # chat streaming: `stream_options.include_usage` asked for the usage chunk
    tool_error: str | None = None  # the tool's result is an error (Anthropic `is_error`, e.g. a refused permission)

    @property
    def last_user(self) -> str:
        users = [str(m.get("content", "")) for m in self.messages if m.get("role") == "user"]
        return users[-1] if users else ""


@dataclass
class Failure:
    status: int
    kind: str
    shape: str
    model: str | None
    retry_after_s: float | None = None
    message: str | None = None
    denied: bool = False  # the caller's credential was refused (not an injected failure)
    # The token bucket's own rate-limit headers, sent as they are; None: an injected failure's sample headers.
    rate_headers: dict[str, str] | None = None
    window: str | None = None  # a subscription_limit's window (the unified representative claim)


@dataclass
class Answer:
    model: str
    text: str
    tool: ScriptedToolUse | None = None
    cut_after_chunks: int | None = None  # close the stream after this many text chunks, with no final event
    chunk_delay_s: float = 0.0
    input_tokens: int = 0
    cached_tokens: int = 0  # of input_tokens: the conversation before the newest message, as a prompt cache holds it
    include_usage: bool = False  # chat streaming: end with the usage chunk
