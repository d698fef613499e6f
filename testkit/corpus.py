"""The training corpus (tests/corpus/*.jsonl) as the classifier's tests and the scripts that build and measure its
second stages read it."""

import json
from pathlib import Path
from typing import Any

from routing.decider import Decision, DecisionKind, ParkReason

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus"


# Translated training lines (`translated*.jsonl`) are read by routing/rules/translated.py's rules and tested like
# every line, but the learned second stage does not count them: each language there has lines of one or two classes
# only, so counted, a language's common words ("please", "try again", a polite verb ending) would become that class's
# evidence and any text in the language would read as it.
TRANSLATED = "translated*.jsonl"


def corpus_lines(*, counted_only: bool = False) -> list[dict[str, Any]]:
    """Every training line, file by file in name order; with `counted_only`, only those the learned stage counts."""
    skipped = set(CORPUS.glob(TRANSLATED)) if counted_only else set()
    return [
        json.loads(raw)
        for path in sorted(CORPUS.glob("*.jsonl"))
        if path not in skipped
        for raw in path.read_text(encoding="utf-8").splitlines()
        if raw.strip()
    ]


def decided_right(line: dict[str, Any], decision: Decision) -> bool:
    """Whether the decision (its kind, and its park reason when it parks) is one the line accepts. An unclassified
    failure parks or fails (the design's error table): the office run waits for a person where the workspace allows
    one (`unreadable_failure_wait`), and fails once nobody decided. So a line that accepts an `unknown` reading
    failing accepts that park too; no other park it does not name."""
    if decision.kind.value in line["decisions"]:
        return True
    unread = decision.kind is DecisionKind.park and decision.park_reason is ParkReason.unreadable_failure
    return unread and "unknown" in line["codes"] and "fail" in line["decisions"]
