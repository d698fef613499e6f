"""Per-provider rules: wording a provider's API puts in its error messages, beyond the shared body keys."""

from routing.codes import ErrorCode as E
from routing.rules import Rule, table

GOOGLE = table(
    "google",
    "provider",
    [
        # Gemini API / Vertex: RESOURCE_EXHAUSTED on a per-day metric is a quota, on a per-minute one a rate limit.
        ("daily_quota", r"quota.{0,300}(?:per.?day|daily)", E.quota_limited, 0.97),
        ("minute_quota", r"quota exceeded for metric.{0,300}per.?minute", E.rate_limited, 0.97),
        ("billing_required", r"free tier is not available|enable billing", E.subscription_required, 0.96),
    ],
)

ANTHROPIC = table(
    "anthropic",
    "provider",
    [
        # not_found_error's message names the model it did not find
        ("model_not_found", r"(?:^|\s)model: [\w.\-:@/]+", E.model_unavailable, 0.92),
    ],
)

PROVIDERS: dict[str, tuple[Rule, ...]] = {
    "google": GOOGLE,
    "anthropic": ANTHROPIC,
}
