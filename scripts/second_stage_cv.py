"""Could a learned second stage decide unmatched failure texts at high precision? Measured on the training corpus
alone, leave one family out (each family's lines read by a model built from every other family's lines), as if no
rule existed (every training line is matched by rules today). Never run on a held-out set.

    .venv/bin/python -m scripts.second_stage_cv [--json]

Variants:
  lexicon   the word table of routing/lexicon.py at the settings of scripts/lexicon_cv.py's grid (current and
            relaxed ones);
  nb-code   multinomial naive Bayes over word unigrams and bigrams (routing.lexicon.words tokenisation), predicting
            the error code, decided only when the top posterior exceeds a threshold;
  nb-dec    the same predicting the decision class (short_retry / fallback / fail; `dec4` splits quota off fallback);
  learned   routing/learned.py as implemented (the decision class by naive Bayes, gated by posterior odds that grow
            with the features read; the code the likeliest of that class), at its settings and neighbours, alone
            and with the lexicon where it says nothing.

Per variant and threshold: lines decided, code right (code variants), decision right, their precisions, net (right
minus wrong, at the decision level), the two costly kinds of wrong (transient read as failing; failing read as
transient), and `acts`: decided lines whose decision is not `fail` (a `fail` read changes the message, not the
outcome, since `unknown` fails too)."""

import argparse
import functools
import json
import math
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

import routing.learned as learned
import routing.lexicon as stage
from routing.codes import ErrorClass, ErrorCode, class_of
from testkit.corpus import corpus_lines

# The decision a code leads to on a first failure of an office run with another provider eligible.
DECISION_OF_CLASS = {
    ErrorClass.transient: "short_retry",
    ErrorClass.user_action: "fallback",
    ErrorClass.model: "fallback",
    ErrorClass.quota: "fallback",
    ErrorClass.terminal: "fail",
    ErrorClass.unclassified: "fail",
    ErrorClass.infrastructure: "short_retry",
}


def decision(code: str) -> str:
    return DECISION_OF_CLASS[class_of(ErrorCode(code))]


def decision4(code: str) -> str:
    """Quota apart from the other fallbacks (its reset may make it a wait)."""
    return "quota" if class_of(ErrorCode(code)) is ErrorClass.quota else decision(code)


class Tally:
    def __init__(self) -> None:
        self.lines = self.decided = self.code_right = self.dec_right = self.acts = self.acts_right = 0
        self.transient_as_failing = self.failing_as_transient = 0
        self.wrong: Counter[tuple[str, str]] = Counter()

    def add(self, line: Mapping[str, Any], code: str | None, dec: str | None) -> None:
        """`code` when the variant names one; `dec` its decision (or the decision class it predicted)."""
        self.lines += 1
        if dec is None:
            return
        self.decided += 1
        accepted = {decision(c) for c in line["codes"]}
        if code is not None:
            self.code_right += code in line["codes"]
        right = dec in accepted or (dec == "quota" and "fallback" in accepted)
        self.dec_right += right
        if dec != "fail":
            self.acts += 1
            self.acts_right += right
        if not right:
            truth = decision(line["codes"][0])
            self.wrong[(truth, dec)] += 1
            if dec == "fail" and "short_retry" in accepted:
                self.transient_as_failing += 1
            if dec == "short_retry" and "fail" in accepted:
                self.failing_as_transient += 1

    def row(self, **setting: Any) -> dict[str, Any]:
        def p(n: int) -> float | None:
            return round(n / self.decided, 3) if self.decided else None

        return {
            **setting,
            "lines": self.lines,
            "decided": self.decided,
            "coverage": round(self.decided / self.lines, 3),
            "code_precision": p(self.code_right) if setting.get("codes", True) else None,
            "decision_precision": p(self.dec_right),
            "net": self.dec_right - (self.decided - self.dec_right),
            "acts": self.acts,
            "acts_precision": round(self.acts_right / self.acts, 3) if self.acts else None,
            "transient_as_failing": self.transient_as_failing,
            "failing_as_transient": self.failing_as_transient,
            "wrong": {f"{a}->{b}": n for (a, b), n in self.wrong.most_common()},
        }


