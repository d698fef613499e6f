"""The attempts aggregate: one row per (run, attempt seq), the record of every provider call a run made."""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import case, func
from sqlalchemy import select as select_columns
from sqlmodel import col, select

from store.database import Database
from store.tables import AttemptRow


@dataclass(frozen=True)
class UsageGroup:
    """Usage of the attempts of one (workspace, agent, provider, model) over a period. `cost_usd` sums the priced
    attempts only; `unpriced` counts the attempts with tokens but no price (their cost is unknown)."""

    workspace: str | None
    agent: str | None
    provider: str
    model: str | None
    attempts: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost_usd: float | None
    unpriced: int


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

    async def usage_since(self, since: datetime, workspace: str | None = None) -> list[UsageGroup]:
        """Tokens and cost of the attempts that finished at or after `since` (in `workspace` only, when given), by
        workspace, agent, provider and model (the effective model, else the requested one), largest cost first."""
        model = func.coalesce(col(AttemptRow.effective_model), col(AttemptRow.requested_model))
        keys = (col(AttemptRow.workspace), col(AttemptRow.agent), col(AttemptRow.provider), model)
        sums = [
            func.coalesce(func.sum(col(c)), 0)
            for c in (AttemptRow.input_tokens, AttemptRow.output_tokens, AttemptRow.cache_read_tokens,
                      AttemptRow.cache_write_tokens)
        ]  # fmt: skip
        unpriced = case((col(AttemptRow.input_tokens).is_not(None) & col(AttemptRow.cost_usd).is_(None), 1), else_=0)
        query = (
            select_columns(*keys, func.count(), *sums, func.sum(col(AttemptRow.cost_usd)), func.sum(unpriced))
            .where(col(AttemptRow.finished_at) >= since)
            .group_by(*keys)
        )
        if workspace is not None:
            query = query.where(col(AttemptRow.workspace) == workspace)
        async with self.database.db() as s:
            rows: list[Any] = list((await s.execute(query)).all())
        groups = [
            UsageGroup(
                workspace=r[0],
                agent=r[1],
                provider=r[2],
                model=r[3],
                attempts=int(r[4]),
                input_tokens=int(r[5] or 0),
                output_tokens=int(r[6] or 0),
                cache_read_tokens=int(r[7] or 0),
                cache_write_tokens=int(r[8] or 0),
                cost_usd=None if r[9] is None else float(r[9]),
                unpriced=int(r[10] or 0),
            )
            for r in rows
        ]
        return sorted(groups, key=lambda g: (-(g.cost_usd or 0.0), g.workspace or "", g.agent or "", g.provider))

    async def unread_since(self, since: datetime, workspace: str | None = None) -> list[AttemptRow]:
        """The failed attempts that finished at or after `since` (in `workspace` only, when given) whose failure no
        stage of the classifier read (`unknown`), oldest first."""
        query = (
            select(AttemptRow)
            .where(col(AttemptRow.finished_at) >= since, col(AttemptRow.code) == "unknown")
            .order_by(col(AttemptRow.finished_at), col(AttemptRow.run_id), col(AttemptRow.seq))
        )
        if workspace is not None:
            query = query.where(col(AttemptRow.workspace) == workspace)
        async with self.database.db() as s:
            return list((await s.execute(query)).scalars().all())

    async def list_attempts(self, run_id: str) -> list[AttemptRow]:
        query = select(AttemptRow).where(AttemptRow.run_id == run_id).order_by(col(AttemptRow.seq))
        async with self.database.db() as s:
            return list((await s.execute(query)).scalars().all())
