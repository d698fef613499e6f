"""`office watch` and `office runs …`: inspect and control runs."""

import asyncio
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from office.cli.common import (
    DEFAULT_ACTOR,
    EXIT_RUN_FAILED,
    JsonFlag,
    Services,
    console,
    fail,
    print_json,
    run_with_services,
)
from office.cli.usage import cost_text, tokens_text
from office.runs import list_views, run_view
from routing.backlog import GATE_PREFIX, QueueView
from routing.run import RunStatus, RunView

if TYPE_CHECKING:
    from routing.selection import UserDecision

app = typer.Typer(no_args_is_help=True, help="Inspect and control runs.")

ENDED = (RunStatus.completed, RunStatus.failed, RunStatus.cancelled)


def queued_line(q: QueueView) -> str:
    """A queued run: which ceiling it waits for and its place (from its gate), and that it starts by itself."""
    where = f"position {q.position}" if q.position else "position unknown"
    gate = q.gate.removeprefix(f"{GATE_PREFIX}:")
    return f"[cyan]queued:[/] over the ceiling {gate} ({q.priority} priority, {where}); it starts when a slot frees"


def render_view(view: RunView) -> None:
    colour = {"completed": "green", "failed": "red", "parked": "yellow", "cancelled": "magenta"}.get(
        view.status.value, "cyan"
    )
    console.print(
        f"[bold]{view.run_id}[/]  [{colour}]{view.status.value}[/]  workspace={view.workspace} "
        f"agent={view.agent} provider={view.provider or '-'} requested={view.requested_model or '-'} "
        f"effective={view.effective_model or '-'} fallbacks={view.fallback_count}"
    )
    if view.attempts:
        table = Table("seq", "provider", "model", "outcome", "error code", "decision", "sandbox", "tokens", "cost")
        for a in view.attempts:
            table.add_row(
                str(a.seq), a.provider, a.model or "-", a.outcome, a.error_code or "-", a.decision or "-",
                a.sandbox or "-", tokens_text(a.usage), cost_text(a.cost_usd),
            )  # fmt: skip
        console.print(table)
        if view.usage is not None:
            unpriced = f" ({view.unpriced_attempts} attempt(s) without a price)" if view.unpriced_attempts else ""
            console.print(f"usage {tokens_text(view.usage)} tokens, cost {cost_text(view.cost_usd)}{unpriced}")
        if catalogues := sorted({a.catalogue for a in view.attempts if a.catalogue}):
            console.print(f"error codes from rules catalogue {', '.join(catalogues)}")
    if view.sandbox_note:
        console.print(f"[yellow]warning[/] {view.sandbox_note}")
    for w in view.warnings:
        console.print(
            f"[yellow]warning[/] {w.kind}: {w.reason} (requested {w.requested_model}, effective {w.effective_model})"
        )
    if view.status is RunStatus.queued and (q := view.queue) is not None:
        console.print(queued_line(q))
    if view.park_reason:
        console.print(f"[yellow]parked:[/] {view.park_reason} (resume with `office runs resume {view.run_id}`)")
    if view.message:
        console.print(f"[bold]{view.message}[/]")
    if r := view.result:
        console.print(
            f"branch [bold]{r.branch}[/] {r.base_commit[:12]}..{r.head_commit[:12]}: {r.files_changed} files "
            f"changed, +{r.insertions} -{r.deletions} (`office runs diff {view.run_id}`)"
        )
    if view.repository_note:
        console.print(f"[yellow]{view.repository_note}[/]")
    if view.permissions.asked:
        c = view.permissions
        console.print("permissions " + ", ".join(
            f"{k}: {c.allowed.get(k, 0)} allowed / {c.refused.get(k, 0)} refused" for k in sorted(c.asked)
        ))  # fmt: skip
    if view.output:
        console.print(view.output)


def exit_for(view: RunView) -> None:
    if view.status in (RunStatus.failed, RunStatus.cancelled):
        raise typer.Exit(EXIT_RUN_FAILED)


async def _follow(services: Services, run_id: str, interval: float) -> RunView:
    last = None
    while True:
        view = await run_view(services.client, run_id)
        line = (view.status.value, view.provider, len(view.attempts), view.park_reason)
        if line != last:
            last = line
            latest = view.attempts[-1] if view.attempts else None
            step = f" last attempt {latest.provider}:{latest.error_code or latest.outcome}" if latest else ""
            console.print(f"{view.status.value:<10} provider={view.provider or '-'}{step}")
        if view.status in ENDED:
            return view
        await asyncio.sleep(interval)


def watch(run_id: str, interval: Annotated[float, typer.Option(help="Seconds between refreshes.")] = 1.0) -> None:
    """Follow a run until it ends, printing each change."""
    view = run_with_services(lambda s: _follow(s, run_id, interval), client=True)
    render_view(view)
    exit_for(view)


async def _show(services: Services, run_id: str) -> RunView:
    from temporalio.service import RPCError

    try:
        return await run_view(services.client, run_id)
    except RPCError as err:
        fail(f"run {run_id!r}: {err.message}")


@app.command("show")
def runs_show(run_id: str, as_json: JsonFlag = False) -> None:
    """Show one run: status, attempts, warnings, message."""
    view = run_with_services(lambda s: _show(s, run_id), client=True)
    print_json(view.model_dump(mode="json")) if as_json else render_view(view)


