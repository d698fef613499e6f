"""Named provider scenarios: what a real agent meets at the endpoint when it acts on its own.

Each returns a `SimProvider` for the Anthropic Messages API (any model id matching `claude-*` is accepted, as the
agent resolves aliases such as "opus" itself), so a test declares the situation rather than its headers.
"""

from office.simulator.config import InjectedFailure, SimProvider, UnifiedWindow

# Claude Code switches to its fallback model after this many consecutive overloaded answers within one request's
# retry loop (cli.js 2.1.83 Wv8: `C6_=3`), so it needs at least two retries of its own (CLAUDE_CODE_MAX_RETRIES ≥ 2).
CLAUDE_FALLBACK_AFTER_OVERLOADS = 3


def claude_own_fallback(overloaded: str = "claude-opus-*", api_key: str | None = None) -> SimProvider:
    """Every request for a model matching `overloaded` answers 529 overloaded_error, every other model answers.

    What makes Claude Code fall back by itself (cli.js Wv8): a 529 (or a body saying "overloaded_error") for a
    primary model (an Opus id, or any model with FALLBACK_FOR_ALL_PRIMARY_MODELS set), for a caller that is not
    a claude.ai subscriber, three times in a row in one request's retries, with a fallback model given
    (`--fallback-model`, the SDK's `fallbackModel`). The turn then continues on the fallback model."""
    return SimProvider(
        models=["claude-*"],
        api_key=api_key,
        failures=[InjectedFailure(status=529, kind="overloaded", models=[overloaded])],
    )


def claude_subscription_limit(
    reset_in_s: float = 3 * 3600,
    window: UnifiedWindow = "five_hour",
    times: int | None = None,
    api_key: str | None = None,
) -> SimProvider:
    """Every generation request answers 429 with the unified rate-limit headers of a used-up claude.ai
    subscription window (status rejected, reset `reset_in_s` from the answer, `window` as the representative
    claim). For a subscriber (an OAuth token, e.g. CLAUDE_CODE_OAUTH_TOKEN) Claude Code does not retry this; it
    emits a rate_limit_event (status rejected, resetsAt) and ends the turn with "You've hit your session limit ·
    resets <clock> (<zone>)", which claude-agent-acp relays as JSON-RPC -32603."""
    return SimProvider(
        models=["claude-*"],
        api_key=api_key,
        shape="anthropic",
        failures=[
            InjectedFailure(status=429, kind="subscription_limit", retry_after_s=reset_in_s, window=window, times=times)
        ],
    )
