import asyncio

import pytest

from activities.git.runner import DEV_MODE_ENV
from store.migrate import migrate
from testkit.stack import ephemeral_stack
from tests.postgres import drop_migrated_databases, fresh_database, migrated_database


@pytest.fixture(scope="session")
async def stack():
    """One real Temporal dev server, provider simulator, PostgreSQL database and in-process worker,
    shared by the integration and end-to-end suites (tests isolate by unique workspace/provider names)."""
    async with fresh_database() as url, ephemeral_stack(url) as s:
        yield s


@pytest.fixture(autouse=True)
def test_credentials(monkeypatch):
    monkeypatch.setenv("OFFICE_CRED_TEST_KEY", "sk-sim-test")


@pytest.fixture(autouse=True)
def development_mode(monkeypatch):
    """Tests run their workers (in process and in their own processes) for development: repositories in tmp_path
    are accepted. A test of the production refusal deletes the variable."""
    monkeypatch.setenv(DEV_MODE_ENV, "1")


@pytest.fixture(params=["sqlite", "postgresql"])
async def db_url(request, tmp_path):
    """Store tests run on both backends through the same code."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'office.db'}"
        return
    async with fresh_database() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
async def migrated_db_url(request, tmp_path):
    """Like db_url, at the head revision already (the migration tests themselves take db_url)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'office.db'}"
        await migrate(url)
        yield url
        return
    async with migrated_database() as url:
        yield url


def pytest_collection_modifyitems(items):
    """Under `make test` (`pytest -n 2 --dist loadgroup`) the integration suite runs on one process, one test
    after another as ever (its tests kill workers and servers and time heartbeats: two at once would share their
    cores), and every other suite on the second process beside it."""
    for item in items:
        group = "integration" if item.path.parent.name == "integration" else "beside-integration"
        item.add_marker(pytest.mark.xdist_group(group))


def pytest_sessionfinish(session):
    asyncio.run(drop_migrated_databases())
