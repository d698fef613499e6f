import pytest

from office.stack import ephemeral_stack
from tests.postgres import fresh_database


@pytest.fixture(scope="session")
async def stack():
    """One real Temporal dev server, simulator, PostgreSQL database and worker for the integration suite."""
    async with fresh_database() as url, ephemeral_stack(url) as s:
        yield s


@pytest.fixture(autouse=True)
def demo_credentials(monkeypatch):
    monkeypatch.setenv("OFFICE_TEST_KEY", "sk-sim-test")
