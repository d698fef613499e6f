"""Registered office runs: the worker's proof, without asking the server, that an activity's workflow is an
office run, and the workspace it acts in (activities.boundary)."""

from sqlmodel import col, select

from store.database import Database
from store.rows import utcnow
from store.tables import RunRow


class RunRepository:
    def __init__(self, database: Database):
        self.database = database

    async def register_run(self, workflow_run_id: str, run_id: str, workspace: str) -> None:
        """Idempotent: a re-resolved route registers nothing new."""
        values = {"workflow_run_id": workflow_run_id, "run_id": run_id, "workspace": workspace}
        await self.database.insert_ignore(RunRow, values | {"registered_at": utcnow()})

    async def registered_run(self, workflow_run_id: str) -> RunRow | None:
        async with self.database.reads() as s:
            return await s.get(RunRow, workflow_run_id)

    async def workspaces_of(self, run_id: str) -> set[str]:
        """The workspaces the office run `run_id` registered in (one for a real run; none: not this office's)."""
        async with self.database.reads() as s:
            query = select(RunRow.workspace).where(col(RunRow.run_id) == run_id).distinct()
            return set((await s.execute(query)).scalars().all())
