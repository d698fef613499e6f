"""One reader for "when may I try again", in every form real agents and providers use.

`read_reset(text, headers, now)` returns seconds from `now` until the named reset, capped at `HORIZON_S`, or
None when nothing names one. Pure: the caller passes `now` (a workflow passes `workflow.now()`); forms that
name a wall-clock time, a date or an epoch need it and are skipped without it.

Forms read (each one appears in tests/corpus/ or a provider's documentation):
- headers: `retry-after-ms`, `Retry-After` (delay-seconds or HTTP-date), `x-ratelimit-reset-requests/-tokens`
  (OpenAI/Groq durations such as `6m0s`, `2m59.56s`, `20ms`), `anthropic-ratelimit-*-reset` (RFC 3339),
  `x-ratelimit-reset` / `ratelimit-reset` / Higress's `x-tokenratelimit-reset` (epoch seconds, epoch milliseconds,
  or delta seconds);
- durations after a retry/reset phrase: `try again in 20s`, `retry after 3 seconds`, `Please retry in 17.82s`,
  `reset after 20h6m52s`, `resets in 4h 32m`, `try again in 2 days 3 hours 4 minutes`, `in ~5 hours`,
  `wait 10 hours 58 minutes`, and in Chinese before the retry it asks for (`请 78 秒后重试`);
- clock-style durations after a retry/reset phrase: `retry in 0:09:48` (h:mm:ss, Hugging Face ZeroGPU), `Quota will be
  replenished in 5.03:23:11` (.NET's TimeSpan d.hh:mm:ss, Azure API Management);
- body fields: Gemini `"retryDelay": "17s"`, Codex `"resets_in_seconds": 1234` / `"resets_at": <epoch>`, a proxy's
  `"reset_seconds": 25803`;
- epoch suffixes: Claude Code's `Claude AI usage limit reached|1749924000`;
- ISO timestamps after a reset phrase: `resets at 2026-01-01T05:00:00Z`, or before a Chinese one (`… 07:41:44 重置`);
- wall-clock times, with an optional date and IANA zone: Claude Code `resets 3pm (America/Bogota)`,
  `Your limit will reset at 12am.`, Codex `Try again at 3:04 PM.` / `Try again at Jan 2nd, 2026 3:04 PM.`
  A time without a zone is read in UTC (the scheduler runs agents with TZ=UTC) and means its next occurrence.
"""

import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from email.utils import parsedate_to_datetime

# The longest reset the scheduler acts on: a monthly plan quota. Anything later is read as this; a durable wait
# then re-checks the provider at the horizon instead of sleeping on a date that may be wrong.
HORIZON_S = 31 * 24 * 3600.0

