"""Tokens a turn used and what they cost: the shapes executors report, read into one `Usage`, and the arithmetic
of a per-million price. Pure (the maintained price table is looked up in activities.pricing).

One convention for every executor: `input_tokens` counts every prompt token, cached ones included (as OpenAI's
`prompt_tokens` and the price table do); `cache_read_tokens` and `cache_write_tokens` say how many of them were read
from or written to the provider's prompt cache. Agents that report Anthropic's split (input without the cache) are
added up here."""

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

MILLION = 1_000_000


class Usage(BaseModel):
    """Tokens of one answer (or of a run: usages add up)."""

    input_tokens: int = Field(default=0, ge=0)  # every prompt token, cached ones included
    output_tokens: int = Field(default=0, ge=0)  # completion tokens, reasoning included
    cache_read_tokens: int = Field(default=0, ge=0)  # of input_tokens: read from the prompt cache
    cache_write_tokens: int = Field(default=0, ge=0)  # of input_tokens: written to the prompt cache

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
        )

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def uncached_input_tokens(self) -> int:
        return max(0, self.input_tokens - self.cache_read_tokens - self.cache_write_tokens)


class ModelPrice(BaseModel):
    """A negotiated or local model's price in USD per million tokens (cache prices default to the input price)."""

    input_per_million: float = Field(ge=0, description="USD per million uncached input tokens.")
    output_per_million: float = Field(ge=0, description="USD per million output tokens (reasoning included).")
    cache_read_per_million: float | None = Field(
        default=None,
        ge=0,
        description="USD per million input tokens read from the prompt cache (default: the input price).",
    )
    cache_write_per_million: float | None = Field(
        default=None,
        ge=0,
        description="USD per million input tokens written to the prompt cache (default: the input price).",
    )

    def cost(self, usage: Usage) -> float:
        """What `usage` costs at this price, in USD."""
        read = self.input_per_million if self.cache_read_per_million is None else self.cache_read_per_million
        write = self.input_per_million if self.cache_write_per_million is None else self.cache_write_per_million
        micro = (
            usage.uncached_input_tokens * self.input_per_million
            + usage.cache_read_tokens * read
            + usage.cache_write_tokens * write
            + usage.output_tokens * self.output_per_million
        )
        return micro / MILLION


def override_for(prices: Mapping[str, ModelPrice], provider: str, model: str | None) -> ModelPrice | None:
    """The workspace's price for `model`: `provider/model` first, then the model alone; None when not listed."""
    if not model:
        return None
    return prices.get(f"{provider}/{model}") or prices.get(model)


def add_costs(a: float | None, b: float | None) -> float | None:
    """Costs add up; unknown plus unknown stays unknown (a known part is never hidden by an unknown one)."""
    if a is None:
        return b
    return a if b is None else a + b


def _count(data: Mapping[str, Any], *keys: str) -> int:
    """The first of `keys` that holds a non-negative whole count; 0 when none does."""
    for key in keys:
        value = data.get(key)
        if isinstance(value, bool):
            continue
        if isinstance(value, int | float) and value >= 0:
            return int(value)
    return 0


def from_openai(usage: object) -> Usage | None:
    """An OpenAI-compatible `usage` (chat completions, the streaming final chunk): `prompt_tokens` includes the
    cached ones, `prompt_tokens_details.cached_tokens` says how many."""
    if not isinstance(usage, Mapping):
        return None
    details = usage.get("prompt_tokens_details")
    cached = _count(details, "cached_tokens") if isinstance(details, Mapping) else 0
    prompt = _count(usage, "prompt_tokens")
    return Usage(
        input_tokens=max(prompt, cached),
        output_tokens=_count(usage, "completion_tokens"),
        cache_read_tokens=cached,
    )


def from_anthropic(usage: object) -> Usage | None:
    """An Anthropic Messages `usage`: `input_tokens` leaves the cache out, `cache_read_input_tokens` and
    `cache_creation_input_tokens` count it."""
    if not isinstance(usage, Mapping):
        return None
    read, write = _count(usage, "cache_read_input_tokens"), _count(usage, "cache_creation_input_tokens")
    return Usage(
        input_tokens=_count(usage, "input_tokens") + read + write,
        output_tokens=_count(usage, "output_tokens"),
        cache_read_tokens=read,
        cache_write_tokens=write,
    )


def from_acp_prompt(answer: object) -> Usage | None:
    """What an ACP agent reported for a turn in its session/prompt result, None when nothing:

    - `usage` (the ACP field; claude-agent-acp and OpenCode send it): `inputTokens` without the cache,
      `cachedReadTokens`, `cachedWriteTokens`, `outputTokens`, and OpenCode's `thoughtTokens` (reasoning, billed
      as output);
    - Gemini CLI's `_meta.quota.token_count`: `input_tokens` (the prompt, cached content included) and
      `output_tokens`."""
    if not isinstance(answer, Mapping):
        return None
    acp = answer.get("usage")
    if isinstance(acp, Mapping):
        read, write = _count(acp, "cachedReadTokens"), _count(acp, "cachedWriteTokens")
        return Usage(
            input_tokens=_count(acp, "inputTokens") + read + write,
            output_tokens=_count(acp, "outputTokens") + _count(acp, "thoughtTokens"),
            cache_read_tokens=read,
            cache_write_tokens=write,
        )
    meta = answer.get("_meta")
    quota = meta.get("quota") if isinstance(meta, Mapping) else None
    counts = quota.get("token_count") if isinstance(quota, Mapping) else None
    if isinstance(counts, Mapping):
        return Usage(input_tokens=_count(counts, "input_tokens"), output_tokens=_count(counts, "output_tokens"))
    return None
