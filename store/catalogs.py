"""Observed model catalogs: evidence for reporting, never an input to the start-model policy."""

from sqlmodel import col, select

from store.database import Database
from store.rows import utcnow
from store.tables import ProviderCatalogRow


class CatalogRepository:
    def __init__(self, database: Database):
        self.database = database

    async def observe_catalog(self, provider: str, models: list[str], run_id: str | None) -> None:
        """The latest observation replaces the earlier one."""
        await self.database.upsert(
            ProviderCatalogRow,
            {"provider": provider, "models": models, "observed_at": utcnow(), "run_id": run_id},
            ["provider"],
        )

    async def observed_catalogs(self, providers: list[str]) -> dict[str, list[str]]:
        query = select(ProviderCatalogRow).where(col(ProviderCatalogRow.provider).in_(providers))
        async with self.database.db() as s:
            rows = (await s.execute(query)).scalars().all()
        return {r.provider: list(r.models) for r in rows}
