"""`office watch` and `office runs …`: inspect and control runs. What a command does once its input is valid is
in office.cli.run_calls, imported only then (see there)."""

from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from office.cli.answer import question_lines, runs_answer
from office.cli.common import DEFAULT_ACTOR, EXIT_RUN_FAILED, JsonFlag, console, fail, print_json, run_with_services
from office.cli.relink import continues_line, runs_continue, runs_retry
from office.cli.usage import cost_text, tokens_text
from routing.backlog import GATE_PREFIX, QueueView
from routing.run import RunStatus, RunView
from routing.selection import UserDecision

if TYPE_CHECKING:
    from office.runs import TurnText

app = typer.Typer(no_args_is_help=True, help="Inspect and control runs.")
app.command("answer")(runs_answer)

ENDED = (RunStatus.completed, RunStatus.failed, RunStatus.cancelled)


# What a person does about each park reason (also the generated error reference's park table).
PARK_NEXT = {
    "awaiting_user_decision": "answer it with `office runs decide {id} --substitute PROVIDER | --retry | --cancel`",
    "unreadable_failure": "read its failure (`office runs show {id}`), then `office runs decide {id} --retry | "
    "--substitute PROVIDER | --cancel`; nobody deciding fails it after the workspace's unreadable_failure_wait",
    "blocked_provider_action_required": "fix the credentials or plan it names, then `office runs resume {id}`",
    "waiting_for_provider_capacity": "it continues by itself when capacity returns, or `office runs resume {id}`",
    "budget_exhausted": "raise the budget its message names and `office runs resume {id}`, or wait for the "
    "budget's window to reset (it then continues by itself)",
}


def queued_line(q: QueueView) -> str:
    """A queued run: which ceiling it waits for and its place (from its gate), and that it starts by itself."""
    where = f"position {q.position}" if q.position else "position unknown"
    gate = q.gate.removeprefix(f"{GATE_PREFIX}:")
    return f"[cyan]queued:[/] over the ceiling {gate} ({q.priority} priority, {where}); it starts when a slot frees"


def render_view(view: RunView, turns: "list[TurnText] | None" = None) -> None:
    """`turns`: every turn's text and answer from the store (`office runs show`); without them the last answer."""
    colour = {"completed": "green", "failed": "red", "parked": "yellow", "cancelled": "magenta", "idle": "blue"}.get(
        view.status.value, "cyan"
    )
    console.print(
        f"[bold]{view.run_id}[/]  [{colour}]{view.status.value}[/]  workspace={view.workspace} "
        f"agent={view.agent} provider={view.provider or '-'} requested={view.requested_model or '-'} "
        f"effective={view.effective_model or '-'} fallbacks={view.fallback_count}"
    )
    if link := continues_line(view):
        console.print(link)
    if view.earlier_attempts:
        console.print(
            f"{view.earlier_attempts} earlier attempts are in the store (`office runs explain {view.run_id}`)"
        )
    render_attempts(view)
    if view.schedule_id:
        console.print(f"started by schedule {view.schedule_id} (`office schedule list`)")
    if view.sandbox_note:
        console.print(f"[yellow]warning[/] {view.sandbox_note}")
    for w in view.warnings:
        console.print(
            f"[yellow]warning[/] {w.kind}: {w.reason} (requested {w.requested_model}, effective {w.effective_model})"
        )
    if view.status is RunStatus.queued and (q := view.queue) is not None:
        console.print(queued_line(q))
    if view.park_reason:
        then = PARK_NEXT.get(view.park_reason, "resume it with `office runs resume {id}`").format(id=view.run_id)
        console.print(f"[yellow]parked:[/] {view.park_reason} ({then})")
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
    for line in question_lines(view):
        console.print(line)
    if view.status is RunStatus.idle:
        console.print(f'[blue]idle:[/] open for more turns (`office runs say {view.run_id} "…"`)')
    render_turns(view, turns)


def render_turns(view: RunView, turns: "list[TurnText] | None") -> None:
    """A run of one turn shows its answer; a conversation shows every turn, numbered, in order."""
    if not turns or len(turns) == 1:
        whole = turns[0].answer if turns else None  # from the store: a long answer's history holds only its head
        if whole or view.output:
            console.print(whole or view.output, markup=False, highlight=False)  # the agent's text: "[x]" not a style
        return
    for t in turns:
        said = escape(" ".join(t.said.split()))
        console.print(f"[bold]turn {t.turn}[/] [dim]{said[:100]}{'…' if len(said) > 100 else ''}[/]", soft_wrap=True)
        if t.answer is None:
            console.print("[dim](not answered)[/]")
        else:
            console.print(t.answer, markup=False, highlight=False, soft_wrap=True)


def render_attempts(view: RunView) -> None:
    """The attempts table, the run's usage and cost, and the rules catalogues that classified its failures."""
    if not view.attempts:
        return
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


def exit_for(view: RunView) -> None:
    if view.status in (RunStatus.failed, RunStatus.cancelled):
        raise typer.Exit(EXIT_RUN_FAILED)


