"""Bounded live agents: 200 ACP runs on one worker process limited to 20 live agent processes. Starts beyond the
limit wait in Temporal's task queue; all runs must complete, none fail, and at no time may more than 20 agent
processes run. Everything is measured from outside the worker: agent processes and resident memory are sampled from
/proc, outcomes read from the runs' views and histories.

The agent is testkit/tiny_agent.sh (plain sh, each turn held TURN_S by `sleep`), started in the sandbox as every
agent is: what is measured is the worker's bound, not an agent's own start-up. The Python scripted agent spends most
of a second of CPU importing its ACP library; 200 of them made this arm about 100 s of two busy cores.

    python -m bench.bounded_agents              # this arm, as JSON (bench.scale calls run())
    python -m bench.bounded_agents claude-rss   # resident memory of one live real Claude Code session

`claude-rss` needs the real agents (`make agents`); it runs offline against the provider simulator."""

import asyncio
import json
import os
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from temporalio.api.enums.v1 import EventType

from bench.common import bench_stack
from contracts.activities import Activity
from office.runs import RunHandle, submit, wait_for_view
from routing.config import ExecutionProfile, ExecutorKind
from testkit.stack import until_polling, worker_processes_for

ROOT = Path(__file__).resolve().parent.parent
TINY_AGENT = str(ROOT / "testkit" / "tiny_agent.sh")
LIMIT, RUNS = 20, 200
TURN_S = 0.5  # each scripted turn takes this long: agents overlap, so the limit is reached and held
SAMPLE_S = 0.1  # an agent lives for its start and a turn (over a second): each is seen many times


def rss_mb(pid: int) -> float:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    return next((int(line.split()[1]) / 1024 for line in status.splitlines() if line.startswith("VmRSS:")), 0.0)


def tree_of(marker: str) -> tuple[int, list[int]]:
    """(agent processes, pids of every process of their trees): agents and their guards carry `marker` in their
    command line; only the agent itself runs `python -m office.scripted_agent <marker>` (or `sh tiny_agent.sh
    <marker>`)."""
    agents, pids = 0, []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")  # empty for a zombie: it has exited
        except OSError:
            continue
        if marker.encode() in argv:
            pids.append(int(entry))
            agents += argv[1:4] == [b"-m", b"office.scripted_agent", marker.encode()] or argv[1:3] == [
                TINY_AGENT.encode(),
                marker.encode(),
            ]
    return agents, pids


class Sampler:
    """Samples in its own thread: live agent processes, the worker's RSS and the RSS of the worker with its agents."""

    def __init__(self, worker_pid: int, marker: str):
        self.worker_pid, self.marker = worker_pid, marker
        self.peak_processes, self.worker_rss_peak_mb, self.tree_rss_peak_mb = 0, 0.0, 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            agents, pids = tree_of(self.marker)
            worker = rss_mb(self.worker_pid)
            self.peak_processes = max(self.peak_processes, agents)
            self.worker_rss_peak_mb = max(self.worker_rss_peak_mb, worker)
            self.tree_rss_peak_mb = max(self.tree_rss_peak_mb, worker + sum(rss_mb(p) for p in pids))
            self._stop.wait(SAMPLE_S)

    def __enter__(self) -> "Sampler":
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


async def start_waits(handles: list[RunHandle]) -> list[float]:
    """Per run, how long its agent start waited in the task queue (scheduled → picked up by the worker)."""
    waits = []
    for handle in handles:
        events = (await handle.fetch_history()).events
        scheduled = {
            e.event_id: e.event_time.ToDatetime()
            for e in events
            if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
            and e.activity_task_scheduled_event_attributes.activity_type.name == Activity.acp_start
        }
        for e in events:
            at = e.activity_task_started_event_attributes
            if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED and at.scheduled_event_id in scheduled:
                waits.append((e.event_time.ToDatetime() - scheduled[at.scheduled_event_id]).total_seconds())
    return waits


