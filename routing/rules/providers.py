"""Per-provider rules: wording a provider's API or SDK puts in its error messages, beyond the shared body keys."""

from routing.codes import ErrorCode as E
from routing.rules import Rule, table

GOOGLE = table(
    "google",
    "provider",
    [
        # Gemini API / Vertex: RESOURCE_EXHAUSTED on a per-day metric is a quota, on a per-minute one (or with the
        # rate-limits link and a RetryInfo delay) a rate limit, even when the message says "exceeded your quota".
        ("daily_quota", r"quota.{0,300}(?:per.?day|daily)", E.quota_limited, 0.975),
        (
            "metric_quota",
            r"quota exceeded for metric|gemini-api/docs/rate-limits|PerMinute",
            E.rate_limited,
            0.97,
        ),
        # "limit: 0": the free tier has no quota at all for this model; waiting never helps
        ("no_free_tier", r"\blimit: 0\b|free tier is not available", E.subscription_required, 0.98),
        # billing not enabled on the project ("This API method requires billing to be enabled. Please enable billing
        # on project #…", "Billing must be enabled for activation of service(s)"); not "enable billing" as one remedy in
        # a list beside another verdict (a quota spent)
        (
            "billing_disabled",
            r"\bbilling (?:to be|is not|isn.t|has not been|not|must be) enabled\b"
            r"|\benable billing on (?:your |the )?project\b"
            # ("Project x (#808448574146) has billing disabled. Please enable it.")
            r"|\bhas billing disabled\b",
            E.subscription_required,
            0.98,
        ),
        ("resource_exhausted", r"resource (?:has been )?exhausted", E.rate_limited, 0.9),
        ("service_disabled", r"has not been used in project|SERVICE_DISABLED", E.provider_not_configured, 0.96),
        # promptFeedback.blockReason (any body, the Python SDK's repr) and the JS SDK's "was blocked due to OTHER"
        (
            "prompt_blocked",
            r"block_?reason\W{0,3}(?:BlockedReason\.)?(?:SAFETY|PROHIBITED_CONTENT|BLOCKLIST|OTHER|SPII|IMAGE_SAFETY)"
            # the SDKs' enum names: Python BlockedReason.PROHIBITED_CONTENT, Go BlockedReasonProhibitedContent
            r"|\bBlockedReason\.?_?(?:prohibited_?content|safety|other|blocklist|spii)"
            r"|\bblocked\b[^.]{0,20}\bdue to (?:PROHIBITED_CONTENT|SAFETY|OTHER|BLOCKLIST|SPII)\b",
            E.content_policy,
            0.95,
        ),
    ],
)

ANTHROPIC = table(
    "anthropic",
    "provider",
    [
        # not_found_error's message is the model it did not find, and nothing else ("model: claude-3-opus-20240229"),
        # so it opens the text; a "Model: x" line elsewhere is a tool's context footer (LiteLLM's "Model: gemini-pro",
        # an agent's "Provider: … Model: …" block), not a verdict
        # (a model id has a digit or a dash: "model: ThrottlingException" in an SDK's wording is not one)
        ("model_not_found", r"^model: [a-z][\w.:@/]*[\d-][\w.\-:@/]*", E.model_unavailable, 0.92),
        # the TypeScript SDK's guard when neither key nor token is set
        ("no_auth_method", r"could not resolve authentication method", E.missing_credentials, 0.95),
    ],
)

BEDROCK = table(
    "bedrock",
    "provider",
    [
        (
            "access_denied",
            r"AccessDeniedException|don.t have access to the model|model access is denied",
            E.auth_required,
            0.96,
        ),
        ("on_demand_unsupported", r"on-demand throughput isn.t supported", E.provider_not_configured, 0.95),
        # ThrottlingException and its message, also as an agent relays it ("Too many tokens per day, please wait"); the
        # window it names decides between a short retry and a quota
        (
            "throttling",
            r"ThrottlingException|too many (?:tokens|requests)(?: per \w+)?,? please wait",
            E.rate_limited,
            0.9,
        ),
        (
            "unavailable",
            r"ServiceUnavailableException|is unable to process your request",
            E.provider_unavailable,
            0.9,
        ),
    ],
)

OPENROUTER = table(
    "openrouter",
    "provider",
    [
        ("free_daily", r"free-models-per-day", E.quota_limited, 0.97),
        # (also "No endpoints available matching your guardrail restrictions and data policy": the account's
        # privacy settings leave this model no endpoint; another model or provider may have one)
        ("no_endpoints", r"no endpoints found|no endpoints available matching", E.model_unavailable, 0.93),
    ],
)

# Zhipu (GLM, z.ai) numbers its errors in `code`: 1113 no balance or resource package, 1301 unsafe content.
ZHIPU = table(
    "zhipu",
    "provider",
    [
        ("insufficient_balance", r"1113", E.subscription_required, 0.97),
        ("unsafe_content", r"1301", E.content_policy, 0.97),
    ],
    target="key",
)

PROVIDERS: dict[str, tuple[Rule, ...]] = {
    "google": GOOGLE,
    "anthropic": ANTHROPIC,
    "bedrock": BEDROCK,
    "zhipu": ZHIPU,
    "openrouter": OPENROUTER,
}
