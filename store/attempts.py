"""The attempts aggregate: one row per (run, attempt seq), the record of every provider call a run made."""

from typing import Any

from sqlmodel import col, select

from store.database import Database
from store.tables import AttemptRow


class AttemptRepository:
    def __init__(self, database: Database):
        self.database = database

    async def record_attempt(self, values: dict[str, Any], supersede_success: bool = False) -> bool:
        """Insert-if-absent on (run, seq); True when this call wrote the row. `supersede_success`: the workflow
        books an attempt whose worker it lost, and that worker's late close may have recorded it as succeeded
        first: the booking replaces such a row (the run never took that answer as the attempt's result)."""
        if not supersede_success:
            return await self.database.insert_ignore(AttemptRow, values)
        return await self.database.upsert(
            AttemptRow, values, ["run_id", "seq"], where=col(AttemptRow.outcome) == "succeeded"
        )

    async def list_attempts(self, run_id: str) -> list[AttemptRow]:
        query = select(AttemptRow).where(AttemptRow.run_id == run_id).order_by(col(AttemptRow.seq))
        async with self.database.db() as s:
            return list((await s.execute(query)).scalars().all())
