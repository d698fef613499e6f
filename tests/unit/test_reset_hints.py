"""The reset-time reader: every form real agents and providers use, as a table, plus properties (hypothesis)."""

import json
import math
from datetime import UTC, datetime, timedelta, timezone
from email.utils import format_datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from routing.reset_hints import HORIZON_S, parse_duration, read_reset

NOW = datetime(2026, 1, 1, tzinfo=UTC)
H, D = 3600, 86400


@pytest.mark.parametrize(
    "text,seconds",
    [
        # durations after a retry/reset phrase
        ("Rate limit reached for gpt-4o … Please try again in 20s.", 20),
        ("Please try again in 6ms.", 0.006),
        ("Please try again in 1m30.5s.", 90.5),
        ("Please retry in 47.434392449s.", 47.434392449),
        ("Please retry after 20 seconds.", 20),
        ("Resource has been exhausted (e.g. check quota).\nSuggested retry after 38s.", 38),
        ("Your quota will reset after 8h44m7s.", 8 * H + 44 * 60 + 7),
        ("Your quota will reset after 53s.", 53),
        ("API Error (Connection error.) · Retrying in 1 seconds… (attempt 1/10)", 1),
        ("Retrying in 51s · attempt 7", 51),
        ("or try again in 5 days 22 hours 11 minutes.", 5 * D + 22 * H + 11 * 60),
        ("Try again in 3 hours 2 minutes.", 3 * H + 2 * 60),
        ("Your limit resets in 4h 32m", 4 * H + 32 * 60),
        # body fields in the text
        ('{"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay": "17s"}]}', 17),
        ('{"error":{"type":"usage_limit_reached","resets_in_seconds": 9000}}', 9000),
        # a proxy's reset field (CLIProxyAPI's credentials cooling down)
        ('{"error":{"code":"model_cooldown","reset_seconds":25803,"reset_time":"7h10m2s"}}', 25803),
        # a wait named in Chinese before the retry it asks for (WindsurfAPI's account queue)
        ("kimi-k2.5 账号队列超时: 所有可用账号暂时不可用，请 78 秒后重试", 78),
        ("请求过于频繁，请 3 分钟后再试", 180),
        # epoch suffix (Claude Code) and ISO timestamps
        ("Claude AI usage limit reached|1767229200", 3600),
        ("Claude AI usage limit reached|1749924000", 0),  # already past: now
        ("Your limit resets at 2026-01-01T05:00:00Z", 5 * H),
        # wall-clock times with and without a zone (no zone: the agent host runs in UTC)
        ("You've hit your session limit · resets 3pm (America/Bogota)", 20 * H),
        ("You've hit your session limit · resets 10:30pm (Europe/Berlin)", 21 * H + 30 * 60),
        ("You've hit your session limit · resets 2:30pm (Pacific/Auckland)", 90 * 60),
        ("Claude usage limit reached. Your limit will reset at 1pm (Etc/GMT+5).", 18 * H),
        ("5-hour limit reached ∙ resets 9pm", 21 * H),
        ("You've hit your usage limit. Try again at 3:04 PM.", 15 * H + 4 * 60),
        ("You've hit your usage limit. … or try again at Jan 3rd, 2026 6:15 PM.", 2 * D + 18 * H + 15 * 60),
        ("Usage limit reached for gemini-2.5-pro.\nAccess resets at 3:04 PM PST.", 23 * H + 4 * 60),
        ("We are currently experiencing high demand.\nAccess resets at 10:15 AM UTC.", 10 * H + 15 * 60),
        # nothing named
        ("You've hit your usage limit. Try again later.", None),
        ("wait for limits to reset (every 5h and every week.)", None),
        ("Limit 30000, Used 29000, Requested 1500.", None),
    ],
)
def test_text_forms(text, seconds):
    got = read_reset(text, None, NOW, horizon_s=math.inf)
    assert (got is None) if seconds is None else got == pytest.approx(seconds, abs=1e-6)


