"""The third stage (activities/nearest.py) cross-validated on the training lines it stores: each line read against the
stored lines of every other family (leave one family out). Shared by `scripts/nearest_cv.py` (a table of settings)
and tests/unit/test_nearest.py (a floor at the shipped setting). Never run on a held-out set."""

from dataclasses import dataclass

import numpy as np

import activities.nearest as stage
from routing.classifier import NOT_NEAREST
from routing.learned import decision_of
from testkit.corpus import corpus_lines

NOT_READ = frozenset(c.value for c in NOT_NEAREST)


@dataclass
class Tally:
    lines: int = 0  # stored lines, silent ones included
    total: int = 0  # of them, lines that name a code
    decided: int = 0
    right: int = 0  # to an accepted decision
    both: int = 0  # to an accepted decision and code
    translated: int = 0
    translated_right: int = 0
    transient_failed: int = 0  # a transient line read as failing
    windows: int = 0  # a long window (which must not be short-retried) read as a short retry


def cross_validate(setting: tuple[int, float, float] | None = None) -> Tally:
    """At `setting` (K, NEAREST_MIN, VOTE_SHARE; the stage's own when None)."""
    saved = stage.K, stage.NEAREST_MIN, stage.VOTE_SHARE
    if setting is not None:
        stage.K, stage.NEAREST_MIN, stage.VOTE_SHARE = setting
    try:
        return _tally()
    finally:
        stage.K, stage.NEAREST_MIN, stage.VOTE_SHARE = saved


def _tally() -> Tally:
    stored = stage.stored()
    by_id = {line["id"]: line for line in corpus_lines()}
    lines = [by_id[i] for i in stored.ids]
    families = np.array([str(line.get("family", "")) for line in lines])
    tally = Tally(lines=len(lines))
    for i, line in enumerate(lines):
        if line["codes"][0] == stage.SILENT:
            continue
        tally.total += 1
        similarity = np.where(families == families[i], -np.inf, stored.vectors @ stored.vectors[i]).astype(np.float32)
        code = stage.vote(similarity, stored.codes, stored.classes)
        if code is None or code in NOT_READ:
            continue
        accepted = line.get("decisions") or [decision_of(line["codes"][0])]
        decision = decision_of(code)
        tally.decided += 1
        tally.right += decision in accepted
        tally.both += decision in accepted and code in line["codes"]
        if line["id"].startswith("t") and line["id"][1:3].isdigit():
            tally.translated += 1
            tally.translated_right += decision in accepted
        tally.transient_failed += decision_of(line["codes"][0]) == "short_retry" and decision == "fail"
        long_window = "short_retry" not in accepted and bool({"quota_limited", "rate_limited"} & set(line["codes"]))
        tally.windows += long_window and decision == "short_retry"
    return tally
