"""A failure class read from its vocabulary: the classifier's former second stage.

The classifier no longer consults it: routing/learned.py (a naive Bayes reading of the decision class) replaced it,
deciding about three times as many lines at higher precision when each family is left out (scripts/second_stage_cv.py).
Its tokenisation (`words`, `signal_text`) is the learned stage's; `build` and `read` stay as the baseline that script
and scripts/lexicon_cv.py measure, on tables they build from the corpus (no table is committed: nothing reads one).

Every rule reads a wording; a wording nobody wrote a rule for is `unknown` (fail closed). This stage reads the words
of the training corpus instead: a word is a *signal* of a code when at least MIN_LINES training lines of that code use
it, from at least MIN_FAMILIES families (one tool's boilerplate is no class's word), and at least MIN_PRECISION of
all training lines that use it have that code (so common words, and words two classes share, are never signals). A
text is decided only when it carries at least MIN_SIGNALS independent signals of one code (consecutive signal words,
"rate limit", count once) and more than of any other code; otherwise it stays `unknown`. A text with any transient
signal is never read as a code that fails the run. The second stage ranks below every rule, status and window
reading, so it only ever speaks where the classifier would have said nothing.
"""

import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from routing.codes import ErrorCode

MIN_LINES = 2  # training lines of the code that use the word
MIN_FAMILIES = 2  # ... from that many families (providers, agents) at least: one tool's boilerplate is no signal
MIN_PRECISION = 0.75  # share of the training lines using the word that have the code
MIN_SIGNALS = 2  # independent signals before anything is decided
MARGIN = 1  # the winner's signals minus any other code's, at least

# Codes whose decision ends the run (as `unknown` does): reading them changes the message, not the outcome.
FAILING = frozenset(
    {ErrorCode.content_policy, ErrorCode.context_length_exceeded, ErrorCode.invalid_request, ErrorCode.unknown}
)
TRANSIENT = frozenset(
    {
        ErrorCode.network_unavailable,
        ErrorCode.provider_unavailable,
        ErrorCode.timeout,
        ErrorCode.stream_truncated,
        ErrorCode.provider_overloaded,
        ErrorCode.model_capacity,
    }
)
# Never read from words alone: the office's own findings and configuration faults have structured signals.
NOT_READ = frozenset({ErrorCode.unknown})

_CJK_RANGE = "\u3040-\u30ff\u4e00-\u9fff"
# Marks that belong inside a word of their script (Python's \w leaves them out): combining diacritics, Cyrillic,
# Hebrew, Devanagari and Thai signs. Arabic's vowel marks are dropped instead: interfaces write them inconsistently.
_MARKS = (
    "\u0300-\u036f\u0483-\u0489\u0591-\u05c7"  # combining diacritics, Cyrillic, Hebrew
    "\u0900-\u0903\u093a-\u094f\u0951-\u0957\u0962\u0963"  # Devanagari
    "\u0e31\u0e34-\u0e3a\u0e47-\u0e4e"  # Thai
)
_ARABIC_VOWELS = re.compile("[\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed]")
_TOKEN = re.compile(f"[{_CJK_RANGE}]+|(?:[^\\W\\d_{_CJK_RANGE}]|[{_MARKS}])+")
_ASCII_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_CJK = re.compile(f"[{_CJK_RANGE}]")


def words(text: str) -> list[str]:
    """Words as signals, in any script: an ASCII word's camelCase and snake_case split (`ServiceUnavailableError` is
    three words), lower-cased, a plural `s` dropped; a CJK run read as its character pairs; a word of any other
    script (accented Latin, Cyrillic, Arabic, Vietnamese ...) kept whole, so a translated failure is read by its own
    words rather than by the ASCII fragments between its letters."""
    out: list[str] = []
    for token in _TOKEN.findall(_ARABIC_VOWELS.sub("", unicodedata.normalize("NFC", text))):
        if _CJK.match(token):
            out += [token[i : i + 2] for i in range(max(1, len(token) - 1))]
            continue
        for w in _ASCII_WORD.findall(token) if token.isascii() else [token]:
            w = w.lower()
            if len(w) < 3:
                out.append("")  # a break between signals
                continue
            if len(w) > 4 and w.endswith("s") and not w.endswith("ss"):
                w = w[:-1]
            out.append(w)
    return out


def signal_text(signal: Mapping[str, Any]) -> str:
    """The text a signal's words are read from: what the agent printed, the body, the exception's type."""
    return " ".join(str(signal.get(k) or "") for k in ("error_text", "body", "exception_type"))


def build(lines: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """word → code, from training lines (corpus line format: `signal`, `codes`; the first code is the line's)."""
    by_code: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    families: dict[tuple[str, str], set[str]] = defaultdict(set)
    total: dict[str, int] = defaultdict(int)
    for line in lines:
        for w in {w for w in words(signal_text(line["signal"])) if w}:
            total[w] += 1
            for code in line["codes"]:
                by_code[w][code] += 1
                families[(w, code)].add(str(line.get("family", "")))
    table: dict[str, str] = {}
    for w, counts in by_code.items():
        code, n = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
        if code in NOT_READ:
            continue
        if n >= MIN_LINES and len(families[(w, code)]) >= MIN_FAMILIES and n / total[w] >= MIN_PRECISION:
            table[w] = code
    return dict(sorted(table.items()))


@dataclass(frozen=True)
class Reading:
    code: ErrorCode
    signals: tuple[str, ...]  # one word per independent signal


def read(text: str, table: Mapping[str, str]) -> Reading | None:
    """The code the text's signals name, or None (stays `unknown`)."""
    runs: dict[str, list[str]] = defaultdict(list)
    previous: str | None = None
    for w in words(text):
        code = table.get(w) if w else None
        if code is not None and code != previous:  # consecutive words of one code are one signal
            runs[code].append(w)
        previous = code
    distinct = {c: tuple(dict.fromkeys(ws)) for c, ws in runs.items()}
    if not distinct:
        return None
    ranked = sorted(distinct.items(), key=lambda kv: len(kv[1]), reverse=True)
    code_name, signals = ranked[0]
    runner_up = len(ranked[1][1]) if len(ranked) > 1 else 0
    code = ErrorCode(code_name)
    if len(signals) < MIN_SIGNALS or len(signals) - runner_up < MARGIN:
        return None
    if code in FAILING and any(ErrorCode(c) in TRANSIENT for c in distinct):
        return None  # a transient word beside it: never fail a run from words alone
    return Reading(code, signals)
