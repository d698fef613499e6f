"""Engine creation for both backends from one URL."""

from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine


def normalize_url(url: str) -> str:
    """Accept plain postgresql:// and sqlite:// URLs and pick the async drivers."""
    for prefix, driver in (
        ("postgresql://", "postgresql+asyncpg://"),
        ("postgres://", "postgresql+asyncpg://"),
        ("sqlite://", "sqlite+aiosqlite://"),
    ):
        if url.startswith(prefix):
            return driver + url[len(prefix) :]
    if url.startswith(("postgresql+asyncpg://", "sqlite+aiosqlite://")):
        return url
    raise ValueError(
        f"OFFICE_DATABASE_URL {url!r} is not supported: use postgresql://user@host:port/db or sqlite:///path/office.db"
    )


def embedded_notice(url: str) -> str | None:
    """What a worker says at start when its store is SQLite, the embedded backend: every process sharing the store
    must run on this host (the file's lock is the only lock); None on PostgreSQL."""
    if not normalize_url(url).startswith("sqlite"):
        return None
    return (
        "the store is SQLite, the embedded backend: fine for `make run`, `office dev` and workers on this one host; "
        "workers on several hosts need PostgreSQL (OFFICE_DATABASE_URL=postgresql://user@host:port/db)"
    )


DEFAULT_POOL_SIZE = 20


def make_engine(url: str, pool_size: int = DEFAULT_POOL_SIZE) -> AsyncEngine:
    """`pool_size`: PostgreSQL connections kept per process (half as many more in a burst). Every worker process has
    its own pool: their sum, with the CLI's, must stay under the server's max_connections (100 by default)."""
    url = normalize_url(url)
    if url.startswith("sqlite"):
        engine = create_async_engine(url, connect_args={"timeout": 30})

        @event.listens_for(engine.sync_engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:  # WAL lets the CLI read while the worker writes
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()

        return engine
    # A connection attempt to an unreachable server fails in 10 s instead of asyncpg's 60 (activities.bookkeeping
    # retries it), and a statement on a connection that went silent fails instead of hanging.
    return create_async_engine(
        url,
        pool_size=pool_size,
        max_overflow=pool_size // 2,
        connect_args={"timeout": 10, "command_timeout": 60},
    )
