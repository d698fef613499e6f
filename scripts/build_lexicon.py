"""Builds routing/rules/lexicon_words.py, the word table of the classifier's second stage, from the training
corpus (tests/corpus/).

    .venv/bin/python -m scripts.build_lexicon

Run it after any change to tests/corpus/; tests/unit/test_lexicon.py fails until the table is the one the corpus
builds (and the catalogue fingerprint then asks for a new CATALOGUE_VERSION)."""

import json
import sys
from pathlib import Path

import routing.rules
from routing.lexicon import build
from testkit.corpus import corpus_lines

TABLE_MODULE = Path(routing.rules.__file__).resolve().parent / "lexicon_words.py"
HEADER = (
    '"""The second stage\'s word table (routing/lexicon.py): word → error code, built from tests/corpus/ by\n'
    "`python -m scripts.build_lexicon`; do not edit by hand (tests/unit/test_lexicon.py checks it is the one the\n"
    'corpus builds). A module rather than a data file: routing/ reads nothing at run time."""\n\n'
)


def main() -> int:
    table = build(corpus_lines())
    entries = "".join(f"    {json.dumps(w, ensure_ascii=False)}: {json.dumps(c)},\n" for w, c in table.items())
    TABLE_MODULE.write_text(HEADER + "WORDS: dict[str, str] = {\n" + entries + "}\n", encoding="utf-8")
    print(f"{len(table)} words → {TABLE_MODULE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
