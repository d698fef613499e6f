"""The window a limit counts over, read as data: it decides between a short retry and a wait or a fallback.

A rate limit whose window is an hour or longer (per hour, 5 hours, per day, week, month) never resets within a short
retry: it is a quota, whatever the provider calls it. A single request larger than the whole budget of its window
(`Limit 6000, Requested 12328`) never fits it: no wait helps, the next provider might.
"""

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Window:
    name: str
    pattern: re.Pattern[str]
    seconds: float


def _window(name: str, pattern: str, seconds: float) -> Window:
    return Window(name, re.compile(pattern, re.I), seconds)


# Longest first: a text naming several windows is limited by the longest it has exhausted. A window word inside an
# identifier counts (LMArena's `USER_DAILY_LIMIT`): the underscore joins words, it does not change the window.
WINDOWS: tuple[Window, ...] = (
    _window("month", r"per[ _-]?(?:1 |one )?month|/\s?month\b|(?<![a-z])monthly(?![a-z])|\b30[- ]day\b", 30 * 86400.0),
    _window("week", r"per[ _-]?(?:1 |one )?week|(?<![a-z])weekly(?![a-z])|\b7[- ]day\b", 7 * 86400.0),
    _window(
        "day",
        r"per[ _-]?(?:1 |one )?day(?![a-oq-z])|\b[RT]PD\b|(?<![a-z])daily(?![a-z])|\b24[- ]hours?\b|-per-day\b"
        r"|\btomorrow\b|每[天日]|今日|\btoday['’]s\b|/\s?day\b"
        # (a limit counted over the day in words: Papermark "You have reached your request limit for the day")
        r"|\blimit (?:for|of) (?:the|this|a) day\b"
        # (today's allowance in Chinese: Trae "AI问答今日用量已达上限")
        # a wait of days named without a number ("try again in a few days")
        r"|\b(?:in|after|for) (?:a few|several|a couple of) days\b"
        # a limit that resets on a calendar date ("Your credit limit resets on February 21.")
        r"|\bresets? on (?:(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.? \d{1,2}|\d{4}-\d{2}-\d{2})\b"
        # (a reset at the next midnight, dated: WSO2 API Manager's 900804 "You can access API after 2026-Dec-04
        # 00:00:00+0000 UTC", a `resets_at` of "2026-12-04T00:00:00Z": a calendar day's allowance)
        r"|\b(?:resets?(?:_at)?|after|until)\W{0,8}\d{4}-(?:\d{2}|[A-Za-z]{3})-\d{2}[ T]00:00(?::00)?(?:\.0+)?"
        r"(?:Z|\s?[+-]00:?00| ?UTC|\b)",
        86400.0,
    ),
    _window("5h", r"\b5[- ]hours?\b(?! \d)|\bfive[- ]hour\b|\b5\s*个?小时", 5 * 3600.0),
    # (and a wait of hours named without a number: Brave Leo "Please try again in a few hours")
    _window(
        "hour",
        r"per[ _-]?(?:1 |one )?hour(?![a-oq-z])|\b[RT]PH\b|(?<![a-z])hourly(?![a-z])"
        r"|\b(?:in|after|for) (?:a few|several|a couple of) hours\b"
        # (a wait of about an hour in words: ngrok's ERR_NGROK_3162 "Try again in about an hour.")
        r"|\b(?:in|after|for) (?:about|around|roughly|approximately) (?:an|one|1) hours?\b"
        # (a limit counted over the hour in words: "You have reached your request limit for the hour")
        r"|\blimit (?:for|of) (?:the|this|an?) hour\b"
        # (a count over an hour: ChatGPT "Too many requests in 1 hour. Try again later.")
        r"|\b(?:requests|messages|prompts|queries|calls) in (?:1|one|an?) hour\b",
        3600.0,
    ),
    _window("minute", r"per[ _-]?(?:minute|min\b)|\b[RT]PM\b|/min\b", 60.0),
)

