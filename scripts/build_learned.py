"""Builds routing/rules/learned_counts.py, the counts of the classifier's learned second stage (routing/learned.py),
from the training corpus (tests/corpus/).

    .venv/bin/python -m scripts.build_learned

Run it after any change to tests/corpus/; tests/unit/test_learned.py fails until the counts are the ones the corpus
builds (and the catalogue fingerprint then asks for a new CATALOGUE_VERSION)."""

import json
import sys
import unicodedata
from pathlib import Path

import routing.rules
from routing.learned import build
from testkit.corpus import corpus_lines

COUNTS_MODULE = Path(routing.rules.__file__).resolve().parent / "learned_counts.py"
HEADER = (
    '"""The learned second stage\'s counts (routing/learned.py): training lines per code, and per word or word pair\n'
    "the lines of each code that use it, built from tests/corpus/ by `python -m scripts.build_learned`; do not edit\n"
    "by hand (tests/unit/test_learned.py checks they are the ones the corpus builds). A module rather than a data\n"
    'file: routing/ reads nothing at run time."""\n\n'
)


LINE_LENGTH = 120  # ruff's, as pyproject.toml sets it: the module is written as `ruff format` would leave it


def width(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)


def entry(indent: str, key: str, by_code: dict[str, int], last: str = ",") -> str:
    """One `key: {code: n, ...}` entry, on one line when it fits, else one code per line."""
    items = [f"{json.dumps(c)}: {n}" for c, n in by_code.items()]
    line = f"{indent}{key}{{{', '.join(items)}}}{last}"
    if width(line) <= LINE_LENGTH:
        return line + "\n"
    inner = "".join(f"{indent}    {item},\n" for item in items)
    return f"{indent}{key}{{\n{inner}{indent}}}{last}\n"


def render(docs: dict[str, int], counts: dict[str, dict[str, int]]) -> str:
    entries = "".join(entry("    ", f"{json.dumps(f, ensure_ascii=False)}: ", by_code) for f, by_code in counts.items())
    return (
        HEADER
        + entry("", "DOCS: dict[str, int] = ", docs, last="")
        + "\nCOUNTS: dict[str, dict[str, int]] = {\n"
        + entries
        + "}\n"
    )


def main() -> int:
    docs, counts = build(corpus_lines())
    COUNTS_MODULE.write_text(render(docs, counts), encoding="utf-8")
    print(f"{len(counts)} words and pairs over {sum(docs.values())} lines → {COUNTS_MODULE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
