"""Applies Alembic migrations to either backend, from code (dev stack, tests) or `office db upgrade`."""

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection

from store.engine import make_engine, normalize_url

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", normalize_url(url))
    return cfg


async def migrate(url: str, revision: str = "head") -> None:
    cfg = alembic_config(url)
    engine = make_engine(url)
    try:
        async with engine.begin() as conn:

            def _upgrade(sync_conn: Connection) -> None:
                cfg.attributes["connection"] = sync_conn
                command.upgrade(cfg, revision)

            await conn.run_sync(_upgrade)
    finally:
        await engine.dispose()
