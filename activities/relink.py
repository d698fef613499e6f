"""The activity that gives a run continuing an ended one (`office runs retry | continue`, routing.relink) what it
carries: a copy of the ended run's answered turns in its own transcript, and its own branch, started at the ended
run's branch head.

It acts only on run ids it checks itself: the scheduling workflow is the new office run (activities.boundary), the
ended run is one the store registered, in the same workspace, and the turns it carries are ones the ended run
answered, with the texts the new run's request gives. The branch and the repository are the store's; nothing in
the input names a path, a URL or a command. State keeps one owner: the new run gets its own rows, never a share of
the ended run's."""

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.bookkeeping import store_retrying
from activities.boundary import RunBoundary
from activities.git import workcopy
from activities.git.mirrors import Mirrors
from activities.heartbeat import heartbeating
from contracts.activities import Activity, CarriedOver, CarryOverInput
from contracts.failures import config_error
from routing.relink import carried_problem
from routing.repository import RepositoryConfigError, RunResult, branch_for
from store.repository import Store

CARRY_REFUSED = "CarryOverRefused"


def carry_refused(message: str) -> ApplicationError:
    """The new run cannot carry what its request names: it fails with this message (invalid_input)."""
    return ApplicationError(message, type=CARRY_REFUSED, non_retryable=True)


class RelinkActivities:
    def __init__(self, store: Store, boundary: RunBoundary, mirrors: Mirrors) -> None:
        self.store, self.boundary, self.mirrors = store, boundary, mirrors

    @activity.defn(name=Activity.carry_over)
    async def carry_over(self, inp: CarryOverInput) -> CarriedOver:
        workspace = await self.boundary.check_run(inp.run_id)
        old, link = inp.continues.run_id, inp.continues
        if old == inp.run_id:
            raise carry_refused(f"run {old} cannot continue itself")
        theirs = await store_retrying(lambda: self.store.runs.workspaces_of(old), f"finding run {old}")
        if not theirs:
            raise carry_refused(f"run {old} is not a run of this office (its store has no record of it)")
        if theirs != {workspace}:
            raise carry_refused(f"run {old} ran in workspace {', '.join(sorted(theirs))}, not in {workspace}")
        upto = 2 * link.turns
        rows = await store_retrying(lambda: self.store.read_transcript(old, upto), f"reading run {old}'s transcript")
        if problem := carried_problem(link, inp.texts, [(r.seq, r.role, r.content) for r in rows]):
            raise carry_refused(problem)
        branch = await self._branch(inp, workspace) if link.files else None
        if upto:
            await store_retrying(
                lambda: self.store.transcript.copy_entries(old, inp.run_id, upto), f"copying run {old}'s turns"
            )
        return CarriedOver(turns=link.turns, result=branch)

    async def _branch(self, inp: CarryOverInput, workspace: str) -> RunResult:
        """The new run's branch, started at the ended run's branch head, in the workspace's repository as the store
        holds it."""
        old = inp.continues.run_id
        ws = await self.boundary.workspace_of(inp.run_id)
        if ws is None or ws.repository is None:
            raise config_error(
                f"workspace {workspace!r} has no repository any more, so run {old}'s branch cannot be continued; "
                f"add it back, or retry with --fresh"
            )
        try:
            async with heartbeating():
                found = await workcopy.carry_branch(old, inp.run_id, ws.repository, self.mirrors)
        except RepositoryConfigError as err:
            raise config_error(f"Workspace {workspace!r}, setting {err.setting}: {err}") from err
        if found is None:
            raise carry_refused(
                f"{branch_for(old)} is not in {ws.repository.url} (deleted?), so run {old}'s work cannot be carried; "
                "retry it with --fresh"
            )
        return found
