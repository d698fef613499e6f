"""An ASGI app served by uvicorn inside the current event loop: the simulator and the codec server use it in the
dev stack and the tests."""

import asyncio
import socket
from typing import Any, Self

import uvicorn


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


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
