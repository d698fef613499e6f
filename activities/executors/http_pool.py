"""The worker's HTTP connection pool, in shards.

httpcore's pool (1.0.9, the newest) walks every connection it holds on each request and each release, once more per
idle connection (O(n²)), and compares *all* its connections, not the idle ones, with `max_keepalive_connections`,
so with more connections open than that every connection a finished request releases is closed
(encode/httpcore#1035, open). A worker holds one streamed connection per turn in flight, so with many turns in
flight the walks dominate its CPU and every turn opens a new TCP connection (with TLS, against a real provider); the
figures are on docs/benchmarks.md.

Here requests go to the shard with the fewest in flight, so each pool holds about max_connections / shards
connections (its walks are that much shorter) and keeps all of its idle ones alive for their keep-alive expiry.
Every shard may hold the full bound, so no request waits for a connection while the transport as a whole has
room; the bound itself is the worker's activity slots (one request at a time per turn). Transport retries stay
off: the routing decider's short retries are the only retries of a provider call."""

import math
from collections.abc import AsyncIterator, Callable

import httpx

SHARD_CONNECTIONS = 64  # connections per shard when the requests in flight spread evenly


class _Shard:
    def __init__(self, max_connections: int) -> None:
        limits = httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections)
        self.transport = httpx.AsyncHTTPTransport(retries=0, limits=limits)
        self.in_flight = 0


class _Released(httpx.AsyncByteStream):
    """The response body; the shard's count drops once, when it is closed (read to its end, or abandoned)."""

    def __init__(self, stream: httpx.AsyncByteStream, release: Callable[[], None]) -> None:
        self._stream, self._release = stream, release

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._stream:
            yield chunk

    async def aclose(self) -> None:
        try:
            await self._stream.aclose()
        finally:
            release, self._release = self._release, lambda: None
            release()


class ShardedTransport(httpx.AsyncBaseTransport):
    def __init__(self, max_connections: int, shard_connections: int = SHARD_CONNECTIONS) -> None:
        self.shards = [_Shard(max_connections) for _ in range(max(1, math.ceil(max_connections / shard_connections)))]

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        shard = min(self.shards, key=lambda s: s.in_flight)
        shard.in_flight += 1

        def release() -> None:
            shard.in_flight -= 1

        try:
            response = await shard.transport.handle_async_request(request)
        except BaseException:
            release()
            raise
        if not isinstance(response.stream, httpx.AsyncByteStream):
            release()
            raise TypeError("an async transport answered with a synchronous stream")
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_Released(response.stream, release),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        for shard in self.shards:
            await shard.transport.aclose()
