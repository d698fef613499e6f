"""Runs the simulator in the current event loop (dev stack, tests) or as `office simulator`."""

import asyncio
import socket
from pathlib import Path

import uvicorn

from office.simulator.app import Simulator, build_app
from office.simulator.config import SimConfig


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class SimulatorServer:
    def __init__(self, config: SimConfig, host: str = "127.0.0.1", port: int | None = None):
        self.sim = Simulator(config)
        self.host, self.port = host, port or free_port()
        self._server = uvicorn.Server(uvicorn.Config(build_app(self.sim), host=self.host, port=self.port,
                                                     log_level="warning", lifespan="off",
                                                     timeout_graceful_shutdown=2))
        self._task: asyncio.Task | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def provider_url(self, provider: str) -> str:
        return f"{self.url}/p/{provider}/v1"

    async def start(self) -> "SimulatorServer":
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


def load_config(path: Path | None) -> SimConfig:
    if path is None:
        return SimConfig()
    return SimConfig.model_validate_json(path.read_text())