@pytest.mark.parametrize(
    "headers,seconds",
    [
        ({"Retry-After": "7"}, 7),
        ({"retry-after-ms": "1500"}, 1.5),
        ({"Retry-After": "Thu, 01 Jan 2026 00:00:30 GMT"}, 30),
        ({"x-ratelimit-reset-requests": "6m0s"}, 360),
        ({"x-ratelimit-reset-requests": "2m59.56s", "x-ratelimit-reset-tokens": "7.66s"}, 179.56),  # Groq
        ({"x-ratelimit-reset-tokens": "20ms"}, 0.02),
        ({"anthropic-ratelimit-requests-reset": "2026-01-01T00:00:45Z"}, 45),
        ({"X-RateLimit-Reset": str(int(NOW.timestamp() * 1000) + 12_000)}, 12),  # OpenRouter: epoch ms
        ({"x-ratelimit-reset": str(int(NOW.timestamp()) + 90)}, 90),  # epoch seconds
        ({"x-ratelimit-reset": "30"}, 30),  # delta seconds
        ({"Retry-After": "soon"}, None),
    ],
)
def test_header_forms(headers, seconds):
    got = read_reset(None, headers, NOW)
    assert (got is None) if seconds is None else got == pytest.approx(seconds)


def test_headers_win_over_text_and_everything_is_capped_at_the_horizon():
    assert read_reset("try again in 20s", {"Retry-After": "3"}, NOW) == 3
    assert read_reset("try again at Jul 5th, 2026 8:19 PM.", None, NOW) == HORIZON_S
    assert read_reset("try again at Jul 5th, 2026 8:19 PM.", None, NOW, horizon_s=math.inf) == 16_057_140
    assert HORIZON_S == 31 * D


def test_every_reset_in_the_corpus_parses_to_its_seconds():
    """Each corpus line that names a reset: the reader alone, uncapped, gives the collector's number."""
    checked = 0
    for path in sorted((Path(__file__).parent.parent / "corpus").glob("*.jsonl")):
        for raw in path.read_text(encoding="utf-8").splitlines():
            if not raw.strip():
                continue
            line = json.loads(raw)
            if line.get("retry_after_s") is None:
                continue
            signal = line["signal"]
            text = " ".join(t for t in (signal.get("error_text"), signal.get("body")) if t)
            got = read_reset(text, signal.get("headers") or {}, NOW, horizon_s=math.inf)
            assert got is not None and abs(got - line["retry_after_s"]) <= 1, line["id"]
            checked += 1
    assert checked > 0


def test_a_wait_named_with_no_preposition_is_read():
    assert read_reset("Please wait 10 hours 58 minutes before trying again.", {}, NOW) == 10 * 3600 + 58 * 60


def test_a_clock_style_duration_after_a_reset_phrase_is_read():
    # Hugging Face ZeroGPU's h:mm:ss and Azure API Management's .NET TimeSpan d.hh:mm:ss; no clock time of day
    assert read_reset("Sign-up on Hugging Face to get more quotas or retry in 0:09:48.", {}, NOW) == 9 * 60 + 48
    assert read_reset("Quota will be replenished in 5.03:23:11.", {}, NOW) == 5 * 86400 + 3 * 3600 + 23 * 60 + 11


def test_a_chinese_reset_stamp_is_read_as_a_zoneless_time():
    assert read_reset("您的限额将在 2026-01-01 05:00:00 重置。", {}, NOW) == 5 * 3600


def test_needs_now_for_clock_forms_only():
    assert read_reset("resets 3pm (America/Bogota)", None, None) is None
    assert read_reset("try again in 20s", None, None) == 20


# --- properties ---------------------------------------------------------------------------------------------

components = st.tuples(st.integers(0, 6), st.integers(0, 23), st.integers(0, 59), st.integers(0, 59))


@settings(max_examples=300, deadline=None)
@given(components, st.sampled_from(["words", "go", "short"]), st.sampled_from(["try again in", "reset after"]))
def test_compound_durations_add_up(parts, style, phrase):
    d, h, m, s = parts
    if d == h == m == s == 0:
        s = 1
    names = ("days", "hours", "minutes", "seconds") if style == "words" else ("d", "h", "m", "s")
    sep = " " if style in ("words", "short") else ""
    pieces = [f"{v}{' ' if style == 'words' else ''}{n}" for v, n in zip((d, h, m, s), names, strict=True) if v]
    got = read_reset(f"Please {phrase} {sep.join(pieces)}.", None, NOW, horizon_s=math.inf)
    assert got == d * D + h * H + m * 60 + s


