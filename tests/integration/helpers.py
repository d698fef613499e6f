import asyncio
import os
import sys
from pathlib import Path

from office.runs import submit, wait_for_view
from routing.run import RunView
from testkit.stack import Stack


async def run_to_end(stack: Stack, workspace: str, agent: str, prompt: str = "Fix the failing test") -> RunView:
    handle = await submit(stack.client, stack.store, workspace, agent, prompt, task_queue=stack.task_queue)
    return await wait_for_view(stack.client, handle.id)


def calls_to(stack: Stack, provider: str) -> list[dict]:
    return [c for c in stack.simulator.sim.calls if c["provider"] == provider]


ROOT = Path(__file__).resolve().parents[2]


def worker_env(stack: Stack, queue: str) -> dict[str, str]:
    return {
        **os.environ,
        "TEMPORAL_ADDRESS": stack.temporal.address,
        "TEMPORAL_NAMESPACE": "default",
        "OFFICE_DATABASE_URL": stack.database_url,
        "OFFICE_TASK_QUEUE": queue,
    }


async def start_worker(stack: Stack, queue: str, log: Path) -> asyncio.subprocess.Process:
    """A worker in its own process (`worker.py`), as a team runs them; tests kill and restart it."""
    return await asyncio.create_subprocess_exec(
        sys.executable,
        str(ROOT / "worker.py"),
        env=worker_env(stack, queue),
        cwd=ROOT,
        stdout=log.open("ab"),
        stderr=asyncio.subprocess.STDOUT,
    )


async def stop_workers(*procs: asyncio.subprocess.Process | None) -> None:
    for proc in procs:
        if proc is not None and proc.returncode is None:
            proc.terminate()
            await proc.wait()
