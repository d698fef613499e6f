"""Redaction of provider error text before it is stored or shown: no keys, tokens or emails."""

import re

_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(?i)bearer\s+[A-Za-z0-9._~+/=-]{6,}"), "Bearer [redacted]"),
    (re.compile(r"\b(sk|pk|rk)-[A-Za-z0-9_-]{6,}"), "[redacted-key]"),
    (re.compile(r"\bsk-ant-[A-Za-z0-9_-]{6,}"), "[redacted-key]"),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{10,}"), "[redacted-key]"),
    (re.compile(r"\b(ghp|gho|ghs|github_pat)_[A-Za-z0-9_]{10,}"), "[redacted-key]"),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), "[redacted-token]"),
    (
        re.compile(r"(?i)\b(api[_-]?key|token|secret|password|authorization)(\"?\s*[:=]\s*\"?)[^\s\",&}]+"),
        r"\1\2[redacted]",
    ),
    (re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}"), "[redacted-email]"),
]

MAX_EXCERPT = 300


def redact(text: str | None, limit: int = MAX_EXCERPT) -> str:
    if not text:
        return ""
    out = text
    for pattern, replacement in _PATTERNS:
        out = pattern.sub(replacement, out)
    out = " ".join(out.split())
    return out if len(out) <= limit else out[: limit - 1] + "…"
