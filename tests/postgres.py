"""Throwaway PostgreSQL databases on 127.0.0.1:5432. Under CI=true a missing server fails.

`fresh_database` is a new, empty database (the migration tests upgrade it themselves). `migrated_database` is an
empty database at the head revision: one this session created and migrated once, emptied again when a test is done
with it. Creating and migrating a database costs seconds per test on this server (each is fsynced); emptying one
costs a few deletes. A database whose schema a test changed is dropped, not reused."""

import contextlib
import os
import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest

from store.migrate import migrate
from testkit.pgtemp import PG_HOST, PG_PORT, admin_connection, database_url, temporary_database


async def _reachable() -> None:
    try:
        await (await admin_connection()).close()
    except (OSError, asyncpg.PostgresError) as err:
        message = (
            f"PostgreSQL is not reachable on {PG_HOST}:{PG_PORT} ({err}); start it with "
            "`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


@contextlib.asynccontextmanager
async def fresh_database() -> AsyncIterator[str]:
    await _reachable()
    async with temporary_database("office_test") as url:
        yield url


SCHEMA = """
SELECT md5(coalesce(string_agg(item, ';' ORDER BY item), '')) FROM (
    SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' '
           || coalesce(column_default, '') AS item
    FROM information_schema.columns WHERE table_schema = 'public'
    UNION ALL SELECT indexdef FROM pg_indexes WHERE schemaname = 'public'
    UNION ALL SELECT conrelid::regclass || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
    WHERE connamespace = 'public'::regnamespace
    UNION ALL SELECT version_num FROM alembic_version
) AS schema
"""
_migrated_schema: str | None = None  # what a migrated database's schema looks like (the first one's)
_free: list[str] = []  # migrated databases, empty, waiting for their next test
_all: set[str] = set()  # every migrated database this session made and has not dropped


async def _new_migrated() -> str:
    global _migrated_schema
    name = f"office_test_{uuid.uuid4().hex[:10]}"
    admin = await admin_connection()
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        _all.add(name)
    finally:
        await admin.close()
    await migrate(database_url(name))
    conn = await asyncpg.connect(database_url(name))
    try:
        schema = await conn.fetchval(SCHEMA)
    finally:
        await conn.close()
    _migrated_schema = _migrated_schema or schema
    if schema != _migrated_schema:
        raise AssertionError(f"two migrations of {name}'s revision gave different schemas")
    return name


async def _emptied(name: str) -> bool:
    """Ends every connection a test left to `name` and deletes every row it wrote; False (keep it out of the pool)
    when the test changed the schema or the database cannot be emptied."""
    try:
        conn = await asyncpg.connect(database_url(name))
    except (OSError, asyncpg.PostgresError):
        return False
    try:
        await conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        if await conn.fetchval(SCHEMA) != _migrated_schema:
            return False
        tables = await conn.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'alembic_version'"
        )
        sequences = await conn.fetch("SELECT sequencename FROM pg_sequences WHERE schemaname = 'public'")
        async with conn.transaction():
            for table in tables:
                await conn.execute(f'DELETE FROM "{table[0]}"')
            for sequence in sequences:
                await conn.execute(f'ALTER SEQUENCE "{sequence[0]}" RESTART')
        return True
    except (OSError, asyncpg.PostgresError):
        return False
    finally:
        await conn.close()


async def _drop(name: str) -> None:
    admin = await admin_connection()
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()
    _all.discard(name)


@contextlib.asynccontextmanager
async def migrated_database() -> AsyncIterator[str]:
    await _reachable()
    name = _free.pop() if _free else await _new_migrated()
    try:
        yield database_url(name)
    finally:
        if await _emptied(name):
            _free.append(name)
        else:
            await _drop(name)


async def drop_migrated_databases() -> None:
    """At the end of the session (tests/conftest.py)."""
    _free.clear()
    for name in list(_all):
        await _drop(name)
