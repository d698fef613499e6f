"""Applies Alembic migrations to either backend, from code (dev stack, tests) or `office db upgrade`."""

import asyncio
import weakref
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection

from store.engine import make_engine, normalize_url

MIGRATIONS = Path(__file__).parent / "migrations"
# Alembic's migration environment is global to the process: one migration at a time per event loop.
_ONE_AT_A_TIME: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock]" = weakref.WeakKeyDictionary()


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", normalize_url(url))
    return cfg


async def migrate(url: str, revision: str = "head") -> None:
    cfg = alembic_config(url)
    engine = make_engine(url)
    try:
        async with _ONE_AT_A_TIME.setdefault(asyncio.get_running_loop(), asyncio.Lock()), engine.begin() as conn:

            def _upgrade(sync_conn: Connection) -> None:
                cfg.attributes["connection"] = sync_conn
                command.upgrade(cfg, revision)

            await conn.run_sync(_upgrade)
    finally:
        await engine.dispose()
