import pytest

from tests.postgres import fresh_database


@pytest.fixture(scope="session")
async def pg_url():
    async with fresh_database() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
async def db_url(request, tmp_path):
    """Store tests run on both backends through the same code."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'office.db'}"
        return
    async with fresh_database() as url:
        yield url
