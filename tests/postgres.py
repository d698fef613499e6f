"""A throwaway PostgreSQL database per test session on 127.0.0.1:5432. Under CI=true a missing server fails."""

import contextlib
import os
import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest

PG_HOST = os.environ.get("OFFICE_TEST_PG_HOST", "127.0.0.1")
PG_PORT = int(os.environ.get("OFFICE_TEST_PG_PORT", "5432"))
PG_USER = os.environ.get("OFFICE_TEST_PG_USER", "postgres")


async def _admin() -> asyncpg.Connection:
    return await asyncpg.connect(host=PG_HOST, port=PG_PORT, user=PG_USER, database="postgres", timeout=5)


@contextlib.asynccontextmanager
async def fresh_database() -> AsyncIterator[str]:
    try:
        admin = await _admin()
    except (OSError, asyncpg.PostgresError) as err:
        message = f"PostgreSQL is not reachable on {PG_HOST}:{PG_PORT} ({err}); start it with " \
                  "`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    name = f"office_test_{uuid.uuid4().hex[:10]}"
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql://{PG_USER}@{PG_HOST}:{PG_PORT}/{name}"
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