_UNIT = (
    r"(?:milliseconds?|millis|msecs?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|wks?|w)"
    r"(?![a-z])"
)
_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(" + _UNIT + r")", re.I)
_DURATION = r"(?:\d+(?:\.\d+)?\s*" + _UNIT + r"(?:\s*,?\s*(?:and\s+)?(?=\d))?)+"
_TRIGGER = (
    r"(?:try(?:ing)?\s+again|retry(?:ing)?|reset(?:s|ting)?|available(?:\s+again)?|wait(?:ing)?|resume|come\s+back)"
)
_RELATIVE = re.compile(
    _TRIGGER + r"[^.\n\d]{0,30}?\b(?:in|after|for)\s*:?\s*(?:~|about|approximately|approx\.?|roughly|around)?\s*"
    r"(" + _DURATION + r")",
    re.I,
)
# a wait of one unit in words (ngrok's ERR_NGROK_3162 "Try again in about an hour.")
_RELATIVE_ONE = re.compile(
    _TRIGGER + r"[^.\n\d]{0,30}?\b(?:in|after|for)\s+(?:about|approximately|roughly|around)?\s*(?:an?|one)\s+"
    r"(minute|hour|day|week)\b",
    re.I,
)
_ONE_UNIT_S = {"minute": 60.0, "hour": 3600.0, "day": 86400.0, "week": 7 * 86400.0}
# a wait as a clock-style duration: h:mm:ss, or .NET's TimeSpan d.hh:mm:ss ("replenished in 5.03:23:11")
_RELATIVE_CLOCK = re.compile(
    r"(?:" + _TRIGGER + r"|replenish(?:ed)?|renew(?:ed|s)?)[^.\n\d]{0,30}?\bin\s+"
    r"(?:(\d{1,3})\.)?(\d{1,3}):([0-5]\d):([0-5]\d)(?![\d:])",
    re.I,
)
# "Please wait 10 hours 58 minutes": a wait named with no preposition
_WAIT = re.compile(r"\bwait\s+(?:for\s+)?(?:about\s+|approximately\s+|~)?(" + _DURATION + r")", re.I)
_RETRY_AFTER_TEXT = re.compile(r"retry[-_ ]after(?:[-_ ]ms)?[\"']?\s*[:=]\s*[\"']?(\d+(?:\.\d+)?)\b", re.I)
_RETRY_DELAY_FIELD = re.compile(r"\"retryDelay\"\s*:\s*\"([^\"]+)\"")
# a wait named in Chinese before the retry it asks for (WindsurfAPI "请 78 秒后重试", "3 分钟后再试")
_RELATIVE_CJK = re.compile(r"(\d+(?:\.\d+)?)\s*(秒|分钟|分|小时|天)钟?后(?:再)?(?:重试|再试|尝试|试)")
_CJK_UNIT_S = {"秒": 1.0, "分钟": 60.0, "分": 60.0, "小时": 3600.0, "天": 86400.0}
# (also a proxy's `"reset_seconds": 25803`, CLIProxyAPI's credentials cooling down)
_RESETS_IN_FIELD = re.compile(r"\"(?:resets?_in|reset|reset_after)_seconds\"\s*:\s*(\d+(?:\.\d+)?)")
# Hugging Face's hosted inference: a model still loading names its wait, in JSON or in a Python repr
_ESTIMATED_FIELD = re.compile(r"[\"']estimated_time[\"']\s*:\s*(\d+(?:\.\d+)?)")
_EPOCH_SUFFIX = re.compile(r"\|(\d{10}|\d{13})(?!\d)")
_EPOCH_FIELD = re.compile(r"(?:reset|resets)(?:_at|At)?[\"']?\s*[:=]\s*[\"']?(\d{10}|\d{13})(?!\d)", re.I)
# (also access to regain on a day "at" a time: Anthropic's spend limit "You will regain access on 2026-04-01 at 00:00
# UTC", where a terminal may have wrapped the line before the date)
_ISO = re.compile(
    r"(?:reset(?:s|ting)?|until|again|retry|available|regain(?:s)? access)(?:_at|At)?[^\d\n]{0,20}(?:\n\s*)?"
    r"(\d{4}-\d{2}-\d{2}(?:[T ]|\s+at\s+)\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*(?:Z|UTC|[+-]\d{2}:?\d{2})?)",
    re.I,
)
# Chinese providers name the reset after its time (Zhipu: "您的限额将在 2026-08-25 07:41:44 重置"); read as zoneless
_ISO_CJK = re.compile(r"(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?)\s*重置")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_WALL = re.compile(
    r"(?:reset(?:s)?|try\s+again|available(?:\s+again)?|until)\s+(?:at\s+|on\s+)?"
    r"(?:(?P<mon>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?,?\s+"
    r"(?:(?P<year>\d{4}),?\s+)?(?:at\s+)?)?"
    r"(?P<h>\d{1,2})(?::(?P<min>\d{2}))?\s*(?P<ampm>[ap]\.?\s?m\.?)?"
    r"(?:\s*\(?(?P<tz>[A-Za-z]+/[A-Za-z0-9_+\-/]+|(?:UTC|GMT)[+-]\d{1,2}(?::?\d{2})?"
    r"|(?:UTC|GMT|Z|[PMCE][SD]T|CEST|CET|BST|IST|JST|AE[SD]T|NZ[SD]T)\b)\)?)?",
    re.I,
)


def _unit_seconds(value: float, unit: str) -> float:
    u = unit.lower()
    if u in ("ms", "msec", "msecs", "millis") or u.startswith("milli"):
        return value / 1000
    if u.startswith("s"):
        return value
    if u.startswith("m"):
        return value * 60
    if u.startswith("h"):
        return value * 3600
    if u.startswith("d"):
        return value * 86400
    return value * 7 * 86400