@app.command("list")
def runs_list(
    as_json: JsonFlag = False,
    limit: Annotated[int, typer.Option()] = 50,
    query: Annotated[str | None, typer.Option(help="Extra visibility query, e.g. 'OfficeFallbackCount > 0'.")] = None,
) -> None:
    """List recent runs."""
    views = run_with_services(lambda s: list_views(s.client, limit=limit, query=query), client=True)
    if as_json:
        print_json([v.model_dump(mode="json") for v in views])
        return
    table = Table("run", "status", "workspace", "agent", "provider", "effective model", "fallbacks", "error code")
    for v in views:
        table.add_row(
            v.run_id,
            v.status.value,
            v.workspace,
            v.agent,
            v.provider or "-",
            v.effective_model or "-",
            str(v.fallback_count),
            v.error_code or "-",
        )
    console.print(table)


@app.command("cancel")
def runs_cancel(run_id: str) -> None:
    """Cancel a run (its activities are cancelled too)."""
    run_with_services(lambda s: s.client.get_workflow_handle(run_id).cancel(), client=True)
    console.print(f"cancellation requested for {run_id}")


async def _decide(services: Services, run_id: str, decision: "UserDecision") -> None:
    from temporalio.client import WorkflowUpdateFailedError
    from temporalio.exceptions import FailureError
    from temporalio.service import RPCError

    from workflows.office_run import OfficeRunWorkflow

    handle = services.client.get_workflow_handle_for(OfficeRunWorkflow.run, run_id)
    try:
        await handle.execute_update(OfficeRunWorkflow.user_decision, decision)
    except WorkflowUpdateFailedError as err:
        fail(f"run {run_id}: {err.cause.message if isinstance(err.cause, FailureError) else err}")
    except RPCError as err:  # e.g. the run has already ended
        fail(f"run {run_id} is not awaiting a decision ({err.message})")


@app.command("decide")
def runs_decide(
    run_id: str,
    substitute: Annotated[str | None, typer.Option(help="Approve this provider for this run only.")] = None,
    model: Annotated[str | None, typer.Option(help="With --substitute: the model to run there.")] = None,
    retry: Annotated[bool, typer.Option("--retry", help="Try the pinned route again.")] = False,
    cancel: Annotated[bool, typer.Option("--cancel", help="End the run.")] = False,
    actor: Annotated[str, typer.Option(help="Who decides (for the record).")] = DEFAULT_ACTOR,
) -> None:
    """Answer a run parked `awaiting_user_decision`. Nothing is saved as a preference."""
    from routing.selection import UserDecision

    chosen = [name for name, on in (("substitute", substitute), ("retry", retry), ("cancel", cancel)) if on]
    if len(chosen) != 1:
        fail("choose exactly one of --substitute PROVIDER, --retry, --cancel")
    decision = UserDecision(action=chosen[0], provider=substitute, model=model, actor=actor)  # type: ignore[arg-type]
    run_with_services(lambda s: _decide(s, run_id, decision), client=True)
    console.print(f"{chosen[0]} sent to {run_id}")


@app.command("explain")
def runs_explain(run_id: str, as_json: JsonFlag = False) -> None:
    """Three timelines: what the run selected and why, what durable state changed, what cleanup did."""
    from office.explain import explain_run

    report = run_with_services(lambda s: explain_run(s.client, s.store, run_id), client=True, store=True)
    if as_json:
        print_json(report)
        return
    console.print("[bold]1. live run: what it selected and why[/]")
    for a in report["selected"]:
        console.print(
            f"  attempt {a['seq']}: {a['provider']} model={a['model'] or a['requested_model']} "
            f"source={a['source']} → {a['outcome']}"
            + (f" [{a['error_code']}] {a['decision']}: {a['reason']}" if a["error_code"] else "")
        )
    for step in report["live"]:
        detail = {k: v for k, v in step.items() if k not in ("at", "event")}
        console.print(f"  {step['at']}  {step['event']}  {detail or ''}")
    console.print("[bold]2. durable state changed during the run[/]")
    for d in report["durable"] or [{"at": "-", "kind": "(none)"}]:
        console.print(f"  {d}")
    console.print("[bold]3. cleanup[/]")
    for c in report["cleanup"] or [{"at": "-", "kind": "(none)"}]:
        console.print(f"  {c}")


@app.command("resume")
def runs_resume(run_id: str) -> None:
    """Resume a parked run after fixing credentials, plan or capacity."""
    from workflows.office_run import OfficeRunWorkflow

    run_with_services(lambda s: s.client.get_workflow_handle(run_id).signal(OfficeRunWorkflow.resume), client=True)
    console.print(f"resume sent to {run_id}")


async def run_diff(services: Services, run_id: str, stat: bool = False) -> str:
    """The run's changes, base..head of its branch, read from the repository (the working copy is gone)."""
    from activities.git.mirrors import Mirrors
    from office.settings import work_dir_from_env
    from routing.repository import RepositoryConfigError

    view = await _show(services, run_id)
    if view.result is None:
        fail(f"run {run_id} has no commit on a branch (no repository, or no turn on an agent with files). "
             f"{view.repository_note or ''}")  # fmt: skip
    workspace = await services.store.get_workspace(view.workspace)
    if workspace is None or workspace.repository is None:
        fail(f"workspace {view.workspace!r} has no repository setting any more; the branch is {view.result.branch}")
    try:
        return await Mirrors(work_dir_from_env()).diff(
            workspace.repository, view.result.base_commit, view.result.head_commit, stat=stat
        )
    except RepositoryConfigError as err:
        fail(f"workspace {view.workspace!r}, setting {err.setting}: {err}")


@app.command("diff")
def runs_diff(
    run_id: str, stat: Annotated[bool, typer.Option("--stat", help="Only the files and their counts.")] = False
) -> None:
    """Print a run's changes: its branch from the base commit to the head commit."""
    text = run_with_services(lambda s: run_diff(s, run_id, stat), client=True, store=True)
    print(text, end="")
