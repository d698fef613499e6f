"""Format check for held-out failure lines, without the classifier.

Reads JSON Lines files (default: tests/heldout/*.jsonl) and reports every line that is not valid JSON, lacks a
required key, names a code or decision outside the documented sets, repeats an id or a failure text, or carries a
signal field that FailureSignal does not have. It never imports routing/, so a collector can run it while the set
stays blind.

With `--similar`, it also reports each line whose failure text is more than SIMILAR alike (difflib's ratio, lower
case, digits as one) to a line of the training corpus or of another held-out file: a text already there measures
nothing new, and a training line that repeats a held-out one would leak it. Only ids are printed, never the other
line's text, so a blind collector can run it too.
"""

from __future__ import annotations

import difflib
import json
import re
import sys
from pathlib import Path
from typing import Any

CODES = frozenset(
    [
        "auth_required",
        "missing_credentials",
        "subscription_required",
        "provider_not_configured",
        "model_unavailable",
        "quota_limited",
        "rate_limited",
        "provider_overloaded",
        "provider_unavailable",
        "model_capacity",
        "network_unavailable",
        "timeout",
        "stream_truncated",
        "content_policy",
        "context_length_exceeded",
        "invalid_request",
        "unknown",
    ]
)
SIMILAR = 0.85
KNOWN = ("tests/corpus/*.jsonl", "tests/heldout/*.jsonl")
DECISIONS = frozenset(["short_retry", "wait", "fallback", "park", "fail"])
REQUIRED = ("id", "family", "executor", "source", "signal", "codes", "decisions", "note")
SIGNAL_KEYS = frozenset(
    ["phase", "status", "headers", "body", "jsonrpc_code", "error_text", "exception_type", "exit_code"]
)


def line_problems(obj: Any) -> list[str]:
    """What is wrong with one parsed line (empty when nothing is)."""
    if not isinstance(obj, dict):
        return ["not a JSON object"]
    problems = [f"missing {key}" for key in REQUIRED if key not in obj]
    signal = obj.get("signal", {})
    if not isinstance(signal, dict):
        return [*problems, "signal is not an object"]
    problems += [f"unknown signal field {key}" for key in signal if key not in SIGNAL_KEYS]
    if not (signal.get("error_text") or signal.get("body")):
        problems.append("signal has neither error_text nor body")
    if signal.get("phase") not in ("after_start", "session_start"):
        problems.append("signal.phase must be after_start or session_start")
    problems += [f"unknown code {code}" for code in obj.get("codes") or ["<none>"] if code not in CODES]
    problems += [f"unknown decision {kind}" for kind in obj.get("decisions") or ["<none>"] if kind not in DECISIONS]
    if obj.get("executor") not in ("acp", "openai"):
        problems.append("executor must be acp or openai")
    retry = obj.get("retry_after_s")
    if retry is not None and (not isinstance(retry, int | float) or retry < 0):
        problems.append("retry_after_s must be a non-negative number")
    return problems


def check(paths: list[Path]) -> list[str]:
    """Problems across the files, each prefixed with file:line."""
    report: list[str] = []
    seen_ids: dict[str, str] = {}
    seen_texts: dict[tuple[str, str], str] = {}
    for path in paths:
        for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            where = f"{path}:{number}"
            try:
                obj = json.loads(raw)
            except json.JSONDecodeError as exc:
                report.append(f"{where}: invalid JSON ({exc.msg})")
                continue
            report += [f"{where}: {problem}" for problem in line_problems(obj)]
            if not isinstance(obj, dict) or not isinstance(obj.get("signal"), dict):
                continue
            line_id = str(obj.get("id"))
            if line_id in seen_ids:
                report.append(f"{where}: id {line_id} already used at {seen_ids[line_id]}")
            seen_ids.setdefault(line_id, where)
            text = (str(obj["signal"].get("error_text") or ""), str(obj["signal"].get("body") or ""))
            if text in seen_texts:
                report.append(f"{where}: same failure text as {seen_texts[text]}")
            seen_texts.setdefault(text, where)
    return report


def _compared(obj: Any) -> str:
    signal = obj.get("signal") if isinstance(obj, dict) else None
    if not isinstance(signal, dict):
        return ""
    text = f"{signal.get('error_text') or ''} {signal.get('body') or ''}".strip().lower()
    return re.sub(r"\d+", "0", " ".join(text.split()))


def similar(paths: list[Path], root: Path) -> list[str]:
    """Each line of `paths` whose text is more than SIMILAR alike to a line of the corpus or of another held-out file
    under `root` (the same file's lines are checked against each other by `check`)."""
    known: list[tuple[str, str, Path]] = []
    for pattern in KNOWN:
        for path in sorted(root.glob(pattern)):
            for raw in path.read_text(encoding="utf-8").splitlines():
                if raw.strip():
                    obj = json.loads(raw)
                    known.append((_compared(obj), str(obj.get("id")), path.resolve()))
    report: list[str] = []
    for path in paths:
        for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            try:
                text = _compared(json.loads(raw))
            except json.JSONDecodeError:
                continue  # `check` names it
            for other, other_id, where in known:
                if where == path.resolve() or not text or not other:
                    continue
                matcher = difflib.SequenceMatcher(None, text, other, autojunk=False)
                if (
                    matcher.real_quick_ratio() > SIMILAR
                    and matcher.quick_ratio() > SIMILAR
                    and matcher.ratio() > SIMILAR
                ):
                    report.append(f"{path}:{number}: text like {other_id}'s ({where.parent.name}/{where.name})")
                    break
    return report


def main(argv: list[str]) -> int:
    """Exit 0: no problem; 1: problems (listed); 2: a path that is not a readable file (one line names it)."""
    with_similar = "--similar" in argv
    argv = [arg for arg in argv if arg != "--similar"]
    if any(arg.startswith("-") for arg in argv):
        print(
            "usage: check_heldout_lines.py [--similar] [FILE.jsonl ...] (default: tests/heldout/*.jsonl)",
            file=sys.stderr,
        )
        return 0 if argv in (["-h"], ["--help"]) else 2
    paths = [Path(arg) for arg in argv] or sorted(Path("tests/heldout").glob("*.jsonl"))
    if unreadable := [str(p) for p in paths if not p.is_file()]:
        print(
            f"not a file: {', '.join(unreadable)} (give JSON Lines files, or none for tests/heldout/*.jsonl)",
            file=sys.stderr,
        )
        return 2
    report = check(paths)
    if with_similar:
        report += similar(paths, Path(__file__).resolve().parent.parent)
    for problem in report:
        print(problem)
    print(f"{len(paths)} file(s), {len(report)} problem(s)")
    return 1 if report else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
