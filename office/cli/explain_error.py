"""`office explain-error`: classify a failure given by hand and show what an office run would decide.

The logic is `routing.explain.explain_error` (pure: signal in, report out); this module parses the options, calls
it and prints the report: the rule that matched, the code, the decision, the reset time, and for an unknown the
rules that almost matched (what to quote when reporting an unclassified failure)."""

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from office.cli.common import JsonFlag, console, fail, print_json
from routing.classifier import FailureSignal
from routing.explain import ErrorReport, signal_from_text
from routing.explain import explain_error as explain_report


def parse_headers(items: list[str]) -> dict[str, str]:
    """'Name: value' strings to a mapping; raises ValueError naming the first malformed one."""
    headers: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition(":")
        if not sep or not name.strip():
            raise ValueError(f"--header {item!r}: expected 'Name: value'")
        headers[name.strip()] = value.strip()
    return headers


def as_dict(report: ErrorReport) -> dict[str, Any]:
    """The JSON `office explain-error --json` prints (the keys before `status` are the long-standing ones)."""
    c = report.classification
    return {
        "code": report.code.value,
        "class": report.error_class.value,
        "confidence": report.confidence,
        "phase": c.phase.value,
        "rule": report.rule,
        "catalogue": report.catalogue,
        "decided_by": report.decided_by,
        "excerpt": report.excerpt,
        "retry_after_s": report.retry_after_s,
        "decision": report.decision,
        "reason": report.reason,
        "delay_s": report.delay_s,
        "park_reason": report.park_reason,
        "health": report.health,
        "status": report.status,
        "status_in_text": report.status_in_text,
        "also_matched": [m.model_dump(mode="json") for m in report.also_matched],
        "near_misses": [m.model_dump(mode="json") for m in report.near_misses],
    }


def explain_failure(
    *,
    status: int | None = None,
    headers: dict[str, str] | None = None,
    body: str | None = None,
    provider: str | None = None,
    jsonrpc_code: int | None = None,
    error_text: str | None = None,
    exception_type: str | None = None,
    exit_code: int | None = None,
    other_provider_eligible: bool = True,
    now: datetime | None = None,
) -> dict[str, Any]:
    """The report for one failure given field by field, as a JSON-able dict."""
    signal = FailureSignal(
        status=status,
        headers=headers or {},
        body=body,
        provider=provider,
        jsonrpc_code=jsonrpc_code,
        error_text=error_text,
        exception_type=exception_type,
        exit_code=exit_code,
    )
    from activities.nearest import with_nearest  # the encoder loads only for a failure no rule reads

    now = now or datetime.now(UTC)
    signal = with_nearest(signal, now)  # as a worker reads it: the third stage where nothing else read the words
    return as_dict(explain_report(signal, now, other_provider_eligible=other_provider_eligible))


def explain_error(
    text: Annotated[
        str | None,
        typer.Option(
            "--text", help="A bare agent error line, e.g. 'API Error: 529 {…}' (status and body read from it)."
        ),
    ] = None,
    status: Annotated[int | None, typer.Option("--status", help="HTTP status code.")] = None,
    header: Annotated[list[str] | None, typer.Option("--header", help="'Name: value', repeatable.")] = None,
    body: Annotated[str | None, typer.Option("--body", help="Response body text.")] = None,
    body_file: Annotated[Path | None, typer.Option("--body-file", help="Read the body from a file.")] = None,
    provider: Annotated[str | None, typer.Option("--provider", help="Provider name (a hint).")] = None,
    jsonrpc_code: Annotated[int | None, typer.Option("--jsonrpc-code", help="ACP JSON-RPC error code.")] = None,
    error_text: Annotated[str | None, typer.Option("--error-text", help="Exception or agent error text.")] = None,
    exception_type: Annotated[str | None, typer.Option("--exception-type")] = None,
    exit_code: Annotated[int | None, typer.Option("--exit-code", help="Executor process exit code.")] = None,
    alone: Annotated[
        bool, typer.Option("--no-other-provider", help="Decide as if no other provider were eligible.")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Classify a failure given by hand and show what an office run would decide."""
    if text is not None and error_text is not None:
        fail("--text and --error-text both give the error text: use one")
    try:
        headers = parse_headers(header or [])
    except ValueError as err:
        fail(str(err))
    if body_file is not None:
        from office.config_files import ConfigFileError, read_text

        try:
            body = read_text(body_file)
        except ConfigFileError as err:
            fail(str(err).replace("--file", "--body-file"))
    if text is not None:
        error_text = signal_from_text(text).error_text
    report = explain_failure(
        status=status,
        headers=headers,
        body=body,
        provider=provider,
        jsonrpc_code=jsonrpc_code,
        error_text=error_text,
        exception_type=exception_type,
        exit_code=exit_code,
        other_provider_eligible=not alone,
    )
    if as_json:
        print_json(report)
        return
    lists = ("also_matched", "near_misses", "decided_by")
    for key, value in report.items():
        if key not in lists:
            console.print(f"[bold]{key:>14}[/]  {value}")
    if report["decided_by"]:
        console.print(f"[bold]{'decided by':>14}[/]  the words " + ", ".join(repr(w) for w in report["decided_by"]))
    for m in report["also_matched"]:
        console.print(f"[bold]{'also matched':>14}[/]  {m['rule']} → {m['code']} ({m['confidence']})")
    if report["code"] == "unknown":
        if not report["near_misses"]:
            console.print(f"[bold]{'nearest rules':>14}[/]  none came close")
        for m in report["near_misses"]:
            missing = ", ".join(m["missing"]) or "-"
            console.print(
                f"[bold]{'almost matched':>14}[/]  {m['rule']} → {m['code']} "
                f"(score {m['score']}: '{m['closest']}', missing: {missing})"
            )
        console.print(
            "Unclassified: an office run fails closed here. It is never moved to another provider by itself: it waits "
            "for a person (`office runs decide`) for up to its workspace's unreadable_failure_wait, then fails. "
            "Report the text and the rules above."
        )
