"""Per-agent rules: each coding agent's own wording (Claude Code, Codex, Gemini CLI, OpenCode, Copilot CLI)."""

from routing.codes import ErrorCode as E
from routing.rules import Rule, table

CODEX = table(
    "codex",
    "agent",
    [
        # codex-rs UsageLimitReachedError: "You've hit your usage limit. … Try again at <time>."
        ("usage_limit", r"you(?:'|’)ve hit your usage limit", E.quota_limited, 0.98),
    ],
)

AGENTS: dict[str, tuple[Rule, ...]] = {
    "codex": CODEX,
}
