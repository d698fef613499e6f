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
    "file, since routing/ reads nothing at run time; the counts are one JSON text, which Python parses in one pass\n"
    'where the same counts as dict literals would run as code, one entry at a time."""\n\n'
    "import json\n\n"
)
FOOTER = (
    "_COUNTED = json.loads(_JSON)\n"
    'DOCS: dict[str, int] = _COUNTED["DOCS"]\n'
    'COUNTS: dict[str, dict[str, int]] = _COUNTED["COUNTS"]\n'
    "del _JSON, _COUNTED  # the text is not needed once parsed\n"
)

LINE_LENGTH = 120  # ruff's, as pyproject.toml sets it


def width(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)


def entry(indent: str, key: str, by_code: dict[str, int], last: str = ",") -> str:
    """One JSON `key: {code: n, ...}` member, on one line when it fits, else one code per line."""
    items = [f"{json.dumps(c)}: {n}" for c, n in by_code.items()]
    line = f"{indent}{key}{{{', '.join(items)}}}{last}"
    if width(line) <= LINE_LENGTH:
        return line + "\n"
    inner = ",\n".join(f"{indent}  {item}" for item in items)
    return f"{indent}{key}{{\n{inner}\n{indent}}}{last}\n"


def render(docs: dict[str, int], counts: dict[str, dict[str, int]]) -> str:
    """The module: a raw string holding the counts as JSON (no JSON text has three quotes in a row), one word per
    line so that a change of counts reads as a diff."""
    members = [entry(" ", f"{json.dumps(f, ensure_ascii=False)}: ", by_code) for f, by_code in counts.items()]
    if members:
        members[-1] = members[-1][: -len(",\n")] + "\n"
    return (
        HEADER
        + '_JSON = r"""{\n'
        + entry("", '"DOCS": ', docs)
        + '"COUNTS": {\n'
        + "".join(members)
        + '}}"""\n'
        + FOOTER
    )


def main() -> int:
    docs, counts = build(corpus_lines(counted_only=True))
    COUNTS_MODULE.write_text(render(docs, counts), encoding="utf-8")
    print(f"{len(counts)} words and pairs over {sum(docs.values())} lines → {COUNTS_MODULE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
