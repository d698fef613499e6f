"""The `office` command line (typer + rich): the app and `main` here, one module per command group.

  submit.py         submit
  runs.py           watch, runs show|list|cancel|decide|explain|resume
  config.py         workspace …, profile …, models, pin, unpin, selections
  health.py         health list|clear
  dev.py            dev, worker, simulator, bench, db upgrade, watchdog install
  explain_error.py  explain-error
  common.py         consoles, exit statuses, and `with_services` (the Temporal client and the store)

Exit statuses are documented in office/cli/common.py: 0 ok, 1 run failed or cancelled, 2 bad input,
3 Temporal or the database unreachable."""

import os
import sys

import typer

from office.cli import config, dev, explain_error, health, runs, submit

app = typer.Typer(no_args_is_help=True, help="Office run scheduler: run AI coding agents on Temporal.")

# Registration order is the order `office --help` lists them in.
app.command()(dev.dev)
app.command()(dev.worker)
app.command()(dev.simulator)
app.command()(submit.submit)
app.command()(runs.watch)
app.command()(config.models)
app.command()(config.pin)
app.command()(config.unpin)
app.command("selections")(config.selections_list)
app.command()(dev.bench)
app.command("explain-error")(explain_error.explain_error)
app.add_typer(runs.app, name="runs")
app.add_typer(config.workspace_app, name="workspace")
app.add_typer(config.profile_app, name="profile")
app.add_typer(dev.db_app, name="db")
app.add_typer(health.app, name="health")
app.add_typer(dev.watchdog_app, name="watchdog")


def main() -> None:
    """Exits with os._exit after flushing: the Temporal client's Rust threads can abort CPython's
    finalisation ("PyGILState_Release ... must be current", temporalio/sdk-python#300), which would turn a
    successful command into a crash with a non-zero status."""
    from office.telemetry import configure_telemetry, flush_telemetry

    if sys.argv[1:2] not in (["dev"], ["worker"]):  # those two configure their own, long-lived telemetry
        configure_telemetry("office-cli", default="none")
    try:
        app()
        code = 0
    except SystemExit as done:  # typer ends every command this way, with the status to exit with
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    flush_telemetry()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
