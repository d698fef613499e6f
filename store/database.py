"""One database for every repository: the engine, units of work, read-only sessions, asyncpg's own connection on
PostgreSQL, and the idempotent insert and upsert every repository writes with."""

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any, TypeAlias, TypeVar, cast

from sqlalchemy import ColumnElement, CursorResult, Result, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from sqlmodel import SQLModel

from store.columns import table_of
from store.engine import DEFAULT_POOL_SIZE, make_engine

Row = TypeVar("Row", bound=SQLModel)
# asyncpg's own connection (asyncpg ships no type information).
Connection: TypeAlias = Any


def rowcount(result: Result[Any]) -> int:
    """Rows an INSERT, UPDATE or DELETE wrote."""
    return cast(CursorResult[Any], result).rowcount


class StoreInvariantError(RuntimeError):
    """The database answered what its own constraints rule out (a row just inserted under a lock is missing, a
    statement that always returns a row returned none)."""


class Database:
    def __init__(self, url: str, engine: AsyncEngine | None = None, pool_size: int = DEFAULT_POOL_SIZE):
        self.url = url
        self.engine = engine or make_engine(url, pool_size)
        self._sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        # Lookups that write nothing run without BEGIN/ROLLBACK: two round trips fewer on every run's path.
        self._reads = async_sessionmaker(self.engine.execution_options(isolation_level="AUTOCOMMIT"))

    @property
    def is_postgresql(self) -> bool:
        return self.engine.dialect.name == "postgresql"

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    @contextlib.asynccontextmanager
    async def driver(self) -> AsyncIterator[Connection]:
        """A pooled PostgreSQL connection as asyncpg's own; one that broke is dropped from the pool, not handed
        out again."""
        async with self.engine.connect() as conn:
            raw = (await conn.get_raw_connection()).driver_connection
            if raw is None:
                raise StoreInvariantError("the pool handed out a connection without its driver connection")
            try:
                yield raw
            finally:
                # Broken, or still inside a transaction (a cancellation that interrupted its rollback too): such a
                # connection would hold its row locks in the pool. SQLAlchemy's reset does not know of asyncpg's
                # own transactions, so it is closed here, even while this task is being cancelled.
                if raw.is_closed() or raw.is_in_transaction():
                    await asyncio.shield(conn.invalidate())

    async def close(self) -> None:
        await self.engine.dispose()

    def db(self) -> AsyncSession:
        """A database session (unit of work); "session" elsewhere means an agent session."""
        return self._sessions()

    def reads(self) -> AsyncSession:
        """A session for lookups only (autocommit: each statement sees committed data, nothing to roll back)."""
        return self._reads()

    def insert(self, table: type[SQLModel]) -> Any:
        """The dialect's INSERT (with ON CONFLICT) for `table`."""
        dialect = postgresql if self.is_postgresql else sqlite
        return dialect.insert(table)

    async def insert_ignore(self, table: type[SQLModel], values: dict[str, Any]) -> bool:
        """Insert unless the primary key exists; True when this call inserted the row."""
        stmt = self.insert(table).values(**values).on_conflict_do_nothing()
        async with self.db() as s:
            result = await s.execute(stmt)
            await s.commit()
            return bool(rowcount(result))

    async def upsert(
        self, table: type[SQLModel], values: dict[str, Any], keys: list[str], where: ColumnElement[bool] | None = None
    ) -> bool:
        """Insert, or update the row the keys name (only where `where` holds of it); True when a row was written."""
        stmt = self.insert(table).values(**values)
        stmt = stmt.on_conflict_do_update(
            index_elements=keys, set_={k: v for k, v in values.items() if k not in keys}, where=where
        )
        async with self.db() as s:
            result = await s.execute(stmt)
            await s.commit()
            return bool(rowcount(result))

    async def events(self, table: type[Row], since: datetime | None, until: datetime | None, **equal: Any) -> list[Row]:
        """Rows of an append-only event table (an `at` and an `id` column) in time order, within [since, until],
        matching `equal`."""
        columns = table_of(table).c
        query = select(table).order_by(columns.at, columns.id)
        for column, value in equal.items():
            if value is not None:
                query = query.where(columns[column] == value)
        if since is not None:
            query = query.where(columns.at >= since)
        if until is not None:
            query = query.where(columns.at <= until)
        async with self.db() as s:
            return list((await s.execute(query)).scalars().all())
