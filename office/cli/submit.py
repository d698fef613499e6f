"""`office submit`: start an office run, optionally wait for it to end."""

import typer

from office.cli.common import Services, console, fail, print_json, run_with_services
from office.cli.runs import exit_for, render_view
from office.runs import SubmitError, wait_for_view
from office.runs import submit as submit_run
from routing.run import RunView


async def _submit(services: Services, wait: bool, **fields) -> RunView | str:
    handle = await submit_run(services.client, services.store, **fields)
    if not wait:
        return handle.id
    return await wait_for_view(services.client, handle.id)


def submit(
    prompt: str = typer.Argument(..., help="The task for the agent."),
    workspace: str = typer.Option(..., "--workspace", "-w"),
    agent: str = typer.Option(..., "--agent", "-a"),
    tier: str | None = typer.Option(None, help="Tier of the workspace's execution profiles."),
    run_id: str | None = typer.Option(None, help="Workflow id; generated when omitted."),
    pin_provider: list[str] = typer.Option(
        [], "--pin-provider", help="Pin this run to a provider (repeatable); no fallback outside."
    ),
    pin_model: str | None = typer.Option(None, "--pin-model", help="Pin this run to a model."),
    follow_up: list[str] = typer.Option([], "--follow-up", help="A further user turn (repeatable)."),
    wait: bool = typer.Option(False, "--wait", help="Wait for the run to end."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Submit an office run."""
    fields = dict(
        workspace=workspace,
        agent=agent,
        prompt=prompt,
        run_id=run_id,
        tier=tier,
        pin_providers=pin_provider,
        pin_model=pin_model,
        follow_ups=follow_up,
    )
    try:
        result = run_with_services(lambda s: _submit(s, wait, **fields), client=True, store=True)
    except SubmitError as err:
        fail(str(err))
    if isinstance(result, str):
        print_json({"run_id": result, "status": "running"}) if as_json else console.print(f"submitted {result}")
        return
    print_json(result.model_dump(mode="json")) if as_json else render_view(result)
    exit_for(result)