def by_family(lines: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in lines:
        out[str(line.get("family", ""))].append(line)
    return out


# ---------------------------------------------------------------------------------------------------------- lexicon

LEXICON_SETTINGS: list[dict[str, Any]] = [
    {"MIN_SIGNALS": 2, "MIN_PRECISION": 0.75, "MIN_LINES": 2, "MIN_FAMILIES": 2, "MARGIN": 1},  # current
    {"MIN_SIGNALS": 1, "MIN_PRECISION": 0.5, "MIN_LINES": 3, "MIN_FAMILIES": 1, "MARGIN": 1},  # grid's best net
    {"MIN_SIGNALS": 1, "MIN_PRECISION": 0.7, "MIN_LINES": 3, "MIN_FAMILIES": 1, "MARGIN": 1},
    {"MIN_SIGNALS": 2, "MIN_PRECISION": 0.6, "MIN_LINES": 2, "MIN_FAMILIES": 2, "MARGIN": 1},
    {"MIN_SIGNALS": 1, "MIN_PRECISION": 0.5, "MIN_LINES": 2, "MIN_FAMILIES": 2, "MARGIN": 2},
    {"MIN_SIGNALS": 2, "MIN_PRECISION": 0.9, "MIN_LINES": 3, "MIN_FAMILIES": 2, "MARGIN": 2},
]


def lexicon_rows(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    families = by_family(lines)
    rows = []
    words = stage.words
    stage.words = functools.lru_cache(maxsize=None)(words)  # the same words, once
    for setting in LEXICON_SETTINGS:
        saved = {k: getattr(stage, k) for k in setting}
        for k, v in setting.items():
            setattr(stage, k, v)
        try:
            tally = Tally()
            for family, tried in families.items():
                table = stage.build([x for x in lines if str(x.get("family", "")) != family])
                for line in tried:
                    reading = stage.read(stage.signal_text(line["signal"]), table)
                    code = reading.code.value if reading else None
                    tally.add(line, code, decision(code) if code else None)
        finally:
            for k, v in saved.items():
                setattr(stage, k, v)
        rows.append(tally.row(variant="lexicon", **setting))
    stage.words = words
    return rows


# ------------------------------------------------------------------------------------------------------ naive Bayes


class Counts:
    """Per-label line counts and per-(label, feature) line counts, with each family's share, so that a fold's
    model is the whole corpus's minus one family's (exact leave-one-family-out at the cost of one pass)."""

    def __init__(self, rows: list[tuple[str, str, set[str]]]) -> None:  # (family, label, features)
        self.docs: Counter[str] = Counter()
        self.n: dict[str, Counter[str]] = defaultdict(Counter)  # feature -> label -> lines
        self.fams: dict[str, Counter[str]] = defaultdict(Counter)  # feature -> family -> lines
        self.fam_docs: dict[str, Counter[str]] = defaultdict(Counter)  # family -> label -> lines
        self.fam_n: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
        for family, label, feats in rows:
            self.docs[label] += 1
            self.fam_docs[family][label] += 1
            for f in feats:
                self.n[f][label] += 1
                self.fams[f][family] += 1
                self.fam_n[family][f][label] += 1
        self.labels = sorted(self.docs)

    def kept(self, f: str, min_families: int, without: str | None) -> bool:
        fams = self.fams.get(f)
        if not fams:
            return False
        k = len(fams) - (1 if without is not None and without in fams else 0)
        return k >= max(1, min_families)

    def totals(self, min_families: int) -> tuple[Counter[str], int]:
        total: Counter[str] = Counter()
        vocab = 0
        for f, by_label in self.n.items():
            if self.kept(f, min_families, None):
                vocab += 1
                total.update(by_label)
        return total, vocab

    def fold(self, family: str, min_families: int, total: Counter[str], vocab: int) -> "Model":
        """The model built without `family`'s lines."""
        docs = self.docs - self.fam_docs[family]
        total = Counter(total)
        for f, share in self.fam_n[family].items():
            if self.kept(f, min_families, None):
                vocab -= 1
                total.subtract(self.n[f])
            if self.kept(f, min_families, family):
                vocab += 1
                total.update(self.n[f])
                total.subtract(share)
        return Model(self, family, min_families, docs, total, vocab)


class Model:
    def __init__(
        self, counts: Counts, without: str, min_families: int, docs: Counter[str], total: Counter[str], vocab: int
    ) -> None:
        self.c, self.without, self.min_families = counts, without, min_families
        self.docs, self.total, self.vocab = docs, total, vocab

    def posterior(self, feats: set[str], alpha: float) -> dict[str, float]:
        labels = [lab for lab in self.c.labels if self.docs[lab] > 0]
        n_docs = sum(self.docs[lab] for lab in labels)
        logp = {lab: math.log(self.docs[lab] / n_docs) for lab in labels}
        share = self.c.fam_n[self.without]
        for f in feats:
            if not self.c.kept(f, self.min_families, self.without):
                continue
            by_label = self.c.n[f]
            own = share.get(f)
            for lab in labels:
                k = by_label.get(lab, 0) - (own.get(lab, 0) if own else 0)
                logp[lab] += math.log((k + alpha) / (self.total[lab] + alpha * self.vocab))
        top = max(logp.values())
        z = sum(math.exp(v - top) for v in logp.values())
        return {lab: math.exp(v - top) / z for lab, v in logp.items()}


THRESHOLDS = [0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999, 0.9999]


def nb_rows(
    lines: list[dict[str, Any]], level: str, alphas: list[float], min_families: list[int], guard: bool
) -> list[dict[str, Any]]:
    label_of = {"code": lambda c: c, "dec": decision, "dec4": decision4}[level]
    feats = [learned.features(stage.signal_text(x["signal"])) for x in lines]
    # train on the line's first code; `unknown` lines teach no class (they are not read from words)
    train = [
        (str(x.get("family", "")), label_of(x["codes"][0]), fs)
        for x, fs in zip(lines, feats, strict=True)
        if x["codes"][0] != ErrorCode.unknown.value
    ]
    counts = Counts(train)
    fam_lines: dict[str, list[int]] = defaultdict(list)
    for i, x in enumerate(lines):
        fam_lines[str(x.get("family", ""))].append(i)
    rows = []
    for mf in min_families:
        total, vocab = counts.totals(mf)
        models = {family: counts.fold(family, mf, total, vocab) for family in fam_lines}
        for alpha in alphas:
            posts = [models[str(x.get("family", ""))].posterior(feats[i], alpha) for i, x in enumerate(lines)]
            for threshold in THRESHOLDS:
                tally = Tally()
                for x, post in zip(lines, posts, strict=True):
                    label, p = max(post.items(), key=lambda kv: kv[1])
                    dec = decision(label) if level == "code" else label
                    transient_p = sum(v for lab, v in post.items() if _transient(lab, level))
                    if p < threshold or (guard and dec == "fail" and transient_p >= 1 - threshold):
                        tally.add(x, None, None)
                    else:
                        tally.add(x, label if level == "code" else None, dec)
                rows.append(
                    tally.row(
                        variant=f"nb-{level}", alpha=alpha, min_families=mf, threshold=threshold, codes=level == "code"
                    )
                )
    return rows


def _transient(label: str, level: str) -> bool:
    return (decision(label) if level == "code" else label) == "short_retry"


# ------------------------------------------------------------------------------------- the stage as implemented

LEARNED_SETTINGS = [(a, b) for a in (3.0, 4.0, 5.0) for b in (0.0, 0.1, 0.15)]  # MIN_LOG_ODDS, LOG_ODDS_PER_FEATURE


def learned_rows(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """routing/learned.py itself (build, model, read), each family read by the counts every other family builds;
    `learned+lexicon` adds the current lexicon where the learned stage says nothing."""
    families = by_family(lines)
    feats, words = learned.features, stage.words
    learned.features = functools.lru_cache(maxsize=None)(feats)  # the same, once
    stage.words = functools.lru_cache(maxsize=None)(words)
    saved = learned.MIN_LOG_ODDS, learned.LOG_ODDS_PER_FEATURE
    tallies = {(s, lex): Tally() for s in LEARNED_SETTINGS for lex in (False, True)}
    try:
        for family, tried in families.items():
            others = [x for x in lines if str(x.get("family", "")) != family]
            m = learned.model(*learned.build(others))
            table = stage.build(others)
            for line in tried:
                text = stage.signal_text(line["signal"])
                lexicon = stage.read(text, table)
                for setting in LEARNED_SETTINGS:
                    learned.MIN_LOG_ODDS, learned.LOG_ODDS_PER_FEATURE = setting
                    reading = learned.read(text, m)
                    code = reading.code.value if reading else None
                    tallies[(setting, False)].add(line, code, decision(code) if code else None)
                    if code is None and lexicon is not None:
                        code = lexicon.code.value
                    tallies[(setting, True)].add(line, code, decision(code) if code else None)
    finally:
        learned.MIN_LOG_ODDS, learned.LOG_ODDS_PER_FEATURE = saved
        learned.features, stage.words = feats, words
    return [
        tally.row(
            variant="learned" + ("+lexicon" if lex else ""),
            MIN_LOG_ODDS=a,
            LOG_ODDS_PER_FEATURE=b,
            current=(a, b) == saved,
        )
        for ((a, b), lex), tally in tallies.items()
    ]


SETTING_NAMES = (
    *("MIN_SIGNALS", "MIN_PRECISION", "MIN_LINES", "MIN_FAMILIES", "MARGIN"),
    *("MIN_LOG_ODDS", "LOG_ODDS_PER_FEATURE", "alpha", "min_families", "threshold"),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--no-lexicon", action="store_true", help="skip the (slow) lexicon rows")
    args = parser.parse_args(argv)
    lines = corpus_lines(counted_only=True)
    rows: list[dict[str, Any]] = [] if args.no_lexicon else lexicon_rows(lines)
    rows += learned_rows(lines)
    for level in ("code", "dec", "dec4"):
        rows += nb_rows(lines, level, alphas=[0.1, 0.5, 1.0], min_families=[1, 2], guard=True)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for row in rows:
        named = " ".join(f"{k}={row[k]}" for k in SETTING_NAMES if k in row)
        print(
            f"{row['variant']:8} {named}: decided {row['decided']}/{row['lines']} ({row['coverage']}), "
            f"code p {row['code_precision']}, decision p {row['decision_precision']}, net {row['net']}, "
            f"acts {row['acts']} p {row['acts_precision']}, T->fail {row['transient_as_failing']}, "
            f"fail->T {row['failing_as_transient']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
