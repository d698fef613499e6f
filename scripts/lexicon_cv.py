"""How the classifier's second stage (routing/lexicon.py) reads wordings it was not built from, measured on the
training corpus alone: leave one family out (each family's lines read with a word table built from every other
family's), for each setting of the stage's thresholds. Never run on a held-out set: the setting is chosen here.

    .venv/bin/python -m scripts.lexicon_cv [--json]

Per setting: lines decided (the stage named a code), decided right (the code is one the line accepts), their
precision, and net (right minus wrong)."""

import argparse
import contextlib
import itertools
import json
import sys
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import routing.lexicon as stage
from testkit.corpus import corpus_lines

GRID: dict[str, list[Any]] = {
    "MIN_SIGNALS": [1, 2],
    "MIN_PRECISION": [0.5, 0.6, 0.7, 0.75, 0.9],
    "MIN_LINES": [2, 3],
    "MIN_FAMILIES": [1, 2],
    "MARGIN": [1, 2],
}


@contextlib.contextmanager
def thresholds(setting: dict[str, Any]) -> Iterator[None]:
    saved = {name: getattr(stage, name) for name in setting}
    for name, value in setting.items():
        setattr(stage, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(stage, name, value)


BUILD_SETTINGS = ("MIN_PRECISION", "MIN_LINES", "MIN_FAMILIES")  # the ones the word table depends on


def family_tables(
    lines: list[dict[str, Any]], setting: dict[str, Any]
) -> list[tuple[list[dict[str, Any]], dict[str, str]]]:
    """Each family's lines with the word table every other family's lines build."""
    by_family: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in lines:
        by_family[str(line.get("family", ""))].append(line)
    with thresholds({name: setting[name] for name in BUILD_SETTINGS}):
        return [
            (tried, stage.build([line for line in lines if str(line.get("family", "")) != family]))
            for family, tried in by_family.items()
        ]


def leave_one_family_out(
    tables: list[tuple[list[dict[str, Any]], dict[str, str]]], setting: dict[str, Any]
) -> dict[str, Any]:
    decided = right = lines = 0
    with thresholds(setting):
        for tried, table in tables:
            for line in tried:
                lines += 1
                reading = stage.read(stage.signal_text(line["signal"]), table)
                if reading is not None:
                    decided += 1
                    right += reading.code.value in line["codes"]
    return {
        **setting,
        "lines": lines,
        "decided": decided,
        "right": right,
        "precision": round(right / decided, 3) if decided else None,
        "net": right - (decided - right),
        "current": all(getattr(stage, name) == value for name, value in setting.items()),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    lines = corpus_lines(counted_only=True)
    rows: list[dict[str, Any]] = []
    built = dict[tuple[Any, ...], list[tuple[list[dict[str, Any]], dict[str, str]]]]()
    for values in itertools.product(*GRID.values()):
        setting = dict(zip(GRID, values, strict=True))
        key = tuple(setting[name] for name in BUILD_SETTINGS)
        if key not in built:
            built[key] = family_tables(lines, setting)
        rows.append(leave_one_family_out(built[key], setting))
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for row in sorted(rows, key=lambda r: -r["net"]):
        named = " ".join(f"{name}={row[name]}" for name in GRID)
        mark = "  (current)" if row["current"] else ""
        print(f"{named}: decided {row['decided']}/{row['lines']}, right {row['right']}, "
              f"precision {row['precision']}, net {row['net']}{mark}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
