"""What `office submit`, `office runs …` and their kin do once the input is valid: the calls to Temporal and the
store.

The command modules (submit.py, runs.py, relink.py) parse and check the command line and print the outcome; they
import this module only when a command gets this far, so `office --help` and a command refused for its input never
load the Temporal client, the store or the workflows. Each command's function here connects what it needs
(`run_with_services`) and returns what the command prints."""

import asyncio
from collections.abc import Awaitable, Callable

from temporalio.client import WorkflowUpdateFailedError
from temporalio.exceptions import FailureError
from temporalio.service import RPCError

from activities.git.mirrors import Mirrors
from office.cli.common import EXIT_PARKED, Services, err_console, fail, run_with_services
from office.runs import RunHandle, SayRefused, TurnText, list_views, run_view, say, turn_texts, wait_for_view
from office.settings import work_dir_from_env
from routing.conversation import SayAccepted
from routing.repository import RepositoryConfigError
from routing.run import RunStatus, RunView
from routing.selection import UserDecision
from workflows.office_run import OfficeRunWorkflow

StartRun = Callable[[Services], Awaitable[RunHandle]]


def start_and_settle(start: StartRun, wait: bool, quiet: bool) -> RunView | str:
    """`office submit` and `office runs retry|continue`: the new run's id, or with `wait` its view once it has
    settled (`wait_until_settled`)."""
    return run_with_services(lambda s: _start_and_settle(s, start, wait, quiet), client=True, store=True)


async def _start_and_settle(services: Services, start: StartRun, wait: bool, quiet: bool) -> RunView | str:
    handle = await start(services)
    if not wait:
        return handle.id
    if not quiet:
        err_console.print(
            f"waiting for {handle.id} to end; if it parks, this returns with status parked (exit {EXIT_PARKED})",
            soft_wrap=True,
            highlight=False,
        )
    return await wait_until_settled(services, handle.id)


async def wait_until_settled(services: Services, run_id: str, interval: float = 0.5) -> RunView:
    """The run's view once it has ended, parked (it waits for a person, possibly for days) or gone idle (every turn
    answered; open for `office runs say` until the workspace's idle_timeout)."""
    ended = asyncio.ensure_future(wait_for_view(services.client, run_id))
    try:
        while True:
            done, _ = await asyncio.wait({ended}, timeout=interval)
            if done:
                return ended.result()
            view = await run_view(services.client, run_id)
            if view.status in (RunStatus.parked, RunStatus.idle):
                return view
    finally:
        ended.cancel()


async def _view(services: Services, run_id: str) -> RunView:
    try:
        return await run_view(services.client, run_id)
    except RPCError as err:
        fail(f"run {run_id!r}: {err.message}")


async def _view_and_turns(services: Services, run_id: str) -> tuple[RunView, list[TurnText]]:
    view = await _view(services, run_id)
    return view, await turn_texts(services.store, run_id)


def show(run_id: str) -> tuple[RunView, list[TurnText]]:
    """`office runs show`: the run's view and every turn's text and answer (from the store)."""
    return run_with_services(lambda s: _view_and_turns(s, run_id), client=True, store=True)


def list_runs(limit: int, query: str | None) -> list[RunView]:
    """`office runs list`: the most recent runs, with the user's extra visibility query."""
    return run_with_services(lambda s: list_views(s.client, limit=limit, query=query), client=True)


async def _say(services: Services, run_id: str, text: str) -> SayAccepted:
    try:
        return await say(services.client, run_id, text)
    except SayRefused as err:
        fail(str(err))


def add_turn(run_id: str, text: str) -> SayAccepted:
    """`office runs say`: the turn, once the run accepted it."""
    return run_with_services(lambda s: _say(s, run_id, text), client=True)


async def _decide(services: Services, run_id: str, decision: UserDecision) -> None:
    handle = services.client.get_workflow_handle_for(OfficeRunWorkflow.run, run_id)
    try:
        await handle.execute_update(OfficeRunWorkflow.user_decision, decision)
    except WorkflowUpdateFailedError as err:
        fail(f"run {run_id}: {err.cause.message if isinstance(err.cause, FailureError) else err}")
    except RPCError as err:  # e.g. the run has already ended
        fail(f"run {run_id} is not awaiting a decision ({err.message})")


def decide(run_id: str, decision: UserDecision) -> None:
    """`office runs decide`: the decision, once the parked run took it."""
    run_with_services(lambda s: _decide(s, run_id, decision), client=True)


async def run_diff(services: Services, run_id: str, stat: bool = False) -> str:
    """The run's changes, base..head of its branch, read from the repository (the working copy is gone)."""
    view = await _view(services, run_id)
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


def diff(run_id: str, stat: bool) -> str:
    """`office runs diff`: the run's changes as git prints them."""
    return run_with_services(lambda s: run_diff(s, run_id, stat), client=True, store=True)