# An allowance counted over the day or this month, named by what it counts ("No more generations left for the day",
# "You've used all of your chat messages for today", "You have used your free requests for this month", "Too many
# uploads in 1 day"): weaker than a window named as a rate, so a per-minute limit that also reports what is left "for
# today" is still the minute's, and never read where the text asks for a retry within seconds.
COUNTED_WORDS = r"(?:requests|messages|prompts|queries|calls|uploads|generations)"
ALLOWANCE_WINDOWS: tuple[Window, ...] = (
    _window("month", r"\bfor this month\b|\b(?:used|sent|made) this month\b", 30 * 86400.0),
    _window("day", rf"\bfor (?:the|this) day\b|\bfor today\b|\b{COUNTED_WORDS} in (?:1|one|a) day\b", 86400.0),
)

# A limit said to be reached, exceeded or used up (LIMIT_SPENT and ALLOWANCE_SPENT below)
_LIMIT_SPENT_WORDS = (
    r"\b(?:limit|cap|quota|allowance)\b[^.\n]{0,60}\b(?:exceeded|reached|hit|used up)\b"
    r"|\b(?:exceeded|reached|hit)\b[^.\n]{0,30}\blimit\b"
)
# An allowance counts as a window only where the text says it is spent ("No more generations left for the day", "You
# have used your free requests for this month", "Too many uploads in 1 day"), never where it only reports a count
# ("429 Too Many Requests: slow down. Requests used this month: 1,204 of 50,000").
ALLOWANCE_SPENT = re.compile(
    rf"{_LIMIT_SPENT_WORDS}|\bno more \w+ left\b|\b(?:have|has|'ve|’ve) used\b"
    rf"|\btoo many {COUNTED_WORDS} in (?:1|one|a) day\b",
    re.I,
)

# A window named by its length in numbers ("a cap of 40 messages per 60 minutes", "every 3 hours"): as long as the
# numbers say, whatever unit names them. Not a wait ("try again in 60 minutes"), which the reset reader reads.
# (or as a duration written short, in Go's and a config file's way: Bifrost "request limit exceeded (5000/5000, resets
# every 1w)", "resets every 1d"; the one-letter units are lower case only, so "per 1M tokens" is no window)
NUMBERED_WINDOW = re.compile(
    r"\b(?:per|every|each|over (?:the )?(?:last |past )?)\s*(\d+)\s*(minutes?|mins?|hours?|hrs?|days?|weeks?"
    r"|(?-i:[mhdw]))\b",
    re.I,
)
_UNIT_S = {"m": 60.0, "h": 3600.0, "d": 86400.0, "w": 7 * 86400.0}

# A window named with what it has counted against its limit ("Minute limit: 1840 / 100000 tokens. Day limit: 2000417
# / 2000000 tokens.", AI DIAL): only a window whose count has reached its limit is the one that refused.
COUNTED_WINDOW = re.compile(r"\b(minute|hour|day|week|month)(?:ly)? limit\W{0,3}(\d[\d,]*)\s?/\s?(\d[\d,]*)\b", re.I)
# (and the count before its window: "Groq usage: 20/20 per min, 156/300 per hour, 1230/12,000 per day"; never what is
# left, "Remaining: 300/300 per day")
COUNT_PER_WINDOW = re.compile(
    r"(?<!remaining: )(?<!remaining )(?<!left: )\b(\d[\d,]*)\s?/\s?(\d[\d,]*)\s"
    r"(?:(?:requests|tokens|messages|calls)\s)?per\s(min(?:ute)?|hour|day|week|month)\b",
    re.I,
)
_COUNTED_S = {"minute": 60.0, "hour": 3600.0, "day": 86400.0, "week": 7 * 86400.0, "month": 30 * 86400.0}

# From this long a window is a quota: nothing a short retry waits for resets it.
LONG_WINDOW_S = 3600.0

# `Limit 6000, Requested 12328` (OpenAI, Groq) and `limit: 6000 … requested: 12328`: the request alone is over budget.
BUDGET = re.compile(r"\blimit\W{0,3}(\d[\d,]*)\W{1,4}(?:used\W{0,3}\d[\d,]*\W{1,4})?requested\W{0,3}(\d[\d,]*)", re.I)


