"""Runs the simulator in the current event loop (dev stack, tests) or as `office simulator`."""

import asyncio
import sys
from pathlib import Path
from typing import Any

import httpx

from office.asgi import InProcessServer, free_port
from office.simulator.app import Simulator, build_app
from office.simulator.config import SimConfig, SimProvider


class SimulatorServer(InProcessServer):
    def __init__(self, config: SimConfig, host: str = "127.0.0.1", port: int | None = None):
        self.sim = Simulator(config)
        super().__init__(build_app(self.sim), host, port)

    def provider_url(self, provider: str) -> str:
        return f"{self.url}/p/{provider}/v1"

    # The same interface as RemoteSimulator, for code that drives either.
    async def set_provider(self, name: str, provider: SimProvider) -> None:
        self.sim.set_provider(name, provider)

    async def calls(self) -> list[dict[str, Any]]:
        return list(self.sim.calls)

    async def model_calls(self) -> list[dict[str, Any]]:
        return list(self.sim.model_calls)


class RemoteSimulator:
    """The simulator in its own process (benchmarks: a provider is another server, not our event loop)."""

    def __init__(self, host: str = "127.0.0.1", port: int | None = None):
        self.host, self.port = host, port or free_port()
        self.process: asyncio.subprocess.Process | None = None
        self.http = httpx.AsyncClient(timeout=60)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def provider_url(self, provider: str) -> str:
        return f"{self.url}/p/{provider}/v1"

    async def start(self) -> "RemoteSimulator":
        self.process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "office.cli",
            "simulator",
            "--port",
            str(self.port),
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        async with asyncio.timeout(30):
            while True:
                try:
                    if (await self.http.get(f"{self.url}/healthz")).status_code == 200:
                        return self
                except httpx.HTTPError:
                    await asyncio.sleep(0.1)

    async def stop(self) -> None:
        await self.http.aclose()
        if self.process and self.process.returncode is None:
            self.process.terminate()
            await self.process.wait()

    async def set_provider(self, name: str, provider: SimProvider) -> None:
        (
            await self.http.put(f"{self.url}/admin/providers/{name}", json=provider.model_dump(mode="json"))
        ).raise_for_status()

    async def calls(self) -> list[dict[str, Any]]:
        calls: list[dict[str, Any]] = (await self.http.get(f"{self.url}/admin/calls")).json()
        return calls

    async def model_calls(self) -> list[dict[str, Any]]:
        calls: list[dict[str, Any]] = (await self.http.get(f"{self.url}/admin/model-calls")).json()
        return calls


def load_config(path: Path | None) -> SimConfig:
    if path is None:
        return SimConfig()
    return SimConfig.model_validate_json(path.read_text())
