"""Activities that read and write route state: configuration, provider health, attempts, transcripts."""

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.attempts import store_attempt
from activities.boundary import RunBoundary, local_only
from activities.git import workcopy
from contracts.activities import Activity, AttemptRecord, RouteRequest
from contracts.failures import config_error
from routing.notify import subscribed
from routing.repository import RepositoryConfig, RepositoryConfigError, RepositoryUnavailableError
from routing.route import resolve_route
from routing.run import RoutePlan
from store.repository import Store
from store.rows import utcnow


class RouteStateActivities:
    def __init__(self, store: Store, boundary: RunBoundary, work_dir: str | None = None):
        self.store, self.boundary, self.work_dir = store, boundary, work_dir

    @activity.defn(name=Activity.resolve_route)
    async def resolve_route(self, req: RouteRequest) -> RoutePlan:
        local_only(Activity.resolve_route)  # it returns the workspace's whole configuration
        # Only the office's own workflow code runs this (local, in its own workflow task): the registration is the
        # proof its activities check (activities.boundary), without asking the server.
        await self.boundary.register(req.run_id, req.workspace)
        workspace, agent, health, stored_pins = await self.store.route_inputs(
            req.workspace, req.agent, with_pins=not req.pins.any
        )
        if workspace is None:
            raise config_error(f"workspace {req.workspace!r} does not exist; create it with `office workspace set`")
        if agent is None:
            raise config_error(f"agent profile {req.agent!r} does not exist; create it with `office profile set`")
        pins = req.pins if req.pins.any else stored_pins
        if req.substitute and req.substitute.provider not in workspace.providers:
            raise config_error(f"substitute provider {req.substitute.provider!r} is not in workspace {req.workspace!r}")
        if workspace.repository is not None and self.work_dir is not None:
            await self._check_repository(req.workspace, workspace.repository)
        plan = resolve_route(
            workspace,
            agent,
            health,
            utcnow(),
            req.tier,
            frozenset(),
            req.retry_blocked,
            pins,
            req.substitute,
        )
        budgets = workspace.budgets if workspace.budgets.any else None  # the run checks them before each attempt
        return plan.model_copy(
            update={
                "repository": workspace.repository,
                "permissions": workspace.permissions,
                "notify": subscribed(workspace.notify),
                "budgets": budgets,
                "idle_timeout_s": workspace.idle_timeout,
                "unreadable_failure_wait_s": workspace.unreadable_failure_wait,
                "providers": list(workspace.providers),
                "history_bound": workspace.history_bound,
                "max_concurrent_runs": workspace.max_concurrent_runs,
            }
        )

    async def _check_repository(self, name: str, repository: RepositoryConfig) -> None:
        """Bad repository settings fail the run here, before any agent starts (invalid_configuration, with the
        setting to change); an outage of a repository that worked before is retried like a store outage."""
        try:
            await workcopy.check(repository, self.work_dir or "")
        except RepositoryConfigError as err:
            raise config_error(f"Workspace {name!r}, setting {err.setting}: {err}") from err
        except RepositoryUnavailableError as err:
            raise ApplicationError(str(err), type="RepositoryUnavailable") from err

    @activity.defn(name=Activity.record_attempt)
    async def record_attempt(self, rec: AttemptRecord) -> None:
        local_only(Activity.record_attempt)  # it writes attempts and provider health
        await store_attempt(self.store, rec)
