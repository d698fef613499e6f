"""What the sandbox adds to an agent session's start, and whether a storm of starts ever stalls the worker.

1. Start cost: an agent session start (launch, `initialize`, `session/new`) through the launcher, sandbox on and
   off alternating in one run, with a provider endpoint to relay (the realistic case). The agent is
   testkit/tiny_agent.sh, so what is measured is the launch, not an agent's own start-up. Figures: p50/p99 of
   each arm and the added cost.
2. Storm: many starts at once (each started, prompted once, closed) while threads of the worker are busy
   allocating, logging and forking, as an activity worker's are. A start never blocks the event loop (nothing of
   ours runs between fork and exec), so the loop's worst lateness stays small and every start completes. `launch`
   runs STORM_STARTS_IN_LAUNCH of them; `office bench storm` (by name only, not in `all`) runs STORM_STARTS.
"""

import asyncio
import contextlib
import logging
import statistics
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from activities.executors.acp import AgentSession
from activities.executors.launcher import launch_environment, sandbox_plan
from routing.config import ExecutionProfile, ExecutorKind
from routing.sandbox import SandboxSettings

ROOT = Path(__file__).resolve().parent.parent
TINY_AGENT = str(ROOT / "testkit" / "tiny_agent.sh")
PROVIDER = "http://127.0.0.1:9/v1"  # never connected to: it gives the sandbox a port to relay
SAMPLES = 100
STORM_STARTS, STORM_AT_ONCE, BUSY_THREADS = 2000, 32, 4
# The storm inside `launch` (and so `make bench`): as many starts as the CI storm test, so `make bench` stays within
# its 15 minutes; the 2,000 of issue #23 are `office bench storm`.
STORM_STARTS_IN_LAUNCH = 500
log = logging.getLogger(__name__)


def tiny_profile(marker: str, network: bool = True) -> ExecutionProfile:
    """The tiny agent; with `network`, a provider endpoint its sandbox relays (the realistic case)."""
    return ExecutionProfile(kind=ExecutorKind.acp, command=[TINY_AGENT, marker], base_url=PROVIDER if network else None)


async def start_once(profile: ExecutionProfile, sandbox: SandboxSettings, base: Path, prompt: bool = False) -> float:
    """One session start (and, with `prompt`, one turn), then the session closed; returns the start's seconds."""
    cwd = base / uuid.uuid4().hex[:12]
    cwd.mkdir()
    began = time.perf_counter()
    env = launch_environment(profile, "launch-bench", None)
    plan = sandbox_plan(profile, sandbox)
    session = await AgentSession.launch("bench", "launch-bench", profile, env, str(cwd), str(base / "state"), plan)
    try:
        await session.start(str(cwd))
        took = time.perf_counter() - began
        if prompt and await session.prompt("hello") != "ok":
            raise AssertionError("the tiny agent did not answer its turn")
    finally:
        await session.close()
    cwd.rmdir()
    return took


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def start_cost(samples: int = SAMPLES) -> dict[str, Any]:
    profile = tiny_profile("start-cost")
    arms: dict[str, list[float]] = {"sandbox": [], "no_sandbox": []}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(samples):  # alternating: both arms see the same machine
            arms["sandbox"].append(await start_once(profile, SandboxSettings(), Path(tmp)))
            arms["no_sandbox"].append(await start_once(profile, SandboxSettings(mode="none"), Path(tmp)))
    ms = {arm: {"p50_ms": statistics.median(v) * 1000, "p99_ms": percentile(v, 0.99) * 1000} for arm, v in arms.items()}
    return {
        "samples_per_arm": samples,
        **{arm: {k: round(x, 1) for k, x in figures.items()} for arm, figures in ms.items()},
        "added_p50_ms": round(ms["sandbox"]["p50_ms"] - ms["no_sandbox"]["p50_ms"], 1),
        "added_p99_ms": round(ms["sandbox"]["p99_ms"] - ms["no_sandbox"]["p99_ms"], 1),
    }


class BusyThreads:
    """Threads that keep the allocator, the logging lock and fork busy, as a worker's activity threads do."""

    def __init__(self, count: int) -> None:
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._work, daemon=True) for _ in range(count)]
        self.rounds = 0

    def _work(self) -> None:
        while not self.stop.is_set():
            junk = [bytes(1024) for _ in range(200)]
            log.debug("busy %d", len(junk))
            subprocess.run(["true"], check=False)
            self.rounds += 1

    def __enter__(self) -> "BusyThreads":
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join()


async def storm(
    starts: int = STORM_STARTS, at_once: int = STORM_AT_ONCE, busy: int = BUSY_THREADS, network: bool = True
) -> dict[str, Any]:
    """`starts` sandboxed sessions, `at_once` in flight, each started, prompted and closed, while `busy` threads
    work; the event loop's lateness is sampled every 20 ms throughout."""
    marker = f"storm-{uuid.uuid4().hex[:8]}"
    profile = tiny_profile(marker, network)
    lateness: list[float] = []
    done = asyncio.Event()

    async def watch_loop() -> None:
        while not done.is_set():
            planned = time.perf_counter() + 0.02
            await asyncio.sleep(0.02)
            lateness.append(time.perf_counter() - planned)

    gate = asyncio.Semaphore(at_once)
    failures: list[str] = []

    async def one(base: Path) -> float:
        async with gate:
            try:
                return await start_once(profile, SandboxSettings(), base, prompt=True)
            except Exception as err:  # counted and reported: a storm is judged by how many completed
                failures.append(f"{type(err).__name__}: {err}"[:200])
                return 0.0

    with tempfile.TemporaryDirectory() as tmp, BusyThreads(busy) as threads:
        watcher = asyncio.create_task(watch_loop())
        began = time.perf_counter()
        took = await asyncio.gather(*[one(Path(tmp)) for _ in range(starts)])
        seconds = time.perf_counter() - began
        done.set()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
    completed = [t for t in took if t > 0]
    return {
        "starts": starts,
        "at_once": at_once,
        "busy_threads": busy,
        "busy_thread_rounds": threads.rounds,
        "completed": len(completed),
        "failures": failures[:5],
        "start_p50_ms": round(statistics.median(completed) * 1000, 1) if completed else None,
        "start_p99_ms": round(percentile(completed, 0.99) * 1000, 1) if completed else None,
        "loop_lateness_max_ms": round(max(lateness, default=0.0) * 1000, 1),
        "starts_per_s": round(starts / seconds, 1),
        "marker": marker,
    }


async def run() -> dict[str, Any]:
    return {"start_cost": await start_cost(), "storm": await storm(STORM_STARTS_IN_LAUNCH)}


async def run_storm() -> dict[str, Any]:
    """`office bench storm`: the whole storm alone."""
    return await storm(STORM_STARTS)
