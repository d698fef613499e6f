"""An ASGI app served by uvicorn inside the current event loop: the simulator and the codec server use it in the
dev stack and the tests."""

import asyncio
import secrets
import socket
from typing import Any, Self

import uvicorn

LISTEN_PORTS = range(20000, 32768)  # below Linux's default ephemeral range (32768-60999)


def free_port() -> int:
    """A port free to listen on now, for a server started next. Taken below the kernel's ephemeral range, where a
    port bound with port 0 would come from: there, any outgoing connection made meanwhile (by this process or
    another on the machine) may take it before the server binds it."""
    start = ephemeral_start()
    for _ in range(50):
        port = secrets.choice(LISTEN_PORTS)
        if port >= start:
            break  # a machine whose ephemeral range reaches this low: the kernel's choice is as good
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        bound: int = s.getsockname()[1]
        return bound


def ephemeral_start() -> int:
    """The first port of the kernel's range for outgoing connections (Linux); 0 where it cannot be read."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


class InProcessServer:
    def __init__(self, app: Any, host: str = "127.0.0.1", port: int | None = None) -> None:
        self.host, self.port = host, port or free_port()
        config = uvicorn.Config(
            app, host=self.host, port=self.port, log_level="warning", lifespan="off", timeout_graceful_shutdown=2
        )
        self._server = uvicorn.Server(config)
        self._task: asyncio.Task[None] | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    async def start(self) -> Self:
        self._task = asyncio.create_task(self._server.serve())
        while not self._server.started:
            if self._task.done():
                self._task.result()  # surfaces a bind error
            await asyncio.sleep(0.02)
        return self

    async def stop(self) -> None:
        self._server.should_exit = True
        if self._task:
            await self._task
