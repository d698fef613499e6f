"""A throwaway PostgreSQL database per use on 127.0.0.1:5432. Under CI=true a missing server fails."""

import contextlib
import os
from collections.abc import AsyncIterator

import asyncpg
import pytest

from testkit.pgtemp import PG_HOST, PG_PORT, admin_connection, temporary_database


@contextlib.asynccontextmanager
async def fresh_database() -> AsyncIterator[str]:
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
    async with temporary_database("office_test") as url:
        yield url
