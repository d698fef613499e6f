"""How well does the third stage (activities/nearest.py) decide failure texts of a family it never saw? Each stored
training line is read against the stored lines of every other family (leave one family out), at the stage's
settings and its neighbours (testkit/nearest_cv.py). Never run on a held-out set.

    .venv/bin/python -m scripts.nearest_cv

Per setting: lines decided, decision right, code and decision right, the translated lines' share of both, and the
two costly kinds of wrong (a transient line read as failing; a long window, which must not be short-retried, read
as a short retry)."""

import sys

import activities.nearest as stage
from testkit.corpus import corpus_lines
from testkit.nearest_cv import cross_validate

SETTINGS = [  # K, NEAREST_MIN, VOTE_SHARE
    (5, 0.6, 0.8), (10, 0.6, 0.8), (10, 0.6, 0.9), (10, 0.7, 0.9), (10, 0.75, 0.9), (20, 0.6, 0.9),
]  # fmt: skip


def row(setting: tuple[int, float, float]) -> str:
    t = cross_validate(setting)
    return (
        f"K={setting[0]} nearest≥{setting[1]} vote≥{setting[2]}: decided {t.decided}/{t.total} "
        f"({t.decided / t.total:.1%}), decision right {t.right / max(t.decided, 1):.1%}, code and decision "
        f"{t.both / max(t.decided, 1):.1%}; translated decided {t.translated}, right "
        f"{t.translated_right / max(t.translated, 1):.1%}; transient read as failing {t.transient_failed}, long "
        f"windows short-retried {t.windows}"
    )


def main() -> int:
    if stage.stored().fingerprint != stage.fingerprint(corpus_lines()):
        print("the stored lines are not the corpus's: run `python -m scripts.build_nearest`", file=sys.stderr)
        return 2
    shipped = stage.K, stage.NEAREST_MIN, stage.VOTE_SHARE
    for setting in SETTINGS:
        print(("* " if setting == shipped else "  ") + row(setting))
    return 0


if __name__ == "__main__":
    sys.exit(main())
