"""An ASGI app served by uvicorn inside the current event loop: the simulator and the codec server use it in the
dev stack and the tests."""

import asyncio
import contextlib
import fcntl
import os
import secrets
import socket
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Self

import uvicorn

LISTEN_PORTS = range(20000, 32768)  # below Linux's default ephemeral range (32768-60999)
# A port handed out is not handed out again, by any process of this user on this machine, for this long: between
# its pick and its server's bind, another process (a parallel test, a worker, `office dev`'s own servers) could
# otherwise draw the same port and one of the two servers fail with "address already in use".
HANDED_OUT_FOR_S = 120.0


def free_port() -> int:
    """A port free to listen on now, for a server started next, and handed to nobody else for HANDED_OUT_FOR_S.
    Taken below the kernel's ephemeral range, where a port bound with port 0 would come from: there, any outgoing
    connection made meanwhile (by this process or another on the machine) may take it before the server binds it."""
    with _handed_out() as taken:
        port = _pick(taken)
        taken[port] = time.time()
        return port


def _pick(taken: dict[int, float]) -> int:
    start = ephemeral_start()
    for _ in range(50):
        port = secrets.choice(LISTEN_PORTS)
        if port >= start:
            break  # a machine whose ephemeral range reaches this low: the kernel's choice is as good
        if port in taken:
            continue
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


@contextlib.contextmanager
def _handed_out() -> Iterator[dict[int, float]]:
    """The ports handed out lately on this machine (port: when), read and written back under an exclusive lock on
    a file of this user's. Without a usable file (another user's, a read-only temp dir) it is this call's alone."""
    path = Path(tempfile.gettempdir()) / f"office-ports-{os.getuid()}"
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError:
        yield {}
        return
    with os.fdopen(fd, "r+") as f:
        if os.fstat(fd).st_uid != os.getuid():
            yield {}
            return
        fcntl.flock(fd, fcntl.LOCK_EX)
        now = time.time()
        taken = {}
        for line in f.read().split():
            port, _, when = line.partition(":")
            with contextlib.suppress(ValueError):
                if now - float(when) < HANDED_OUT_FOR_S:
                    taken[int(port)] = float(when)
        yield taken
        f.seek(0)
        f.truncate()
        f.write("".join(f"{port}:{when}\n" for port, when in taken.items()))


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
