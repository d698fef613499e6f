import asyncio
import os
import sys
from pathlib import Path

from office.runs import run_view
from routing.run import RunStatus, RunView
from testkit.eventually import eventually
from testkit.stack import Stack


def calls_to(stack: Stack, provider: str) -> list[dict]:
    return [c for c in stack.simulator.sim.calls if c["provider"] == provider]


async def wait_for_calls(stack: Stack, provider: str, count: int, within_s: float = 30) -> None:
    """Until the simulator has received at least `count` calls for `provider`."""
    await eventually(
        lambda: len(calls_to(stack, provider)),
        until=lambda n: n >= count,
        timeout=within_s,
        what=f"{count} call(s) to {provider}",
    )


async def wait_for_status(stack: Stack, run_id: str, status: RunStatus, within_s: float = 30) -> RunView:
    """The run's view once it shows `status` (e.g. parked), as `office runs show` reads it."""
    return await eventually(
        lambda: run_view(stack.client, run_id),
        until=lambda view: view.status is status,
        timeout=within_s,
        interval=0.1,
        what=f"run {run_id} to be {status.value}",
    )


ROOT = Path(__file__).resolve().parents[2]


def worker_env(stack: Stack, queue: str) -> dict[str, str]:
    return {
        **os.environ,
        "TEMPORAL_ADDRESS": stack.temporal.address,
        "TEMPORAL_NAMESPACE": "default",
        "OFFICE_DATABASE_URL": stack.database_url,
        "OFFICE_TASK_QUEUE": queue,
    }


async def start_worker(stack: Stack, queue: str, log: Path, **env: str) -> asyncio.subprocess.Process:
    """A worker in its own process (`worker.py`), as a team runs them, with `env` added to its environment (e.g.
    OFFICE_WORK_DIR); tests kill and restart it."""
    return await asyncio.create_subprocess_exec(
        sys.executable,
        str(ROOT / "worker.py"),
        env=worker_env(stack, queue) | env,
        cwd=ROOT,
        stdout=log.open("ab"),
        stderr=asyncio.subprocess.STDOUT,
    )


async def stop_workers(*procs: asyncio.subprocess.Process | None) -> None:
    for proc in procs:
        if proc is not None and proc.returncode is None:
            proc.terminate()
            await proc.wait()


OFFICE = str(Path(sys.executable).parent / "office")


async def office(stack: Stack, *args: str) -> tuple[int, str, str]:
    """Runs the `office` command line against the stack: (exit status, stdout, stderr)."""
    env = {
        **os.environ,
        "TEMPORAL_ADDRESS": stack.temporal.address,
        "TEMPORAL_NAMESPACE": "default",
        "OFFICE_DATABASE_URL": stack.database_url,
    }
    proc = await asyncio.create_subprocess_exec(
        OFFICE, *args, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=120)
    return proc.returncode or 0, out.decode(), err.decode()
