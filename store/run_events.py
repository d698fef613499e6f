"""A run's progress events (store.tables.RunEventRow): appended in batches by the turn activities, read in id
order by `office watch`, bounded per run and pruned by age."""

from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import delete, func
from sqlalchemy import select as select_columns
from sqlmodel import col, select

from routing.progress import ProgressEvent
from store.database import Database, rowcount
from store.tables import RunEventRow

KEEP_PER_RUN = 1000  # a run's newest events; older ones go as new ones arrive
RUN_EVENTS_KEPT = timedelta(days=7)  # then the watchdog's sweep removes them


class RunEventRepository:
    def __init__(self, database: Database, keep_per_run: int = KEEP_PER_RUN):
        self.database, self.keep_per_run = database, keep_per_run

    async def append(self, run_id: str, attempt: int, events: Sequence[ProgressEvent]) -> None:
        """One batch in one transaction, then the run's oldest events beyond its bound removed."""
        if not events:
            return
        rows = [
            RunEventRow(
                run_id=run_id, attempt=attempt, at=e.at, kind=e.kind, text=e.text, tool_kind=e.tool_kind, path=e.path
            )
            for e in events
        ]
        async with self.database.db() as s:
            s.add_all(rows)
            await s.flush()
            count = (
                await s.execute(select_columns(func.count()).where(col(RunEventRow.run_id) == run_id))
            ).scalar_one()
            if count > self.keep_per_run:
                oldest_kept = (
                    select_columns(col(RunEventRow.id))
                    .where(col(RunEventRow.run_id) == run_id)
                    .order_by(col(RunEventRow.id).desc())
                    .offset(self.keep_per_run - 1)
                    .limit(1)
                    .scalar_subquery()
                )
                await s.execute(
                    delete(RunEventRow).where(col(RunEventRow.run_id) == run_id, col(RunEventRow.id) < oldest_kept)
                )
            await s.commit()

    async def after(self, run_id: str, cursor: int = 0, limit: int = 500) -> list[RunEventRow]:
        """The run's events with an id above `cursor`, oldest first."""
        query = (
            select(RunEventRow)
            .where(col(RunEventRow.run_id) == run_id, col(RunEventRow.id) > cursor)
            .order_by(col(RunEventRow.id))
            .limit(limit)
        )
        async with self.database.reads() as s:
            return list((await s.execute(query)).scalars().all())

    async def prune(self, before: datetime) -> int:
        """Removes every event older than `before`; how many went."""
        async with self.database.db() as s:
            result = await s.execute(delete(RunEventRow).where(col(RunEventRow.at) < before))
            await s.commit()
            return rowcount(result)
