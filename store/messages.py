"""Messages persisted with a run (model-selection warnings), idempotent by their key."""

from typing import Any

from sqlmodel import col, select

from store.database import Database
from store.rows import utcnow
from store.tables import RunMessageRow


class MessageRepository:
    def __init__(self, database: Database):
        self.database = database

    async def add_run_message(self, key: str, run_id: str, kind: str, payload: dict[str, Any]) -> bool:
        return await self.database.insert_ignore(
            RunMessageRow,
            {"idempotency_key": key, "run_id": run_id, "kind": kind, "payload": payload, "created_at": utcnow()},
        )

    async def list_run_messages(self, run_id: str) -> list[RunMessageRow]:
        query = select(RunMessageRow).where(RunMessageRow.run_id == run_id).order_by(col(RunMessageRow.created_at))
        async with self.database.db() as s:
            return list((await s.execute(query)).scalars().all())
