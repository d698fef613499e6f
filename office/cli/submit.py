"""`office submit`: start an office run, optionally wait for it to end or park. The arguments are checked here;
starting and waiting is office.cli.run_calls, imported only then."""

from typing import Annotated

import typer

from office.cli.common import EXIT_PARKED, JsonFlag, console, err_console, fail, print_json
from office.cli.runs import PARK_NEXT, exit_for, render_view
from office.run_input import SubmitError, validate_limits, validate_text
from routing.backlog import RunPriority
from routing.run import RunStatus, RunView


def submit(
    prompt: Annotated[str, typer.Argument(help="The task for the agent.")],
    workspace: Annotated[str, typer.Option("--workspace", "-w")],
    agent: Annotated[str, typer.Option("--agent", "-a")],
    tier: Annotated[
        str | None, typer.Option(help="Tier of the workspace's execution profiles (default: its default).")
    ] = None,
    run_id: Annotated[str | None, typer.Option(help="Workflow id; generated when omitted.")] = None,
    pin_provider: Annotated[
        list[str] | None,
        typer.Option("--pin-provider", help="Pin this run to a provider (repeatable); no fallback outside."),
    ] = None,
    pin_model: Annotated[str | None, typer.Option("--pin-model", help="Pin this run to a model.")] = None,
    follow_up: Annotated[
        list[str] | None, typer.Option("--follow-up", help="A further user turn (repeatable, not empty).")
    ] = None,
    wait: Annotated[
        bool,
        typer.Option(
            "--wait",
            help="Wait until the run ends (exit 0 completed, 1 failed or cancelled) or parks: a parked run returns "
            "at once with status parked, its reason and exit 4, and keeps waiting on the server for "
            "`office runs resume` / `office runs decide`; an idle run (every turn answered, open for `office runs "
            "say` until the workspace's idle_timeout) returns with exit 0.",
        ),
    ] = False,
    max_cost_usd: Annotated[
        float | None,
        typer.Option(
            help="The run's budget in USD (default: the workspace's budgets.run_max_cost_usd): it parks as "
            "budget_exhausted before an attempt that would pass it.",
        ),
    ] = None,
    max_tokens: Annotated[
        int | None,
        typer.Option(help="The run's budget in tokens (default: the workspace's budgets.run_max_tokens)."),
    ] = None,
    priority: Annotated[
        RunPriority,
        typer.Option(
            help="Its class where runs wait: over a ceiling (max_concurrent_runs, max_concurrent_sessions) "
            "interactive runs start first, batch runs last (a batch run waiting over 15 minutes counts as default); "
            "also Temporal's task priority of the run.",
        ),
    ] = RunPriority.default,
    as_json: JsonFlag = False,
) -> None:
    """Submit an office run."""
    pin_provider, follow_up = pin_provider or [], follow_up or []
    try:
        validate_text(prompt, follow_up, pin_model)  # before connecting: nothing to start with bad text
        validate_limits(max_cost_usd, max_tokens)
    except SubmitError as err:
        fail(str(err))

    from office.cli.run_calls import start_and_settle
    from office.runs import submit as submit_run

    try:
        result = start_and_settle(
            lambda s: submit_run(
                s.client,
                s.store,
                workspace=workspace,
                agent=agent,
                prompt=prompt,
                run_id=run_id,
                tier=tier,
                pin_providers=pin_provider,
                pin_model=pin_model,
                follow_ups=follow_up,
                max_cost_usd=max_cost_usd,
                max_tokens=max_tokens,
                priority=priority,
            ),
            wait,
            quiet=as_json,
        )
    except SubmitError as err:
        fail(str(err))
    if isinstance(result, str):
        print_json({"run_id": result, "status": "running"}) if as_json else console.print(f"submitted {result}")
        return
    finish(result, as_json)


def finish(result: RunView, as_json: bool) -> None:
    """A waited-for run: its view, and the exit status its end (or park) gives."""
    print_json(result.model_dump(mode="json")) if as_json else render_view(result)
    if result.status is RunStatus.parked:
        reason = result.park_reason.value if result.park_reason else "parked"
        then = PARK_NEXT.get(reason, "resume it with `office runs resume {id}`").format(id=result.run_id)
        err_console.print(f"run {result.run_id} is parked ({reason}): {then}", soft_wrap=True, highlight=False)
        raise typer.Exit(EXIT_PARKED)
    exit_for(result)
