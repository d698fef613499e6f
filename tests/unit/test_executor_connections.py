"""The OpenAI-compatible executor keeps its connection to a provider across turns: a streamed answer is read to its
end, so its connection goes back to the pool. Left unread past [DONE], each turn paid a new connection (against a
real provider, a TLS handshake per turn)."""

import httpx
import pytest

from activities.executors.openai_compat import OpenAICompatExecutor
from office.simulator.config import SimConfig, SimProvider
from office.simulator.server import SimulatorServer
from routing.config import ExecutionProfile


@pytest.fixture
async def sim():
    server = await SimulatorServer(SimConfig()).start()
    yield server
    await server.stop()


async def test_turns_and_catalog_reads_share_one_connection(sim):
    await sim.set_provider("beta", SimProvider())
    connects: list[str] = []

    async def trace(event: str, info: dict) -> None:
        if event == "connection.connect_tcp.complete":
            connects.append(event)

    async def traced(request: httpx.Request) -> None:
        request.extensions["trace"] = trace  # httpcore's trace extension: one event per new TCP connection

    async with httpx.AsyncClient(event_hooks={"request": [traced]}) as http:
        executor = OpenAICompatExecutor("beta", ExecutionProfile(base_url=sim.provider_url("beta")), http)
        for i in range(5):
            assert "sim-small" in await executor.list_models()
            answer = await executor.chat("sim-small", [{"role": "user", "content": f"turn {i}"}])
            assert answer.text
    assert len(connects) == 1
