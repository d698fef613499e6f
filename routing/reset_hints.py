"""Reads "when may I try again" from provider responses. Pure: the caller passes `now`."""

import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_TEXT_HINTS = [
    re.compile(r"(?i)try again in\s+(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?)\b"),
    re.compile(r"(?i)retry after\s+(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?)\b"),
    re.compile(r"(?i)retry in\s+(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?)\b"),
]


def _unit_seconds(value: float, unit: str) -> float:
    unit = unit.lower()
    if unit.startswith("ms") or unit.startswith("milli"):
        return value / 1000
    if unit.startswith("m"):
        return value * 60
    if unit.startswith("h"):
        return value * 3600
    return value


def parse_go_duration(text: str) -> float | None:
    """OpenAI's x-ratelimit-reset-* and Gemini's retryDelay: '1s', '6m0s', '20ms', '1.5s'."""
    text = text.strip()
    if not text:
        return None
    parts = _DURATION_PART.findall(text)
    if not parts or "".join(v + u for v, u in parts) != text:
        try:
            return max(0.0, float(text))
        except ValueError:
            return None
    return sum(_unit_seconds(float(v), u) for v, u in parts)


def parse_retry_after(value: str, now: datetime | None) -> float | None:
    """RFC 9110 Retry-After: delay-seconds or an HTTP-date (the latter needs `now`)."""
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    if now is None:
        return None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - now).total_seconds())


def _parse_timestamp(value: str, now: datetime | None) -> float | None:
    """Anthropic's *-reset headers (RFC 3339) and OpenRouter's X-RateLimit-Reset (epoch ms)."""
    if now is None:
        return None
    value = value.strip()
    try:
        number = float(value)
    except ValueError:
        try:
            when = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        return max(0.0, (when - now).total_seconds())
    epoch_s = number / 1000 if number > 1e11 else number
    return max(0.0, epoch_s - now.timestamp())


def reset_hint_from_headers(headers: dict[str, str], now: datetime | None) -> float | None:
    h = {k.lower(): v for k, v in headers.items()}
    if "retry-after-ms" in h:
        try:
            return max(0.0, float(h["retry-after-ms"]) / 1000)
        except ValueError:
            pass
    if "retry-after" in h:
        parsed = parse_retry_after(h["retry-after"], now)
        if parsed is not None:
            return parsed
    durations = [parse_go_duration(h[k]) for k in ("x-ratelimit-reset-requests", "x-ratelimit-reset-tokens") if k in h]
    durations = [d for d in durations if d is not None]
    if durations:
        return max(durations)
    stamps = [
        _parse_timestamp(h[k], now)
        for k in (
            "anthropic-ratelimit-requests-reset",
            "anthropic-ratelimit-tokens-reset",
            "anthropic-ratelimit-input-tokens-reset",
            "anthropic-ratelimit-output-tokens-reset",
            "x-ratelimit-reset",
        )
        if k in h
    ]
    stamps = [s for s in stamps if s is not None]
    return max(stamps) if stamps else None


def reset_hint_from_text(text: str | None) -> float | None:
    if not text:
        return None
    for pattern in _TEXT_HINTS:
        m = pattern.search(text)
        if m:
            return _unit_seconds(float(m.group(1)), m.group(2))
    return None
