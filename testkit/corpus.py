"""The training corpus (tests/corpus/*.jsonl) as the classifier's tests and the scripts that build and measure its
second stages read it."""

import json
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus"


def corpus_lines() -> list[dict[str, Any]]:
    """Every training line, file by file in name order."""
    return [
        json.loads(raw)
        for path in sorted(CORPUS.glob("*.jsonl"))
        for raw in path.read_text(encoding="utf-8").splitlines()
        if raw.strip()
    ]