@settings(max_examples=200, deadline=None)
@given(st.floats(0, 10_000, allow_nan=False).map(lambda x: round(x, 3)))
def test_fractional_seconds(value):
    assert read_reset(f"Please retry in {value}s.", None, NOW) == pytest.approx(value)
    assert parse_duration(f"{value}s") == pytest.approx(value)


zones = st.sampled_from(["UTC", "America/Bogota", "Europe/Berlin", "Asia/Tokyo", "Pacific/Auckland", "Asia/Kolkata"])


@settings(max_examples=300, deadline=None)
@given(
    st.datetimes(min_value=datetime(2025, 1, 1), max_value=datetime(2030, 1, 1)).map(
        lambda d: d.replace(second=0, microsecond=0, tzinfo=UTC)
    ),
    st.integers(1, 23 * 60),
    zones,
)
def test_wall_clock_with_zone_is_its_next_occurrence(now, minutes_ahead, zone):
    target = (now + timedelta(minutes=minutes_ahead)).astimezone(ZoneInfo(zone))
    clock = target.strftime("%I:%M%p").lstrip("0").lower()
    got = read_reset(f"You've hit your session limit · resets {clock} ({zone})", None, now)
    # a DST change between now and the target shifts the wall clock by its offset; otherwise exact
    assert got is not None
    off = abs(got - minutes_ahead * 60)
    assert off < 1 or abs(off - 3600) < 1


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 40 * D))
def test_epochs_and_timestamps_are_seconds_from_now(delta):
    when = NOW + timedelta(seconds=delta)
    expected = min(delta, HORIZON_S)
    assert read_reset(f"Claude AI usage limit reached|{int(when.timestamp())}", None, NOW) == expected
    assert read_reset(f"resets at {when.isoformat()}", None, NOW) == expected
    assert read_reset(None, {"Retry-After": format_datetime(when, usegmt=True)}, NOW) == expected
    assert read_reset(None, {"x-ratelimit-reset": str(int(when.timestamp() * 1000))}, NOW) == expected


@settings(max_examples=500, deadline=None)
@given(
    st.one_of(st.none(), st.text(max_size=300)),
    st.dictionaries(
        st.sampled_from(["retry-after", "x-ratelimit-reset", "retry-after-ms", "ratelimit-reset"]), st.text(max_size=40)
    ),
)
def test_never_raises_and_stays_within_the_horizon(text, headers):
    got = read_reset(text, headers, NOW)
    assert got is None or 0 <= got <= HORIZON_S


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 10_000), st.integers(1, 10_000))
def test_a_later_reset_is_never_read_as_sooner(a, b):
    lo, hi = sorted((a, b))
    assert read_reset(f"try again in {lo} minutes", None, NOW) <= read_reset(f"try again in {hi} minutes", None, NOW)


@pytest.mark.parametrize(
    "text,seconds",
    [
        # a hosted model still loading names its wait (Hugging Face), in JSON and in a Python repr
        ('{"error":"Model x/y is currently loading","estimated_time":20.0}', 20),
        ("[{'error': 'Model x/y is currently loading', 'estimated_time': 35.6677131652832}]", 35.6677131652832),
        # a numeric UTC/GMT offset after a wall-clock time (Gemini CLI)
        ("Access resets at 10:57 PM GMT-3.", 1 * H + 57 * 60),
        ("resets at 9:30 AM UTC+5:30", 4 * H),
        ("resets 11pm GMT+1", 22 * H),
    ],
)
def test_estimated_waits_and_numeric_offsets(text, seconds):
    assert read_reset(text, now=NOW) == pytest.approx(seconds)


@settings(max_examples=200, deadline=None)
@given(st.integers(-12, 14), st.integers(0, 23), st.integers(0, 59))
def test_a_numeric_offset_is_the_zone_it_names(offset, hour, minute):
    zone = timezone(timedelta(hours=offset))
    when = NOW.astimezone(zone).replace(hour=hour, minute=minute, second=0)
    if when <= NOW:
        when += timedelta(days=1)
    text = f"resets at {hour:02d}:{minute:02d} GMT{offset:+d}"
    assert read_reset(text, now=NOW) == pytest.approx((when - NOW).total_seconds())