async def run() -> dict[str, Any]:
    marker = f"bench-bounded-{uuid.uuid4().hex[:8]}"
    agent_profile = ExecutionProfile(
        kind=ExecutorKind.acp,
        command=[TINY_AGENT, marker],
        env={"TINY_AGENT_TURN_S": str(TURN_S)},
        timeout_s=120,
        heartbeat_timeout_s=30,  # 2 cores busy starting agents: a heartbeat may be late, the worker is not lost
    )
    async with (
        bench_stack(worker=False) as stack,
        worker_processes_for(stack, 1, env={"OFFICE_MAX_LIVE_AGENTS": str(LIMIT)}) as workers,
    ):
        await until_polling(stack, workers)
        ws, agent, _ = await stack.workspace({"acp": agent_profile})
        with Sampler(workers[0].pid, marker) as sampler:
            started = time.monotonic()
            handles = await asyncio.gather(
                *(
                    submit(stack.client, stack.store, ws, agent, f"task {i}", task_queue=stack.task_queue)
                    for i in range(RUNS)
                )
            )
            views = await asyncio.gather(*(wait_for_view(stack.client, h.id) for h in handles))
            seconds = time.monotonic() - started
        waits = await start_waits(handles)
    completed = sum(v.status.value == "completed" for v in views)
    return {
        "limit": LIMIT,
        "runs": RUNS,
        "completed": completed,
        "failed": RUNS - completed,
        "failed_attempts": sum(a.error_code is not None for v in views for a in v.attempts),
        "peak_processes": sampler.peak_processes,
        "starts_waited": sum(w >= 1.0 for w in waits),  # waited in the task queue for a place (≥ 1 s)
        "start_wait_max_s": round(max(waits, default=0.0), 1),
        "worker_rss_peak_mb": round(sampler.worker_rss_peak_mb, 1),  # the worker process alone
        "worker_with_agents_rss_peak_mb": round(sampler.tree_rss_peak_mb, 1),  # + its agents and their guards
        "seconds": round(seconds, 1),
    }


async def claude_session_rss() -> dict[str, Any]:
    """One live Claude Code session (claude-agent-acp from `make agents`), offline against the simulator: the
    summed RSS (and PSS, which counts shared pages once) of its whole tree (guard, bridge, CLI), once the session
    is started and after one turn."""
    from activities.executors.acp import AgentSession
    from activities.executors.launcher import OWNER_ENV, launch_environment, sandbox_plan
    from office.simulator.config import SimConfig, SimProvider
    from office.simulator.server import SimulatorServer
    from routing.sandbox import SandboxSettings

    bridge = ROOT / ".cache" / "agents" / "node_modules" / ".bin" / "claude-agent-acp"
    if not bridge.exists():
        raise SystemExit(f"{bridge} is missing: `make agents` installs the real agents")

    def tree_mb() -> dict[str, Any]:
        rss = pss = 0
        for entry in os.listdir("/proc"):
            try:
                environ = Path(f"/proc/{entry}/environ").read_bytes().split(b"\0") if entry.isdigit() else []
                if not any(v.startswith(f"{OWNER_ENV}={os.getpid()}:".encode()) for v in environ):
                    continue
                rss += int(rss_mb(int(entry)) * 1024)
                rollup = Path(f"/proc/{entry}/smaps_rollup").read_text().splitlines()
                pss += next(int(line.split()[1]) for line in rollup if line.startswith("Pss:"))
            except (OSError, StopIteration):
                continue
        return {"rss_mb": round(rss / 1024), "pss_mb": round(pss / 1024)}

    os.environ["OFFICE_CRED_RSS_KEY"] = "sk-sim-rss"
    sim = await SimulatorServer(SimConfig()).start()
    try:
        await sim.set_provider("anthropic-rss", SimProvider(models=["claude-*"], api_key="sk-sim-rss"))
        with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as cwd:
            profile = ExecutionProfile(
                kind=ExecutorKind.acp,
                command=[str(bridge)],
                base_url=sim.provider_url("anthropic-rss"),
                credential_env="OFFICE_CRED_RSS_KEY",
                env={"HOME": home},  # no login or settings of whoever runs this
            )
            env = launch_environment(profile, "anthropic-rss", "sonnet")
            plan = sandbox_plan(profile, SandboxSettings())
            session = await AgentSession.launch("rss", "anthropic-rss", profile, env, cwd, home, plan)
            try:
                await session.start(cwd)
                await asyncio.sleep(3)  # the CLI settles after session/new
                started = tree_mb()
                await session.prompt("Say hello")
                await asyncio.sleep(3)
                return {"session_started": started, "after_one_turn": tree_mb()}
            finally:
                await session.close()
    finally:
        await sim.stop()


if __name__ == "__main__":
    print(json.dumps(asyncio.run(claude_session_rss() if sys.argv[1:] == ["claude-rss"] else run())))
