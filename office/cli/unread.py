"""`office unread-failures`: the failures no stage of the classifier read, across runs, as a person reviews them and
as lines for the classifier's held-out or training corpus (tests/corpus/README.md's format, labels left to a person).

Each such failure parked its run for a person (`unreadable_failure`) or, where the workspace waits for nobody, failed
it. Only what the attempt rows hold leaves the store: the failure's redacted excerpt, never a prompt or a secret."""

import json
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from office.cli.common import JsonFlag, console, print_json, run_with_services
from office.cli.usage import SINCE_HELP, period_from

if TYPE_CHECKING:
    from store.tables import AttemptRow


def corpus_line(row: "AttemptRow") -> dict[str, Any]:
    """A corpus line for the failure: its words, where it came from, and empty labels (`codes`, `decisions`, `family`)
    for a person to fill in before it joins a held-out or training set."""
    return {
        "id": f"office-{row.run_id}-{row.seq}",
        "source": f"office run {row.run_id} attempt {row.seq} ({row.provider}, {row.execution_profile}), "
        f"{row.finished_at:%Y-%m-%d}, read by no rule of {row.catalogue or 'an unrecorded catalogue'}",
        "family": "",
        "signal": {"phase": row.phase or "after_start", "error_text": row.excerpt or ""},
        "codes": [],
        "decisions": [],
    }


def unread_failures(
    since: Annotated[str, typer.Option(help=SINCE_HELP)] = "7d",
    workspace: Annotated[str | None, typer.Option(help="Only this workspace's failures.")] = None,
    corpus: Annotated[
        bool, typer.Option("--corpus", help="Print one corpus line (JSON) per failure, labels left empty.")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """The failures no rule, learned word or nearest line read since a time: what runs parked for a person on.
    Report them (with `--corpus`) so the classifier learns them."""
    start, _now = period_from(since)
    rows = run_with_services(lambda s: s.store.unread_since(start, workspace), store=True)
    if corpus:
        for row in rows:
            sys.stdout.write(json.dumps(corpus_line(row), ensure_ascii=False) + "\n")
        return
    if as_json:
        keys = ("run_id", "seq", "workspace", "agent", "provider", "decision", "catalogue", "excerpt")
        print_json([{k: getattr(r, k) for k in keys} | {"finished_at": r.finished_at.isoformat()} for r in rows])
        return
    table = Table("finished (UTC)", "run", "provider", "decided", "catalogue", "what the provider or agent said")
    for r in rows:
        table.add_row(
            f"{r.finished_at:%Y-%m-%d %H:%M}", f"{r.run_id} #{r.seq}", r.provider, r.decision or "-",
            r.catalogue or "-", (r.excerpt or "")[:160],
        )  # fmt: skip
    console.print(table)
    console.print(
        f"since {start:%Y-%m-%d %H:%M} UTC: {len(rows)} failure(s) no stage of the classifier read; `--corpus` prints "
        "them as corpus lines to label and report"
    )
