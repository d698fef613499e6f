"""How well does the third stage (activities/nearest.py) decide failure texts of a family it never saw? Each training
line is read against the stored lines of every other family (leave one family out), at the stage's settings and
its neighbours. Never run on a held-out set.

    .venv/bin/python -m scripts.nearest_cv

Per setting: lines decided, decision right, code and decision right, the translated lines' share of both, and the
two costly kinds of wrong (a transient line read as failing; a long window, which must not be short-retried, read
as a short retry)."""

import sys
from typing import Any

import numpy as np

import activities.nearest as stage
from activities.nearest import SILENT, _stored, stored_fingerprint, stored_ids, vote
from routing.classifier import NOT_NEAREST
from routing.learned import decision_of
from testkit.corpus import corpus_lines

SETTINGS = [  # K, NEAREST_MIN, VOTE_SHARE
    (5, 0.6, 0.8), (10, 0.6, 0.8), (10, 0.6, 0.9), (10, 0.7, 0.9), (10, 0.75, 0.9), (20, 0.6, 0.9),
]  # fmt: skip


def row(lines: list[dict[str, Any]], similarity: Any, families: Any, setting: tuple[int, float, float]) -> str:
    stage.K, stage.NEAREST_MIN, stage.VOTE_SHARE = setting
    _, codes, classes = _stored()
    decided = right = both = translated = translated_right = transient_failed = windows = 0
    for i, line in enumerate(lines):
        if line["codes"][0] == SILENT:
            continue
        seen = np.where(families == families[i], -np.inf, similarity[i]).astype(np.float32)
        code = vote(seen, codes, classes)
        if code is None or code in {c.value for c in NOT_NEAREST}:
            continue
        accepted = line.get("decisions") or [decision_of(line["codes"][0])]
        decision = decision_of(code)
        decided += 1
        right += decision in accepted
        both += decision in accepted and code in line["codes"]
        if line["id"].startswith("t") and line["id"][1:3].isdigit():
            translated += 1
            translated_right += decision in accepted
        transient_failed += decision_of(line["codes"][0]) == "short_retry" and decision == "fail"
        long_window = "short_retry" not in accepted and bool({"quota_limited", "rate_limited"} & set(line["codes"]))
        windows += long_window and decision == "short_retry"
    total = sum(line["codes"][0] != SILENT for line in lines)
    return (
        f"K={setting[0]} nearest≥{setting[1]} vote≥{setting[2]}: decided {decided}/{total} ({decided / total:.1%}), "
        f"decision right {right / max(decided, 1):.1%}, code and decision {both / max(decided, 1):.1%}; "
        f"translated decided {translated}, right {translated_right / max(translated, 1):.1%}; "
        f"transient read as failing {transient_failed}, long windows short-retried {windows}"
    )


def main() -> int:
    lines = corpus_lines()
    if stored_fingerprint() != stage.fingerprint(lines):
        print("the stored lines are not the corpus's: run `python -m scripts.build_nearest`", file=sys.stderr)
        return 2
    by_id = {line["id"]: line for line in lines}
    lines = [by_id[i] for i in stored_ids()]  # the lines in a language the encoder reads: the only ones it reads
    vectors, _, _ = _stored()
    similarity = vectors @ vectors.T
    families = np.array([str(line.get("family", "")) for line in lines])
    saved = stage.K, stage.NEAREST_MIN, stage.VOTE_SHARE
    try:
        for setting in SETTINGS:
            print(("* " if setting == saved else "  ") + row(lines, similarity, families, setting))
    finally:
        stage.K, stage.NEAREST_MIN, stage.VOTE_SHARE = saved
    return 0


if __name__ == "__main__":
    sys.exit(main())