def parse_duration(text: str) -> float | None:
    """A compound duration: '6m0s', '20ms', '1.5s', '1h 12m', '2 days 3 hours 4 minutes'; a bare number is seconds."""
    text = text.strip()
    if not text:
        return None
    try:
        return _clamp(float(text))
    except ValueError:
        pass
    parts = _PART.findall(text)
    if not parts:
        return None
    return _clamp(sum(_unit_seconds(float(v), u) for v, u in parts))


# Kept for callers that read Gemini's retryDelay and OpenAI's reset headers.
parse_go_duration = parse_duration


def _clamp(seconds: float) -> float:
    """Never negative (a reset already past is now), never NaN; the horizon is applied once, by read_reset."""
    if seconds != seconds:  # NaN
        return 0.0
    return max(0.0, seconds)


def _until(when: datetime, now: datetime) -> float:
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return _clamp((when - now).total_seconds())


def parse_retry_after(value: str, now: datetime | None) -> float | None:
    """RFC 9110 Retry-After: delay-seconds or an HTTP-date (the latter needs `now`)."""
    value = value.strip()
    try:
        return _clamp(float(value))
    except ValueError:
        pass
    if now is None:
        return None
    try:
        return _until(parsedate_to_datetime(value), now)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def _epoch_or_delta(value: str, now: datetime | None) -> float | None:
    """`x-ratelimit-reset`: epoch seconds, epoch milliseconds, delta seconds, a duration, or RFC 3339."""
    value = value.strip()
    try:
        number = float(value)
    except ValueError:
        if re.fullmatch(_DURATION, value, re.I):
            return parse_duration(value)
        return _iso(value, now)
    if number > 1e9:
        if now is None:
            return None
        epoch_s = number / 1000 if number > 1e11 else number
        return _clamp(epoch_s - now.timestamp())
    return _clamp(number)


def _iso(value: str, now: datetime | None) -> float | None:
    if now is None:
        return None
    value = re.sub(r"\s+at\s+", " ", value.strip(), count=1, flags=re.I)
    value = re.sub(r"\s*(Z|UTC)$", "+00:00", value, flags=re.I).replace(" ", "T", 1)
    try:
        return _until(datetime.fromisoformat(value), now)
    except ValueError:
        return None


_RESET_HEADERS = (
    "x-ratelimit-reset-requests",
    "x-ratelimit-reset-tokens",
    "x-ratelimit-reset-requests-day",
    "x-ratelimit-reset-tokens-minute",
    "anthropic-ratelimit-requests-reset",
    "anthropic-ratelimit-tokens-reset",
    "anthropic-ratelimit-input-tokens-reset",
    "anthropic-ratelimit-output-tokens-reset",
    "x-ratelimit-reset",
    "ratelimit-reset",
    # Higress ai-token-ratelimit's seconds to its window's reset (a token_per_day rule's under its 429)
    "x-tokenratelimit-reset",
    # Kong AI Gateway's ai-rate-limiting-advanced: seconds to the tripped window's reset, and to retry
    "x-ai-ratelimit-reset",
    "x-ai-ratelimit-retry-after",
)


def reset_from_headers(headers: Mapping[str, str], now: datetime | None) -> float | None:
    h = {k.lower().strip(): v for k, v in headers.items()}
    if "retry-after-ms" in h:
        try:
            return _clamp(float(h["retry-after-ms"]) / 1000)
        except ValueError:
            pass
    if "retry-after" in h:
        parsed = parse_retry_after(h["retry-after"], now)
        if parsed is not None:
            return parsed
    found = [_epoch_or_delta(h[k], now) for k in _RESET_HEADERS if k in h]
    values = [v for v in found if v is not None]
    # Which limit tripped is not said: waiting for the latest reset is the one that surely works.
    return max(values) if values else None


# Zone abbreviations agents print (Gemini CLI formats with Intl's short zone name, e.g. "3:04 PM PST").
_ABBREVIATIONS = {
    "PST": -8.0, "PDT": -7.0, "MST": -7.0, "MDT": -6.0, "CST": -6.0, "CDT": -5.0, "EST": -5.0, "EDT": -4.0,
    "CET": 1.0, "CEST": 2.0, "BST": 1.0, "IST": 5.5, "JST": 9.0, "AEST": 10.0, "AEDT": 11.0, "NZST": 12.0,
    "NZDT": 13.0,
}  # fmt: skip