def watch(run_id: str, interval: Annotated[float, typer.Option(help="Seconds between looks.")] = 0.5) -> None:
    """Follow a run until it ends: its agent's messages and tool calls (kind and path) as they happen, its state,
    the countdown of a short retry, a question waiting for a person; then the run as `runs show` prints it."""
    from office.cli.watch import follow

    view = run_with_services(lambda s: follow(s, run_id, interval), client=True, store=True)
    render_view(view)
    exit_for(view)


@app.command("show")
def runs_show(run_id: str, as_json: JsonFlag = False) -> None:
    """Show one run: status, attempts, warnings, message, and every turn's answer (read from the store)."""
    from office.cli.run_calls import show

    view, turns = show(run_id)
    if as_json:
        print_json(view.model_dump(mode="json") | {"turns": [t.model_dump(mode="json") for t in turns]})
    else:
        render_view(view, turns)


@app.command("say")
def runs_say(
    run_id: str, text: Annotated[str, typer.Argument(help="What the agent should do next: the run's next turn.")]
) -> None:
    """Add a turn to a live run (after the turns it already has) or to one idle after its last turn (workspace
    `idle_timeout`). Returns once the run accepted it; `office runs show` shows the answer. A run that ended takes
    no more turns (exit 2)."""
    from office.cli.run_calls import add_turn

    accepted = add_turn(run_id, text)
    ahead = f", after {accepted.ahead} waiting" if accepted.ahead else ""
    console.print(f"turn {accepted.turn} queued on {run_id}{ahead}")


@app.command("list")
def runs_list(
    as_json: JsonFlag = False,
    limit: Annotated[int, typer.Option()] = 50,
    query: Annotated[str | None, typer.Option(help="Extra visibility query, e.g. 'OfficeFallbackCount > 0'.")] = None,
) -> None:
    """List recent runs."""
    from office.cli.run_calls import list_runs

    views = list_runs(limit, query)
    if as_json:
        print_json([v.model_dump(mode="json") for v in views])
        return
    table = Table(
        "run", "status", "workspace", "agent", "provider", "effective model", "fallbacks", "error code", "schedule"
    )
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
            v.schedule_id or "-",
        )
    console.print(table)


@app.command("cancel")
def runs_cancel(run_id: str) -> None:
    """Cancel a run (its activities are cancelled too)."""
    run_with_services(lambda s: s.client.get_workflow_handle(run_id).cancel(), client=True)
    console.print(f"cancellation requested for {run_id}")


@app.command("decide")
def runs_decide(
    run_id: str,
    substitute: Annotated[str | None, typer.Option(help="Approve this provider for this run only.")] = None,
    model: Annotated[str | None, typer.Option(help="With --substitute: the model to run there.")] = None,
    retry: Annotated[bool, typer.Option("--retry", help="Try the route again.")] = False,
    cancel: Annotated[bool, typer.Option("--cancel", help="End the run.")] = False,
    actor: Annotated[str, typer.Option(help="Who decides (for the record).")] = DEFAULT_ACTOR,
) -> None:
    """Answer a run parked `awaiting_user_decision` (a pinned route failed) or `unreadable_failure` (no rule could
    read its failure). Nothing is saved as a preference."""
    chosen = [name for name, on in (("substitute", substitute), ("retry", retry), ("cancel", cancel)) if on]
    if len(chosen) != 1:
        fail("choose exactly one of --substitute PROVIDER, --retry, --cancel")
    decision = UserDecision(action=chosen[0], provider=substitute, model=model, actor=actor)  # type: ignore[arg-type]
    from office.cli.run_calls import decide

    decide(run_id, decision)
    console.print(f"{chosen[0]} sent to {run_id}")


@app.command("explain")
def runs_explain(run_id: str, as_json: JsonFlag = False) -> None:
    """Three timelines: what the run selected and why, what durable state changed, what cleanup did."""
    from office.explain import explain_run, timeline_lines

    report = run_with_services(lambda s: explain_run(s.client, s.store, run_id), client=True, store=True)
    if as_json:
        print_json(report)
        return
    for line in timeline_lines(report):
        console.print(line, soft_wrap=True, highlight=False)


app.command("retry")(runs_retry)
app.command("continue")(runs_continue)


@app.command("resume")
def runs_resume(
    run_id: str,
    max_cost_usd: Annotated[
        float | None, typer.Option(help="Raise (or set) the run's budget in USD before it checks again.")
    ] = None,
    max_tokens: Annotated[int | None, typer.Option(help="Raise (or set) the run's budget in tokens.")] = None,
) -> None:
    """Resume a parked run after fixing credentials, plan, capacity or its budget."""
    from office.cli.budgets import resume

    resume(run_id, max_cost_usd, max_tokens)


@app.command("diff")
def runs_diff(
    run_id: str, stat: Annotated[bool, typer.Option("--stat", help="Only the files and their counts.")] = False
) -> None:
    """Print a run's changes: its branch from the base commit to the head commit."""
    from office.cli.run_calls import diff

    text = diff(run_id, stat)
    print(text, end="")
