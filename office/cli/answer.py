"""`office runs answer`: a person answers the permission question a run's agent is waiting on (routing.questions)."""

from typing import TYPE_CHECKING, Annotated

import typer

from office.cli.common import DEFAULT_ACTOR, Services, console, fail, run_with_services
from routing.questions import ANSWER_PERMISSION, PermissionAnswer, QuestionRecord, RunGrant, grant_of

if TYPE_CHECKING:
    from routing.run import RunView


def describe(q: QuestionRecord) -> str:
    """One line: the request, as the run shows it (redacted, paths relative to the working copy)."""
    what = ", ".join(q.paths) or q.command or q.title or "-"
    return f"{q.kind} {what}"


def grant_text(grant: RunGrant) -> str:
    """What a `--for-run` grant covers, in words."""
    if "." in grant.prefixes:
        return f"{grant.kind} anywhere in the working copy"
    if grant.prefixes:
        return f"{grant.kind} under {', '.join(p + '/' for p in grant.prefixes)}"
    return f"{grant.kind} of the command {grant.command!r}"


def question_lines(view: "RunView") -> list[str]:
    """What `runs show` says about the run's questions: the pending ones, and how the others were answered."""
    lines = []
    for q in view.questions:
        if q.answered_by is None:
            until = f" until {q.deadline:%H:%M:%S}" if q.deadline else ""
            lines.append(
                f"[yellow]awaiting permission:[/] {describe(q)}{until} "
                f"(`office runs answer {view.run_id} --allow|--deny`)"
            )
        else:
            verdict = {True: "allowed", False: "refused", None: "not answered"}[q.allowed]
            who = q.actor if q.answered_by == "person" else q.answered_by
            lines.append(f"permission {describe(q)}: {verdict} ({who}{', for the run' if q.for_run else ''})")
    return lines


async def answer_question(services: Services, run_id: str, answer: PermissionAnswer) -> QuestionRecord:
    """The update, with its validator's refusal (nothing pending, already answered) as one line."""
    from temporalio.client import WorkflowUpdateFailedError
    from temporalio.exceptions import FailureError
    from temporalio.service import RPCError

    from office.runs import run_view

    try:
        if answer.question_id is None:  # the question the person sees now: answered at most once
            view = await run_view(services.client, run_id)
            pending = [q for q in view.questions if q.answered_by is None]
            if not pending:
                fail(f"run {run_id}: nothing is awaiting a permission answer ({view.status.value})")
            answer = answer.model_copy(update={"question_id": pending[0].question_id})
        handle = services.client.get_workflow_handle(run_id)
        record: QuestionRecord = await handle.execute_update(ANSWER_PERMISSION, answer, result_type=QuestionRecord)
    except WorkflowUpdateFailedError as err:
        fail(f"run {run_id}: {err.cause.message if isinstance(err.cause, FailureError) else err}")
    except RPCError as err:  # no such run, or it has ended
        fail(f"run {run_id} is not awaiting a permission answer ({err.message})")
    return record


def runs_answer(
    run_id: str,
    allow: Annotated[bool, typer.Option("--allow", help="Let the agent go ahead with this request.")] = False,
    deny: Annotated[bool, typer.Option("--deny", help="Refuse the request (the agent hears no).")] = False,
    for_run: Annotated[
        bool,
        typer.Option(
            "--for-run",
            help="With --allow: also allow the same kind under the same directories (or the same command) for the "
            "rest of this run only; never saved as a preference.",
        ),
    ] = False,
    question: Annotated[str | None, typer.Option(help="The question id (default: the oldest pending one).")] = None,
    actor: Annotated[str, typer.Option(help="Who answers (for the run's permission record).")] = DEFAULT_ACTOR,
) -> None:
    """Answer the permission question a run's agent waits on (a rule of `ask` in the workspace's permissions).
    Exit 2 when nothing is pending or the question was already answered."""
    if allow == deny:
        fail("choose exactly one of --allow, --deny")
    if for_run and deny:
        fail("--for-run goes with --allow only (a refusal is for this request)")
    answer = PermissionAnswer(allow=allow, for_run=for_run, actor=actor, question_id=question)
    record = run_with_services(lambda s: answer_question(s, run_id, answer), client=True)
    console.print(f"{'allowed' if allow else 'refused'} {describe(record)} in {run_id}")
    if for_run:
        console.print(
            f"for the rest of the run: {grant_text(grant_of(record))}, once the agent's session confirms it asked "
            "this question (never saved as a preference)"
        )
