"""`office schedule create|list|pause|unpause|trigger|delete`: recurring runs on Temporal Schedules."""

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from office.cli.common import JsonFlag, Services, console, fail, print_json, run_with_services
from office.run_input import SubmitError
from office.schedule_request import ScheduleRequest, parse_interval
from office.settings import Settings

if TYPE_CHECKING:
    from temporalio.client import ScheduleHandle

app = typer.Typer(no_args_is_help=True, help="Recurring runs: Temporal Schedules that start office runs.")


def _run(fn: Callable[[Services], Awaitable[Any]], store: bool = False) -> Any:
    try:
        return run_with_services(fn, client=True, store=store)
    except SubmitError as err:
        fail(str(err))


@app.command("create")
def create(
    name: Annotated[str, typer.Argument(help="The schedule's name; its runs are named NAME-<time>.")],
    prompt: Annotated[str, typer.Argument(help="The task for the agent, the same for every run.")],
    workspace: Annotated[str, typer.Option("--workspace", "-w")],
    agent: Annotated[str, typer.Option("--agent", "-a")],
    cron: Annotated[
        str | None, typer.Option(help='When, in UTC, as a cron expression: "0 3 * * *" is every day at 03:00.')
    ] = None,
    interval: Annotated[str | None, typer.Option(help="Or every so often instead of --cron: 30s, 15m, 2h, 1d.")] = None,
    overlap: Annotated[
        str,
        typer.Option(
            help="When a run is due while the last one still runs: skip, buffer-one, buffer-all, cancel-other, "
            "terminate-other or allow-all."
        ),
    ] = "skip",
    priority: Annotated[
        str,
        typer.Option(
            help="interactive, default or batch: recorded in each run's memo (runs are not scheduled by priority yet)."
        ),
    ] = "batch",
    tier: Annotated[str | None, typer.Option(help="Tier of the workspace's execution profiles.")] = None,
    max_cost_usd: Annotated[float | None, typer.Option(help="Each run's budget in USD.")] = None,
    max_tokens: Annotated[int | None, typer.Option(help="Each run's budget in tokens.")] = None,
) -> None:
    """Create a schedule that starts an office run at each time its cron expression or interval names."""
    try:
        req = ScheduleRequest(
            name=name, workspace=workspace, agent=agent, prompt=prompt, cron=cron,
            every=parse_interval(interval) if interval is not None else None, overlap=overlap,
            priority=priority,  # type: ignore[arg-type]  # checked by check_offline
            tier=tier, max_cost_usd=max_cost_usd, max_tokens=max_tokens, task_queue=Settings.from_env().task_queue,
        )  # fmt: skip
        req.check_offline()  # before connecting: nothing is created from a bad spec
    except SubmitError as err:
        fail(str(err))

    from office.schedules import create_schedule

    _run(lambda s: create_schedule(s.client, s.store, req), store=True)
    console.print(f"created schedule {name}: runs of {agent} in {workspace}, priority {priority}")


@app.command("list")
def schedule_list(as_json: JsonFlag = False) -> None:
    """List the office run schedules: what they run, when next, paused or not."""
    from office.schedules import list_schedules

    found = _run(lambda s: list_schedules(s.client))
    if as_json:
        print_json([s.as_json() for s in found])
        return
    table = Table("name", "workspace", "agent", "when", "priority", "overlap", "paused", "next run", "recent runs")
    for s in found:
        table.add_row(
            s.name, s.workspace or "-", s.agent or "-", s.spec or "-", s.priority or "-", s.overlap or "-",
            "yes" if s.paused else "no", s.next_runs[0].isoformat() if s.next_runs and not s.paused else "-",
            ", ".join(s.recent_runs) or "-",
        )  # fmt: skip
    console.print(table)


def _act(name: str, act: Callable[["ScheduleHandle"], Awaitable[None]], done: str) -> None:
    from office.schedules import office_schedule

    async def body(s: Services) -> None:
        await act(await office_schedule(s.client, name))

    _run(body)
    console.print(f"{done} {name}")


@app.command("pause")
def pause(
    name: Annotated[str, typer.Argument(help="The schedule's name.")],
    note: Annotated[str, typer.Option(help="Why, for the record.")] = "paused with office",
) -> None:
    """Pause a schedule: it starts no run until unpaused (`trigger` still starts one)."""
    _act(name, lambda h: h.pause(note=note), "paused")


@app.command("unpause")
def unpause(name: Annotated[str, typer.Argument(help="The schedule's name.")]) -> None:
    """Unpause a schedule: it starts runs at its times again."""
    _act(name, lambda h: h.unpause(note="unpaused with office"), "unpaused")


@app.command("trigger")
def trigger(name: Annotated[str, typer.Argument(help="The schedule's name.")]) -> None:
    """Start one run of the schedule now (its overlap policy applies)."""
    _act(name, lambda h: h.trigger(), "triggered")


@app.command("delete")
def delete(name: Annotated[str, typer.Argument(help="The schedule's name.")]) -> None:
    """Delete a schedule; the runs it started go on."""
    _act(name, lambda h: h.delete(), "deleted")
