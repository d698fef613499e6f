"""The `office` command line (typer + rich): the app and `main` here, one module per command group.

  submit.py         submit
  runs.py           watch, runs show|list|cancel|decide|explain|resume|diff
  relink.py         runs retry|continue (registered by runs.py)
  run_calls.py      what submit, runs … and relink do once the input is valid (Temporal, the store, workflows)
  config.py         workspace …, profile …, models, pin, unpin, selections
  health.py         health list|clear
  dev.py            dev, worker, simulator, codec-server, bench, db upgrade, watchdog install
  explain_error.py  explain-error
  usage.py          usage
  unread.py         unread-failures
  schedule.py       schedule create|list|pause|unpause|trigger|delete
  budgets.py        the body of runs resume (raising a run's budget)
  common.py         consoles, exit statuses, and `with_services` (the Temporal client and the store)

A command module imports only what parsing, checking and printing need; the Temporal client, the store and the
workflows are imported once a command's input is valid and it connects (run_calls.py, `with_services`), so
`office --help` and a refused command answer without loading them (tests/unit/test_cli_start.py).

Exit statuses are documented in office/cli/common.py: 0 ok, 1 run failed or cancelled, 2 bad input,
3 Temporal or the database unreachable, 4 `submit --wait` parked, 5 `bench` without the source checkout."""

import importlib
import os
import sys

import typer

app = typer.Typer(no_args_is_help=True, help="Office run scheduler: run AI coding agents on Temporal.")


@app.callback()
def office() -> None:
    """Keeps `office` a group of commands even when only the one named on the command line is registered."""


# (command, module, attribute, group?) in the order `office --help` lists them.
COMMANDS = [
    ("dev", "dev", "dev", False),
    ("worker", "dev", "worker", False),
    ("simulator", "dev", "simulator", False),
    ("codec-server", "dev", "codec_server", False),
    ("submit", "submit", "submit", False),
    ("watch", "runs", "watch", False),
    ("models", "config", "models", False),
    ("pin", "config", "pin", False),
    ("unpin", "config", "unpin", False),
    ("selections", "config", "selections_list", False),
    ("bench", "dev", "bench", False),
    ("explain-error", "explain_error", "explain_error", False),
    ("usage", "usage", "usage", False),
    ("unread-failures", "unread", "unread_failures", False),
    ("runs", "runs", "app", True),
    ("schedule", "schedule", "app", True),
    ("workspace", "config", "workspace_app", True),
    ("profile", "config", "profile_app", True),
    ("db", "dev", "db_app", True),
    ("health", "health", "app", True),
    ("watchdog", "dev", "watchdog_app", True),
]


def register(argv: list[str]) -> None:
    """Registers the commands. When the command line names one, only its module is imported: `office workspace
    set` with a bad file answers in a fraction of the time `office runs …` needs to load the Temporal client."""
    named = argv[0] if argv else None
    wanted = [c for c in COMMANDS if c[0] == named] or COMMANDS
    for name, module_name, attribute, group in wanted:
        target = getattr(importlib.import_module(f"office.cli.{module_name}"), attribute)
        if group:
            app.add_typer(target, name=name)
        else:
            app.command(name)(target)


register(sys.argv[1:])


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
