"""`office health …`: what runs have learned about each provider scope, and saying a provider is fixed."""

from typing import Annotated

import typer
from rich.table import Table

from office.cli.common import JsonFlag, console, print_json, run_with_services

app = typer.Typer(no_args_is_help=True, help="Provider health (evidence from runs, never preference).")


@app.command("list")
def health_list(as_json: JsonFlag = False) -> None:
    """What runs have learned about each provider scope."""
    rows = run_with_services(lambda s: s.store.health_rows(), store=True)
    data = [r.model_dump(mode="json") for r in rows]
    if as_json:
        print_json(data)
        return
    table = Table("provider", "model", "state", "retry at", "backoff step", "last code", "last run")
    for r in rows:
        table.add_row(
            r.provider,
            r.model or "(all)",
            r.state,
            str(r.retry_at or "-"),
            str(r.backoff_step),
            r.last_code or "-",
            r.last_run_id or "-",
        )
    console.print(table)


@app.command("clear")
def health_clear(
    provider: str, model: Annotated[str | None, typer.Option(help="Only this model's record.")] = None
) -> None:
    """Say a provider is fixed (credentials, plan); parked runs still need `office runs resume`."""
    cleared = run_with_services(lambda s: s.store.clear_health(provider, model), store=True)
    console.print(f"cleared {cleared} health record(s) for {provider}")
