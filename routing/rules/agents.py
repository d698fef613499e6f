"""Per-agent rules: each coding agent's own wording (Claude Code, Codex, Gemini CLI, OpenCode, Copilot CLI)."""

from routing.codes import ErrorCode as E
from routing.rules import Rule, table

CLAUDE_CODE = table(
    "claude-code",
    "agent",
    [
        # subscription windows: "You've hit your session limit · resets 3pm (America/Bogota)", "5-hour limit reached"
        (
            "session_limit",
            r"you(?:'|’)ve hit your (?:[\w ]{0,25} )?limit|you(?:'|’)re out of extra usage"
            r"|\b(?:weekly|session|\d+-hour) limit reached",
            E.quota_limited,
            0.98,
        ),
        # two processes refreshing one OAuth token: the other one finishes, then this one can go on
        ("oauth_refresh_contention", r"another [\w ]{0,40}process is refreshing", E.provider_unavailable, 0.95),
        # extra usage (pay-as-you-go beyond the plan): required for a feature, or spent until its reset
        (
            "extra_usage_required",
            r"extra usage is required|draw from (?:your )?extra usage",
            E.subscription_required,
            0.97,
        ),
        ("extra_usage_spent", r"out of extra usage", E.quota_limited, 0.98),
        # the CLI's rewording of a 404 not_found_error for the model
        ("selected_model", r"issue with the selected model", E.model_unavailable, 0.95),
    ],
)

CODEX = table(
    "codex",
    "agent",
    [
        # codex-rs UsageLimitReachedError: "You've hit your usage limit. … Try again at <time>."
        ("usage_limit", r"you(?:'|’)ve hit your usage limit", E.quota_limited, 0.98),
    ],
)

GEMINI_CLI = table(
    "gemini-cli",
    "agent",
    [
        # Code Assist per-user quota: "You have exhausted your capacity on this model. Your quota will reset after …"
        ("capacity_exhausted", r"exhausted your capacity on this model", E.quota_limited, 0.98),
        # MODEL_CAPACITY_EXHAUSTED dialog: "We are currently experiencing high demand for <model>."
        ("model_high_demand", r"high demand for [\w.\-]+", E.model_capacity, 0.95),
        ("no_auth_method", r"please set an auth method", E.missing_credentials, 0.95),
    ],
)

OPENCODE = table(
    "opencode",
    "agent",
    [
        # OpenCode Zen free tier: "Free usage exceeded, add credits …", "Free limit reached"
        ("free_limit", r"free (?:usage|limit) (?:exceeded|reached)", E.quota_limited, 0.98),
    ],
)

COPILOT_CLI = table(
    "copilot-cli",
    "agent",
    [
        # the monthly premium-request allowance, however the client words it (allowance, limit, no overages)
        (
            "premium_allowance",
            r"exceeded your (?:copilot )?premium request|monthly limit for premium requests"
            r"|premium requests?\b[^.]{0,60}\b(?:overages?|allowance)",
            E.quota_limited,
            0.98,
        ),
        ("no_model_policy", r"no model available\. check policy", E.provider_not_configured, 0.95),
        ("no_auth_info", r"no authentication information found", E.missing_credentials, 0.95),
        # the organisation's Copilot policy blocks the model or the CLI: an admin's setting, never a retry
        (
            "org_policy",
            r"disabled by your organi[sz]ation'?s? policy|access denied by copilot policy",
            E.subscription_required,
            0.96,
        ),
    ],
)

AGENTS: dict[str, tuple[Rule, ...]] = {
    "claude-code": CLAUDE_CODE,
    "codex": CODEX,
    "gemini-cli": GEMINI_CLI,
    "opencode": OPENCODE,
    "copilot-cli": COPILOT_CLI,
}
