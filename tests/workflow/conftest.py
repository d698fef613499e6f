"""One real dev server for the workflow-logic tests (activities are mocked; the server and its timers are real)."""

from collections.abc import AsyncIterator

import pytest
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from contracts import search_attributes as sa
from contracts.converter import DATA_CONVERTER
from office.temporal_server import temporal_binary


@pytest.fixture(scope="package")
async def client() -> AsyncIterator[Client]:
    env = await WorkflowEnvironment.start_local(
        data_converter=DATA_CONVERTER, dev_server_existing_path=temporal_binary(), ui=False,
        search_attributes=sa.ALL, dev_server_log_level="error",
    )  # fmt: skip
    async with env:
        yield env.client
