"""Durable selections, read side: the user's pins, every selection row and the audit events. Writes live in
store.preferences (user selections only) and store.watchdog (the backstop that clears anything else)."""

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col, select

from routing.selection import Pins, SelectionKind, SelectionSource
from store.database import Database
from store.tables import SelectionEventRow, SelectionRow


class SelectionRepository:
    def __init__(self, database: Database):
        self.database = database

    async def user_pins(self, agent: str) -> Pins:
        """Only source=user rows count: anything else is not a preference, whatever it says."""
        async with self.database.reads() as s:
            return await pins_of(s, agent)

    async def selections(self) -> list[SelectionRow]:
        query = select(SelectionRow).order_by(col(SelectionRow.agent), col(SelectionRow.kind))
        async with self.database.db() as s:
            return list((await s.execute(query)).scalars().all())

    async def selection_events(
        self, since: datetime | None = None, until: datetime | None = None, agent: str | None = None
    ) -> list[SelectionEventRow]:
        return await self.database.events(SelectionEventRow, since, until, agent=agent)


def pins_from(rows: list[tuple[str, list[str]]]) -> Pins:
    """The pins that (kind, value) selections of source=user say."""
    pins = Pins()
    for kind, value in rows:
        if kind == SelectionKind.provider.value:
            pins.providers = list(value)
        elif kind == SelectionKind.model.value and value:
            pins.model = value[0]
    return pins


async def pins_of(s: AsyncSession, agent: str) -> Pins:
    user_rows = select(SelectionRow).where(
        SelectionRow.agent == agent, SelectionRow.source == SelectionSource.user.value
    )
    rows = (await s.execute(user_rows)).scalars().all()
    return pins_from([(row.kind, list(row.value)) for row in rows])
