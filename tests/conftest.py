import pytest

from testkit.stack import ephemeral_stack
from tests.postgres import fresh_database


@pytest.fixture(scope="session")
async def stack():
    """One real Temporal dev server, provider simulator, PostgreSQL database and in-process worker,
    shared by the integration and end-to-end suites (tests isolate by unique workspace/provider names)."""
    async with fresh_database() as url, ephemeral_stack(url) as s:
        yield s


@pytest.fixture(autouse=True)
def test_credentials(monkeypatch):
    monkeypatch.setenv("OFFICE_CRED_TEST_KEY", "sk-sim-test")


@pytest.fixture(params=["sqlite", "postgresql"])
async def db_url(request, tmp_path):
    """Store tests run on both backends through the same code."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'office.db'}"
        return
    async with fresh_database() as url:
        yield url
