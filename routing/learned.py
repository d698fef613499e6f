"""The classifier's second stage: what a run should do, read from the words of a failure no rule matched.

A naive Bayes model over word unigrams and bigrams (routing.lexicon.words tokenisation), counted on the training
corpus (tests/corpus/). It first reads the DECISION CLASS (short retry, fall back, fail: the codes of each summed),
and speaks only when that class's posterior odds reach e^4 (98 %) and more for a longer text (naive Bayes is surer
with every word it reads than it is right to be: e^0.1 more per word or pair read); then names the code of that
class the words make likeliest. A word or word pair counts only when lines of at least MIN_FAMILIES families
(providers, agents) use it, so one tool's boilerplate is no evidence. A failing class is never read beside a
transient word (one three quarters of whose lines are transient ones): a blip must not end the run from words
alone. The second stage ranks below every rule, status and window reading, so it only ever speaks where the
classifier would have said nothing.

The thresholds were chosen by leave-one-family-out cross-validation on the training corpus (scripts/second_stage_cv.py,
each family's lines read with counts from every other family's, as if no rule existed): at these settings 61 % of
the lines are decided, 96.4 % of them to the right decision (the word table this stage replaces, routing/lexicon.py:
19 %, 93.4 %).

The counts are data (routing/rules/learned_counts.py), built from tests/corpus/ by `python -m scripts.build_learned`;
tests/unit/test_learned.py checks they are the ones the corpus builds.
"""

import itertools
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from routing.codes import ErrorClass, ErrorCode, class_of
from routing.lexicon import signal_text, words
from routing.rules.learned_counts import COUNTS, DOCS

ALPHA = 0.5  # additive smoothing of every count
MIN_FAMILIES = 2  # a word (or pair) counts only when lines of that many families use it
# The decision class's posterior odds before anything is decided, e^(MIN_LOG_ODDS + LOG_ODDS_PER_FEATURE * features
# read): naive Bayes grows more sure with every word it reads, more than it is right to, so a long text must be surer.
MIN_LOG_ODDS = 4.0
LOG_ODDS_PER_FEATURE = 0.1
TRANSIENT_SHARE = 0.75  # a word this share of whose lines are transient is a transient word: never read as failing

SHORT_RETRY, FALLBACK, FAIL = "short_retry", "fallback", "fail"
_DECISION_OF_CLASS = {
    ErrorClass.transient: SHORT_RETRY,
    ErrorClass.infrastructure: SHORT_RETRY,
    ErrorClass.user_action: FALLBACK,
    ErrorClass.model: FALLBACK,
    ErrorClass.quota: FALLBACK,
    ErrorClass.terminal: FAIL,
    ErrorClass.unclassified: FAIL,
}
# Never read from words alone (and never counted): the office's own findings have structured signals.
NOT_READ = frozenset({ErrorCode.unknown})


def decision_of(code: str) -> str:
    """What a first failure of an office run with another provider eligible does with the code."""
    return _DECISION_OF_CLASS[class_of(ErrorCode(code))]


def features(text: str) -> set[str]:
    """Words and consecutive word pairs (a break, a short word, stops a pair)."""
    ws = words(text)
    return {w for w in ws if w} | {f"{a} {b}" for a, b in itertools.pairwise(ws) if a and b}


Counts = dict[str, dict[str, int]]


def build(lines: Iterable[Mapping[str, Any]]) -> tuple[dict[str, int], Counts]:
    """(lines per code, feature → code → lines using it) from training lines (corpus line format: `signal`, `codes`;
    the line's code is the first it accepts that is read from words), keeping the features lines of MIN_FAMILIES
    families use."""
    docs: dict[str, int] = defaultdict(int)
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    families: dict[str, set[str]] = defaultdict(set)
    for line in lines:
        code = next((c for c in line["codes"] if ErrorCode(c) not in NOT_READ), None)
        if code is None:
            continue
        docs[code] += 1
        for f in features(signal_text(line["signal"])):
            counts[f][code] += 1
            families[f].add(str(line.get("family", "")))
    kept = {f: dict(sorted(by_code.items())) for f, by_code in counts.items() if len(families[f]) >= MIN_FAMILIES}
    return dict(sorted(docs.items())), dict(sorted(kept.items()))


