"""The lines the classifier learns from, as its tests and the scripts that build and measure its second stage read
them: the training corpus (tests/corpus/*.jsonl), and the held-out sets already measured blind (tests/heldout/ but
the sets in STILL_BLIND)."""

import json
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent.parent / "tests"
CORPUS = TESTS / "corpus"
HELDOUT = TESTS / "heldout"

# Held-out sets nothing has learned from yet: the blind measure of the next change. Every other held-out set was
# measured blind under the rules of its day (tests/heldout/README.md has each figure) and is now learned from by the
# second stage (routing/learned.py), never by a rule: a set leaves this list once its blind figure is recorded.
STILL_BLIND = frozenset(
    {"blind_2026_12_04ik.jsonl", "blind_2026_12_04il.jsonl", "blind_2026_12_04im.jsonl", "blind_2026_12_04in.jsonl"}
)


def _lines(paths: list[Path]) -> list[dict[str, Any]]:
    return [json.loads(raw) for path in paths for raw in path.read_text(encoding="utf-8").splitlines() if raw.strip()]


def corpus_lines() -> list[dict[str, Any]]:
    """Every training line, file by file in name order: each is decided right by a rule."""
    return _lines(sorted(CORPUS.glob("*.jsonl")))


def measured_heldout_lines() -> list[dict[str, Any]]:
    """Every line of the held-out sets already measured blind, file by file in name order."""
    return _lines([p for p in sorted(HELDOUT.glob("*.jsonl")) if p.name not in STILL_BLIND])


def learning_lines() -> list[dict[str, Any]]:
    """What the learned second stage counts: the training corpus and the held-out sets already measured."""
    return corpus_lines() + measured_heldout_lines()
