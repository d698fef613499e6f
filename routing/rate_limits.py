"""What a provider's answer says about its request rate limit, from the rate-limit headers it sends on every
answer (success or 429). Pure: a header mapping in, requests per minute out.

Sources:
- OpenAI: `x-ratelimit-limit-requests` "the maximum number of requests that are permitted before exhausting the
  rate limit" (per minute), with `x-ratelimit-remaining-requests` and `x-ratelimit-reset-requests` —
  https://platform.openai.com/docs/guides/rate-limits (Rate limits in headers). Azure OpenAI and OpenRouter send
  the same names.
- Anthropic: `anthropic-ratelimit-requests-limit` "the maximum number of requests allowed within any rate limit
  period" (requests per minute), `…-remaining`, `…-reset` (RFC 3339) —
  https://docs.anthropic.com/en/api/rate-limits (Response headers).
Groq sends `x-ratelimit-limit-requests` as requests per *day* (https://console.groq.com/docs/rate-limits): read
as per minute it only makes the pacer looser than the provider, never tighter, and a 429 still teaches the rate.
"""

from collections.abc import Mapping

REQUEST_LIMIT_HEADERS = ("x-ratelimit-limit-requests", "anthropic-ratelimit-requests-limit")


def requests_per_minute(headers: Mapping[str, str] | None) -> float | None:
    """The provider's stated request limit per minute, or None when it states none (or nonsense)."""
    if not headers:
        return None
    lowered = {k.lower().strip(): v for k, v in headers.items()}
    for name in REQUEST_LIMIT_HEADERS:
        raw = lowered.get(name)
        if raw is None:
            continue
        try:
            value = float(raw.strip())
        except ValueError:
            continue
        if 0 < value < 1e9:
            return value
    return None
