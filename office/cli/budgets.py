"""`office runs resume`: the `resume` signal, after raising the run's own budget when asked (`set_budget`)."""

from office.cli.common import Services, console, fail, run_with_services
from office.run_input import SubmitError, validate_limits


async def _resume(services: Services, run_id: str, max_cost_usd: float | None, max_tokens: int | None) -> None:
    from routing.budget import RunLimits
    from workflows.office_run import OfficeRunWorkflow

    handle = services.client.get_workflow_handle_for(OfficeRunWorkflow.run, run_id)
    if max_cost_usd is not None or max_tokens is not None:
        await handle.signal(OfficeRunWorkflow.set_budget, RunLimits(max_cost_usd=max_cost_usd, max_tokens=max_tokens))
    await handle.signal(OfficeRunWorkflow.resume)


def resume(run_id: str, max_cost_usd: float | None = None, max_tokens: int | None = None) -> None:
    try:
        validate_limits(max_cost_usd, max_tokens)  # before connecting: nothing is sent with a bad amount
    except SubmitError as err:
        fail(str(err))
    run_with_services(lambda s: _resume(s, run_id, max_cost_usd, max_tokens), client=True)
    raised = [f"{name} {value}" for name, value in (("max_cost_usd", max_cost_usd), ("max_tokens", max_tokens))
              if value is not None]  # fmt: skip
    console.print(f"resume sent to {run_id}" + (f" ({', '.join(raised)})" if raised else ""))
