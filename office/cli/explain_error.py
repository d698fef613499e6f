"""`office explain-error`: classify a failure given by hand and show what an office run would decide.

`explain_failure` is the whole logic (signal in, report out); the command only parses its options, calls it and
prints the report."""

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import typer

from office.cli.common import console, fail, print_json
from routing.classifier import FailureSignal, classify
from routing.decider import RoutingContext, RunState, decide


def parse_headers(items: list[str]) -> dict[str, str]:
    """'Name: value' strings to a mapping; raises ValueError naming the first malformed one."""
    headers: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition(":")
        if not sep or not name.strip():
            raise ValueError(f"--header {item!r}: expected 'Name: value'")
        headers[name.strip()] = value.strip()
    return headers


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
    """The classification of one failure and the office decider's answer to it (first attempt of eight), as the
    JSON-able report `office explain-error --json` prints."""
    result = classify(
        FailureSignal(
            status=status,
            headers=headers or {},
            body=body,
            provider=provider,
            jsonrpc_code=jsonrpc_code,
            error_text=error_text,
            exception_type=exception_type,
            exit_code=exit_code,
        ),
        now or datetime.now(UTC),
    )
    decision = decide(
        result,
        RoutingContext.office,
        RunState(attempts=1, max_attempts=8, other_candidate_eligible=other_provider_eligible),
        rand=0.5,
    )
    return {
        "code": result.code.value,
        "class": result.error_class.value,
        "confidence": result.confidence,
        "phase": result.phase.value,
        "rule": result.rule,
        "excerpt": result.excerpt,
        "retry_after_s": result.retry_after_s,
        "decision": decision.kind.value,
        "reason": decision.reason,
        "delay_s": decision.delay_s,
        "park_reason": decision.park_reason.value if decision.park_reason else None,
        "health": decision.health.model_dump(mode="json") if decision.health else None,
    }


def explain_error(
    status: int | None = typer.Option(None, "--status", help="HTTP status code."),
    header: list[str] = typer.Option([], "--header", help="'Name: value', repeatable."),
    body: str | None = typer.Option(None, "--body", help="Response body text."),
    body_file: Path | None = typer.Option(None, "--body-file", help="Read the body from a file."),
    provider: str | None = typer.Option(None, "--provider", help="Provider name (a hint)."),
    jsonrpc_code: int | None = typer.Option(None, "--jsonrpc-code", help="ACP JSON-RPC error code."),
    error_text: str | None = typer.Option(None, "--error-text", help="Exception or agent error text."),
    exception_type: str | None = typer.Option(None, "--exception-type"),
    exit_code: int | None = typer.Option(None, "--exit-code", help="Executor process exit code."),
    alone: bool = typer.Option(False, "--no-other-provider", help="Decide as if no other provider were eligible."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Classify a failure given by hand and show what an office run would decide."""
    try:
        headers = parse_headers(header)
    except ValueError as err:
        fail(str(err))
    if body_file is not None:
        body = body_file.read_text()
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
    for key, value in report.items():
        console.print(f"[bold]{key:>14}[/]  {value}")
