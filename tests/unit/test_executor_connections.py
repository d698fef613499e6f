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


async def test_connections_a_burst_of_turns_opened_are_kept_for_the_next_burst(sim):
    """The worker's pool keeps the connections of many concurrent streamed turns alive for the next ones: httpcore's
    own pool closed every released connection while more were open than its keep-alive limit (1,000 turns in
    flight: a new TCP connection per turn) and walked all of them on every request."""
    import asyncio

    from activities.executors.http_pool import ShardedTransport

    await sim.set_provider("beta", SimProvider(latency_ms=300))  # the burst's turns are all open at once
    connects: list[str] = []

    async def trace(event: str, info: dict) -> None:
        if event == "connection.connect_tcp.complete":
            connects.append(event)

    async def traced(request: httpx.Request) -> None:
        request.extensions["trace"] = trace

    transport = ShardedTransport(max_connections=12, shard_connections=4)
    assert len(transport.shards) == 3
    async with httpx.AsyncClient(transport=transport, event_hooks={"request": [traced]}) as http:
        executor = OpenAICompatExecutor("beta", ExecutionProfile(base_url=sim.provider_url("beta")), http)

        async def burst() -> None:
            answers = await asyncio.gather(
                *[executor.chat("sim-small", [{"role": "user", "content": f"turn {i}"}]) for i in range(12)]
            )
            assert all(a.text for a in answers)

        await burst()
        opened = len(connects)
        assert opened == 12  # one per turn in flight
        assert [len(s.transport._pool.connections) for s in transport.shards] == [4, 4, 4]  # spread evenly
        await burst()
        assert len(connects) == opened  # the second burst reused them all
        assert [s.in_flight for s in transport.shards] == [0, 0, 0]


async def test_a_request_that_fails_to_connect_leaves_no_count_behind():
    import socket

    from activities.executors.http_pool import ShardedTransport

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    transport = ShardedTransport(max_connections=4, shard_connections=2)
    async with httpx.AsyncClient(transport=transport) as http:
        for _ in range(3):
            with pytest.raises(httpx.ConnectError):
                await http.get(f"http://127.0.0.1:{port}/v1/models")
    assert [s.in_flight for s in transport.shards] == [0, 0]