# A limit said to be spent, in any words: with a window of an hour or longer named, it is a quota even when no
# rate-limit wording names it ("Token limit (500,000 per day) exceeded").
LIMIT_SPENT = re.compile(
    rf"{_LIMIT_SPENT_WORDS}|\blimited to [\d,]+\b"
    # (too many of something over a window: "Too many uploads in 1 day")
    rf"|\btoo many {COUNTED_WORDS} in (?:1|one|an?) (?:hour|day|week|month)\b",
    re.I,
)


# OpenAI states what the window has used beside its budget ("Limit: 150000 / min. Current: 0 / min."): a request
# refused with nothing used yet is larger than the whole budget by itself.
# (older replies print both with six decimals: "Limit: 40000.000000 / min. Current: 0.000000 / min.")
NOTHING_USED = re.compile(
    r"\blimit\W{0,3}\d[\d,]*(?:\.\d+)?\s?/\s?\w+\W{1,4}(?:current|used)\W{0,3}0(?:\.0+)?\s?/", re.I
)


# xAI states a limit as what the window holds so far against its budget ("Tokens per Minute (actual/limit):
# 65605/16000"): more than twice the budget means this one request alone is larger than all of it (what came before
# it was admitted, so it was at most the budget).
ACTUAL_OVER_LIMIT = re.compile(r"\(actual/limit\)\W{0,3}(\d[\d,]*)\s?/\s?(\d[\d,]*)", re.I)


def _numbered(text: str) -> Window | None:
    """The longest window the text names in numbers, named after the longest named window it covers."""
    seconds = max((int(m[1]) * _UNIT_S[m[2][0].lower()] for m in NUMBERED_WINDOW.finditer(text)), default=0.0)
    if not seconds:
        return None
    name = next((w.name for w in WINDOWS if w.seconds <= seconds), "minute")
    return Window(name, NUMBERED_WINDOW, seconds)


def _count(digits: str) -> int:
    return int(digits.replace(",", ""))


def _unit(word: str) -> str:
    """A window's name in _COUNTED_S ("min" is the minute's)."""
    return "minute" if word.lower().startswith("min") else word.lower()


def _counted(text: str) -> Window | None:
    """The longest window whose count, stated beside its limit, has reached that limit."""
    spent = [m[1].lower() for m in COUNTED_WINDOW.finditer(text) if _count(m[2]) >= _count(m[3])]
    spent += [_unit(m[3]) for m in COUNT_PER_WINDOW.finditer(text) if _count(m[1]) >= _count(m[2])]
    if not spent:
        return None
    name = max(spent, key=_COUNTED_S.__getitem__)
    return Window(name, COUNTED_WINDOW, _COUNTED_S[name])


def window_of(text: str) -> Window | None:
    """The longest limit window the text names, in words or in numbers, or has counted to its limit, if any; an
    allowance counted in words only where no window is named otherwise. Where the text counts what each window has
    used against its limit ("20/20 per min, 156/300 per day"), the full one decides: a day counted short of its limit
    refused nothing."""
    counted = _counted(text)
    if counted is not None and COUNT_PER_WINDOW.search(text):
        return counted
    named = next((w for w in WINDOWS if w.pattern.search(text)), None)
    found = [w for w in (named, _numbered(text), counted) if w is not None]
    # the first of equals wins: a named window before a numbered one, as before
    if found:
        return max(found, key=lambda w: w.seconds)
    return allowance_of(text)


def allowance_of(text: str) -> Window | None:
    """The allowance the text counts over the day or this month and says is spent, if any (ALLOWANCE_WINDOWS)."""
    if not ALLOWANCE_SPENT.search(text):
        return None
    return next((w for w in ALLOWANCE_WINDOWS if w.pattern.search(text)), None)


def over_budget(text: str) -> bool:
    """The text says one request needs more than the whole limit of its window."""
    if NOTHING_USED.search(text):
        return True
    m = BUDGET.search(text)
    if m is not None and _count(m[2]) > _count(m[1]):
        return True
    held = ACTUAL_OVER_LIMIT.search(text)
    return held is not None and _count(held[1]) > 2 * _count(held[2])
