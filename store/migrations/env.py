"""Alembic environment. `store.migrate` passes a live connection; the alembic CLI builds an engine."""

import asyncio

from alembic import context
from sqlalchemy import Connection
from sqlmodel import SQLModel

import store.tables  # noqa: F401  (registers the tables on the metadata)
from store.engine import make_engine

target_metadata = SQLModel.metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection, target_metadata=target_metadata, render_as_batch=connection.dialect.name == "sqlite"
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_with_own_engine(url: str) -> None:
    engine = make_engine(url)
    async with engine.begin() as conn:
        await conn.run_sync(_run)
    await engine.dispose()


connection = context.config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:
    url = context.config.get_main_option("sqlalchemy.url")
    if url is None:
        raise RuntimeError("alembic: set sqlalchemy.url (office db upgrade passes OFFICE_DATABASE_URL)")
    asyncio.run(_run_with_own_engine(url))
