"""Held-out accuracy of the classifier and decider: how they decide real failure texts nobody tuned them on.

Reads tests/heldout/*.jsonl (the corpus line format of tests/corpus/README.md) and decides each line exactly as
tests/unit/test_corpus.py decides a training line: a FIRST failure of an office run with another provider eligible,
at 2026-01-01T00:00Z. A line is right when its code AND its decision are among the accepted ones (a line that accepts
an `unknown` reading failing accepts it parked for a person: testkit.corpus.decided_right).

    .venv/bin/python scripts/heldout_accuracy.py [--json] [--misses] [--set 'fresh_*.jsonl'] [--by executor|file]

`--by executor` splits the figures by how a line reaches the office (`acp`: as a coding agent prints it; `openai`: an
HTTP provider's answer), `--by file` by held-out set.

Also counted, because they are the costly mistakes: a network, proxy or transport failure decided `fail` (a blip
ends the run) and a long window (a line that must not be short-retried) short-retried (a retry storm); and, apart, a
network failure nobody could read, parked for a person (the run waits for a decision rather than ending)."""

import argparse
import json
import sys
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # testkit is the checkout's, not the wheel's

from activities.nearest import classify_with_nearest
from routing.classifier import FailureSignal
from routing.decider import DecisionKind, RoutingContext, RunState, decide
from testkit.corpus import decided_right

NOW = datetime(2026, 1, 1, tzinfo=UTC)
HELDOUT = Path(__file__).resolve().parent.parent / "tests" / "heldout"
TRANSIENT = {"network_unavailable", "provider_unavailable", "timeout", "stream_truncated"}
GROUPS = [  # the first expected code that names a group decides the line's group
    ({"network_unavailable", "provider_unavailable", "timeout", "stream_truncated"}, "network, proxy, transport"),
    ({"context_length_exceeded"}, "context and output limits"),
    ({"content_policy"}, "moderation"),
    ({"auth_required", "missing_credentials"}, "expired or invalid keys"),
    ({"subscription_required"}, "billing and plans"),
    ({"quota_limited", "rate_limited"}, "windows and budgets"),
    ({"model_unavailable"}, "model not found"),
    ({"model_capacity"}, "model loading or capacity"),
]


@dataclass(frozen=True)
class Verdict:
    id: str
    executor: str
    file: str
    group: str
    right: bool
    decision_right: bool  # the decision alone is one of the accepted ones (the code may differ)
    code: str
    decision: str
    rule: str
    transport_failed: bool  # a network/proxy/transport line decided `fail`
    transport_parked: bool  # one parked for a person (unread, but the run waits rather than ends)
    window_short_retried: bool  # a line that must not be short-retried was


def group_of(codes: list[str]) -> str:
    for code in codes:
        for members, name in GROUPS:
            if code in members:
                return name
    return "other"


def load(pattern: str = "*.jsonl") -> list[dict[str, Any]]:
    """The lines of the held-out sets matching `pattern`, each with the name of its file (`_file`)."""
    lines = []
    for path in sorted(p for p in HELDOUT.glob(pattern) if p.suffix == ".jsonl"):  # the README is no set
        for raw in path.read_text(encoding="utf-8").splitlines():
            if raw.strip():
                lines.append({**json.loads(raw), "_file": path.name})
    return lines


def judge(line: dict[str, Any]) -> Verdict:
    result = classify_with_nearest(FailureSignal.model_validate(line["signal"]), NOW)  # as a worker reads it
    state = RunState(attempts=1, max_attempts=8, other_candidate_eligible=True)
    decision = decide(result, RoutingContext.office, state, rand=0.5)
    codes, decisions = line["codes"], line["decisions"]
    # a transport line whose accepted decisions include `fail` too (one that sits between a transport reading and a
    # terminal one) is no costly mistake when it fails: only a line that must not fail counts
    transport = bool(TRANSIENT & set(codes)) and "short_retry" in decisions and "fail" not in decisions
    decision_right = decided_right(line, decision)
    long_window = "short_retry" not in decisions and bool({"quota_limited", "rate_limited"} & set(codes))
    return Verdict(
        id=line["id"],
        executor=str(line.get("executor", "")),
        file=str(line.get("_file", "")),
        group=group_of(codes),
        right=result.code.value in codes and decision_right,
        decision_right=decision_right,
        code=result.code.value,
        decision=decision.kind.value,
        rule=result.rule,
        transport_failed=transport and decision.kind is DecisionKind.fail,
        transport_parked=transport and decision.kind is DecisionKind.park,
        window_short_retried=long_window and decision.kind is DecisionKind.short_retry,
    )


def report(verdicts: list[Verdict]) -> dict[str, Any]:
    by_group: dict[str, list[Verdict]] = defaultdict(list)
    for v in verdicts:
        by_group[v.group].append(v)
    return {
        "lines": len(verdicts),
        "right": sum(v.right for v in verdicts),
        "accuracy": round(sum(v.right for v in verdicts) / len(verdicts), 4) if verdicts else None,
        "decision_right": sum(v.decision_right for v in verdicts),
        "transport_decided_fail": sum(v.transport_failed for v in verdicts),
        "transport_parked": sum(v.transport_parked for v in verdicts),
        "long_window_short_retried": sum(v.window_short_retried for v in verdicts),
        "groups": {g: {"lines": len(vs), "right": sum(v.right for v in vs)} for g, vs in sorted(by_group.items())},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--misses", action="store_true", help="list the lines decided wrong")
    parser.add_argument("--set", default="*.jsonl", help="which files of tests/heldout/ (a glob)")
    parser.add_argument("--by", choices=["executor", "file"], help="also split the figures by executor or by file")
    args = parser.parse_args(argv)
    lines = load(args.set)
    if not lines:
        print(f"no held-out lines under {HELDOUT}", file=sys.stderr)
        return 2
    verdicts = [judge(line) for line in lines]
    summary = report(verdicts)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"held-out: {summary['right']}/{summary['lines']} right ({summary['accuracy']:.1%})")
        for group, counts in summary["groups"].items():
            print(f"  {group:28} {counts['right']:4}/{counts['lines']}")
        print(f"  decision right (whatever the code):   {summary['decision_right']}/{summary['lines']}")
        print(f"  network/proxy/transport decided fail: {summary['transport_decided_fail']}")
        print(f"  network/proxy/transport parked:       {summary['transport_parked']} (waiting for a person)")
        print(f"  long windows short-retried:           {summary['long_window_short_retried']}")
    if args.by:
        split: dict[str, list[Verdict]] = defaultdict(list)
        for v in verdicts:
            split[getattr(v, args.by)].append(v)
        for key, part in sorted(split.items()):
            counts = report(part)
            print(
                f"  {args.by} {key}: {counts['right']}/{counts['lines']} right ({counts['accuracy']:.1%}); "
                f"decided fail {counts['transport_decided_fail']}, short-retried {counts['long_window_short_retried']}"
            )
    if args.misses:
        for v in verdicts:
            if not v.right:
                print(f"  miss {v.id}: {v.code} → {v.decision} (rule {v.rule})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
