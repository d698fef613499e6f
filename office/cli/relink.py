"""`office runs retry | continue`: a new run linked to an ended one (office.relink, routing.relink). The arguments
are checked here; starting the new run is office.cli.run_calls and office.relink, imported only then."""

from typing import Annotated

import typer

from office.cli.common import JsonFlag, console, fail, print_json
from office.run_input import SubmitError, validate_text
from routing.relink import How, RelinkRefused
from routing.run import RunView

RunIdOption = Annotated[str | None, typer.Option("--run-id", help="The new run's workflow id; generated when omitted.")]
WaitFlag = Annotated[
    bool,
    typer.Option("--wait", help="Wait until the new run ends or parks (exit statuses as `office submit --wait`)."),
]


def _start(run_id: str, how: How, text: str | None, new_run_id: str | None, wait: bool, as_json: bool) -> None:
    from office.cli.run_calls import start_and_settle
    from office.cli.submit import finish
    from office.relink import relink

    try:
        result = start_and_settle(lambda s: relink(s.client, s.store, run_id, how, text, new_run_id), wait, as_json)
    except (RelinkRefused, SubmitError) as err:
        fail(str(err))
    if isinstance(result, str):
        what = "continues" if how == "continue" else "retries"
        if as_json:
            print_json({"run_id": result, "status": "running", "continues": run_id})
        else:
            console.print(f"submitted {result} ({what} {run_id})")
        return
    finish(result, as_json)


def runs_retry(
    run_id: Annotated[str, typer.Argument(help="The failed or cancelled run.")],
    fresh: Annotated[
        bool,
        typer.Option(
            "--fresh", help="Start from the repository's base ref with only the original prompt and follow-ups."
        ),
    ] = False,
    new_run_id: RunIdOption = None,
    wait: WaitFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Retry a failed or cancelled run as a new run linked to it.

    The new run carries the turns the ended run answered (a copy of its transcript) and starts its branch at the
    ended run's branch head; the failed turn and the rest run again, on the route the workspace's order gives now.
    `--fresh` carries nothing: both start again from the repository's base ref. A run that is still going, or that
    completed, is refused (exit 2): add a turn to a completed one with `office runs continue`."""
    _start(run_id, "fresh" if fresh else "retry", None, new_run_id, wait, as_json)


def runs_continue(
    run_id: Annotated[str, typer.Argument(help="The ended run (completed, failed or cancelled).")],
    text: Annotated[str, typer.Argument(help="The new turn.")],
    new_run_id: RunIdOption = None,
    wait: WaitFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Continue an ended run with a new turn, as a new run linked to it.

    The new run carries the turns the ended run answered (a copy of its transcript) and, with a repository, starts
    its branch at the ended run's branch head; TEXT is its turn, on the route the workspace's order gives now. Turns
    the ended run never answered are not carried. A run that is still going is refused (exit 2)."""
    try:
        validate_text(text)
    except SubmitError as err:
        fail(f"text: {str(err).removeprefix('prompt: ')}")
    _start(run_id, "continue", text, new_run_id, wait, as_json)


def continues_line(view: RunView) -> str | None:
    """What `runs show` says of a run that retries or continues an ended one."""
    link = view.continues
    if link is None:
        return None
    how = {"retry": "retries", "fresh": "retries from scratch", "continue": "continues"}[link.how]
    carried = f"{link.turns} turn(s) carried" + (", from its branch head" if link.files else "")
    return f"{how} run {link.run_id} ({carried}; `office runs show {link.run_id}`)"
