"""A workspace's spend over a budget window: its attempts that finished in it, summed (index
ix_attempts_workspace_finished_at). Tokens recorded without a price come back by model, to be priced again."""

from datetime import datetime
from typing import Any

from sqlalchemy import case, func
from sqlalchemy import select as select_columns
from sqlmodel import col

from routing.budget import ModelUsage, Spend
from routing.usage import Usage
from store.database import Database
from store.tables import AttemptRow


class BudgetRepository:
    def __init__(self, database: Database):
        self.database = database

    async def workspace_spend(self, workspace: str, since: datetime) -> Spend:
        """What `workspace`'s attempts that finished at or after `since` cost (priced ones), the tokens they used,
        the tokens used without a price by (provider, model), and the answers that reported no tokens."""
        a = AttemptRow
        in_window = (col(a.workspace) == workspace) & (col(a.finished_at) >= since)
        reported = col(a.input_tokens).is_not(None)
        tokens = func.coalesce(col(a.input_tokens), 0) + func.coalesce(col(a.output_tokens), 0)
        totals = select_columns(
            func.coalesce(func.sum(col(a.cost_usd)), 0.0),
            func.coalesce(func.sum(tokens), 0),
            func.sum(case((~reported & (col(a.outcome) == "succeeded"), 1), else_=0)),
        ).where(in_window)
        model = func.coalesce(col(a.effective_model), col(a.requested_model))
        unpriced = (
            select_columns(
                col(a.provider),
                model,
                *(
                    func.coalesce(func.sum(col(c)), 0)
                    for c in (a.input_tokens, a.output_tokens, a.cache_read_tokens, a.cache_write_tokens)
                ),
            )
            .where(in_window & reported & col(a.cost_usd).is_(None))
            .group_by(col(a.provider), model)
        )
        async with self.database.db() as s:
            cost, used, unreported = (await s.execute(totals)).one()
            groups: list[Any] = list((await s.execute(unpriced)).all())
        return Spend(
            cost_usd=float(cost or 0.0),
            tokens=int(used or 0),
            unreported=int(unreported or 0),
            unpriced=[
                ModelUsage(
                    provider=g[0],
                    model=g[1],
                    usage=Usage(
                        input_tokens=int(g[2]),
                        output_tokens=int(g[3]),
                        cache_read_tokens=int(g[4]),
                        cache_write_tokens=int(g[5]),
                    ),
                )
                for g in groups
            ],
        )
