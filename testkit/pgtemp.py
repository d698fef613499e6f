"""A throwaway PostgreSQL database (tests, benchmarks): created on entry, dropped with FORCE on exit."""

import contextlib
import os
import uuid
from collections.abc import AsyncIterator

import asyncpg  # type: ignore[import-untyped,unused-ignore]  # it ships no type information

PG_HOST = os.environ.get("OFFICE_TEST_PG_HOST", "127.0.0.1")
PG_PORT = int(os.environ.get("OFFICE_TEST_PG_PORT", "5432"))
PG_USER = os.environ.get("OFFICE_TEST_PG_USER", "postgres")


async def admin_connection() -> asyncpg.Connection:
    return await asyncpg.connect(host=PG_HOST, port=PG_PORT, user=PG_USER, database="postgres", timeout=5)


def database_url(name: str) -> str:
    return f"postgresql://{PG_USER}@{PG_HOST}:{PG_PORT}/{name}"


@contextlib.asynccontextmanager
async def temporary_database(prefix: str = "office_tmp") -> AsyncIterator[str]:
    admin = await admin_connection()
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield database_url(name)
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