_OFFSET = re.compile(r"(?:UTC|GMT)([+-])(\d{1,2})(?::?(\d{2}))?", re.I)


def _zone(name: str | None) -> tzinfo:
    if not name or name.upper() in ("UTC", "GMT", "Z"):
        return UTC
    if m := _OFFSET.fullmatch(name):  # Gemini CLI: "Access resets at 10:57 PM GMT-3."
        minutes = int(m[2]) * 60 + int(m[3] or 0)
        return timezone(timedelta(minutes=minutes if m[1] == "+" else -minutes))
    if name.upper() in _ABBREVIATIONS:
        return timezone(timedelta(hours=_ABBREVIATIONS[name.upper()]))
    try:
        from zoneinfo import ZoneInfo

        return ZoneInfo(name)
    except Exception:  # unknown zone name or no tz database: read it as UTC rather than not at all
        return UTC


def _wall_clock(m: re.Match[str], now: datetime) -> float | None:
    hour, minute = int(m["h"]), int(m["min"] or 0)
    ampm = (m["ampm"] or "").lower().replace(".", "").replace(" ", "")
    if not ampm and m["min"] is None:
        return None  # a bare number ("reset 5") is not a time
    if ampm:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if ampm.startswith("p") else 0)
    if hour > 23 or minute > 59:
        return None
    zone = _zone(m["tz"])
    local_now = now.astimezone(zone)
    if m["mon"]:
        month = _MONTHS.index(m["mon"].lower()[:3]) + 1
        year = int(m["year"]) if m["year"] else local_now.year
        try:
            when = datetime(year, month, int(m["day"]), hour, minute, tzinfo=zone)
        except ValueError:
            return None
        if not m["year"] and when < local_now:
            when = when.replace(year=year + 1)
        return _until(when, now)
    when = local_now.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if when <= local_now:
        when += timedelta(days=1)
    return _until(when, now)


def reset_from_text(text: str | None, now: datetime | None) -> float | None:
    if not text:
        return None
    m = _RETRY_DELAY_FIELD.search(text)
    if m and (d := parse_duration(m[1])) is not None:
        return d
    m = _RESETS_IN_FIELD.search(text) or _ESTIMATED_FIELD.search(text)
    if m:
        return _clamp(float(m[1]))
    m = _RELATIVE.search(text) or _WAIT.search(text)
    if m and (d := parse_duration(m[1])) is not None:
        return d
    m = _RELATIVE_ONE.search(text)
    if m:
        return _ONE_UNIT_S[m[1].lower()]
    m = _RELATIVE_CJK.search(text)
    if m:
        return _clamp(float(m[1]) * _CJK_UNIT_S[m[2]])
    m = _RELATIVE_CLOCK.search(text)
    if m:
        days, hours, minutes, secs = (int(g) if g else 0 for g in m.groups())
        return _clamp(days * 86400.0 + hours * 3600 + minutes * 60 + secs)
    m = _RETRY_AFTER_TEXT.search(text)
    if m:
        value = float(m[1])
        return _clamp(value / 1000 if "ms" in m[0].lower() else value)
    if now is None:
        return None
    for pattern in (_EPOCH_SUFFIX, _EPOCH_FIELD):
        m = pattern.search(text)
        if m:
            return _epoch_or_delta(m[1], now)
    m = _ISO.search(text) or _ISO_CJK.search(text)
    if m:
        return _iso(m[1], now)
    for m in _WALL.finditer(text):
        seconds = _wall_clock(m, now)
        if seconds is not None:
            return seconds
    return None


def read_reset(
    text: str | None = None,
    headers: Mapping[str, str] | None = None,
    now: datetime | None = None,
    horizon_s: float = HORIZON_S,
) -> float | None:
    """Seconds from `now` until the reset the headers or the text name, capped at `horizon_s`; None if none.
    Headers come first (they are the provider's own machine-readable answer), then the text."""
    if now is not None and now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    try:
        seconds = reset_from_headers(headers or {}, now)
        if seconds is None:
            seconds = reset_from_text(text, now)
    except (OverflowError, ValueError):  # a date beyond datetime's range: nothing usable was named
        return None
    return None if seconds is None else min(horizon_s, seconds)