@dataclass(frozen=True)
class Model:
    """The counts with what every reading needs summed once: per code, and per decision class (its codes' sums)."""

    docs: Mapping[str, int]
    counts: Counts
    totals: Mapping[str, int]  # feature occurrences per code
    group_counts: Counts  # feature → decision class → lines
    group_docs: Mapping[str, int]
    group_totals: Mapping[str, int]


def model(docs: Mapping[str, int], counts: Counts) -> Model:
    totals: dict[str, int] = defaultdict(int)
    group_counts: dict[str, dict[str, int]] = {}
    for f, by_code in counts.items():
        grouped: dict[str, int] = defaultdict(int)
        for code, n in by_code.items():
            totals[code] += n
            grouped[decision_of(code)] += n
        group_counts[f] = dict(grouped)
    group_docs: dict[str, int] = defaultdict(int)
    group_totals: dict[str, int] = defaultdict(int)
    for code, n in docs.items():
        group_docs[decision_of(code)] += n
        group_totals[decision_of(code)] += totals[code]
    return Model(dict(docs), counts, dict(totals), group_counts, dict(group_docs), dict(group_totals))


def _log_posteriors(
    feats: Iterable[str], docs: Mapping[str, int], counts: Counts, totals: Mapping[str, int], vocab: int
) -> dict[str, float]:
    n_docs = sum(docs.values())
    logp = {label: math.log(n / n_docs) for label, n in docs.items() if n}
    for f in feats:
        by_label = counts[f]
        for label in logp:
            logp[label] += math.log((by_label.get(label, 0) + ALPHA) / (totals.get(label, 0) + ALPHA * vocab))
    return logp


def _normalised(logp: Mapping[str, float]) -> dict[str, float]:
    top = max(logp.values())
    z = sum(math.exp(v - top) for v in logp.values())
    return {label: math.exp(v - top) / z for label, v in logp.items()}


@dataclass(frozen=True)
class Reading:
    code: ErrorCode
    decision: str  # short_retry, fallback or fail
    probability: float  # the decision class's posterior
    words: tuple[str, ...]  # the words (or pairs) that weighed most towards the decision class


def read(text: str, m: Model) -> Reading | None:
    """The decision class and code the text's words make likeliest, or None (stays `unknown`)."""
    feats = sorted(f for f in features(text) if f in m.counts)
    if not feats:
        return None
    vocab = len(m.counts)
    groups = _normalised(_log_posteriors(feats, m.group_docs, m.group_counts, m.group_totals, vocab))
    group, p = max(groups.items(), key=lambda kv: kv[1])
    if p < 1.0 and math.log(p / (1.0 - p)) < MIN_LOG_ODDS + LOG_ODDS_PER_FEATURE * len(feats):
        return None
    if group == FAIL and any(_transient_word(m.group_counts[f]) for f in feats):
        return None  # a transient word beside it: never fail a run from words alone
    codes = _log_posteriors(
        feats, {c: n for c, n in m.docs.items() if decision_of(c) == group}, m.counts, m.totals, vocab
    )
    code = max(codes.items(), key=lambda kv: (kv[1], kv[0]))[0]
    return Reading(ErrorCode(code), group, p, _weightiest(feats, group, m, vocab))


def _transient_word(by_group: Mapping[str, int]) -> bool:
    """A word TRANSIENT_SHARE of whose lines (two at least) are transient ones."""
    n = by_group.get(SHORT_RETRY, 0)
    return n >= 2 and n >= TRANSIENT_SHARE * sum(by_group.values())


def _weightiest(feats: list[str], group: str, m: Model, vocab: int, keep: int = 4) -> tuple[str, ...]:
    """The features whose likelihood most favours `group` over the other classes together."""
    rest_total = sum(t for g, t in m.group_totals.items() if g != group)
    own_total = m.group_totals.get(group, 0)

    def weight(f: str) -> float:
        by_group = m.group_counts[f]
        own = by_group.get(group, 0)
        rest = sum(by_group.values()) - own
        return math.log((own + ALPHA) / (own_total + ALPHA * vocab)) - math.log(
            (rest + ALPHA) / (rest_total + ALPHA * vocab)
        )

    ranked = sorted(((weight(f), f) for f in feats), key=lambda wf: (-wf[0], wf[1]))
    return tuple(f for w, f in ranked[:keep] if w > 0)


MODEL: Model = model(DOCS, COUNTS)
