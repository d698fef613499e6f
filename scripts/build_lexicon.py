"""Builds routing/rules/lexicon.json, the classifier's second stage, from the training corpus (tests/corpus/).

    .venv/bin/python -m scripts.build_lexicon

Run it after any change to tests/corpus/; tests/unit/test_lexicon.py fails until the table is the one the corpus
builds (and the catalogue fingerprint then asks for a new CATALOGUE_VERSION)."""

import json
import sys
from pathlib import Path
from typing import Any

from routing.lexicon import LEXICON_PATH, build

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus"


def corpus_lines() -> list[dict[str, Any]]:
    return [
        json.loads(raw)
        for path in sorted(CORPUS.glob("*.jsonl"))
        for raw in path.read_text(encoding="utf-8").splitlines()
        if raw.strip()
    ]


def main() -> int:
    table = build(corpus_lines())
    LEXICON_PATH.write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(table)} words → {LEXICON_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
