"""A storm of sandboxed agent starts on one worker's event loop, its threads busy: every start completes, none
blocks the loop (nothing of ours runs between fork and exec, so a thread holding a lock at fork time cannot hang
a child), and nothing of any start is left behind: no process, no open file. The agent is testkit/tiny_agent.sh,
so the storm is launches, not agents' own start-up; `office bench launch` runs a longer one with a provider relay
as well.

The storm runs in a process of its own: the test process also holds the session's worker and clients, whose
connections open and close files of their own at any moment, so only a process that does nothing but the storm
can count what the storm left open."""

import asyncio
import json
import sys
from pathlib import Path

import pytest

from testkit.agents import running

pytestmark = pytest.mark.integration
REPOSITORY = Path(__file__).resolve().parents[2]  # where `bench` imports from
STARTS = 500  # 32 at once: each place in the storm is used about 16 times

STORM_PROCESS = f"""
import asyncio, json, os
from bench.launch import storm

def open_files():
    return sorted(f"{{fd}} {{os.readlink(f'/proc/self/fd/{{fd}}')}}" for fd in os.listdir("/proc/self/fd")
                  if os.path.exists(f"/proc/self/fd/{{fd}}"))

async def main():
    before = open_files()
    result = await storm(starts={STARTS}, at_once=32, busy=2, network=False)
    after = open_files()
    print(json.dumps({{"result": result, "before": before, "after": after}}))

asyncio.run(main())
"""


async def test_a_storm_of_sandboxed_starts_with_busy_threads_all_complete_never_stall_the_loop_and_leak_nothing():
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        STORM_PROCESS,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=REPOSITORY,
    )
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode()[-2000:]
    report = json.loads(out.decode().strip().splitlines()[-1])
    result = report["result"]
    assert result["completed"] == STARTS and result["failures"] == [], result
    assert result["busy_thread_rounds"] > 0  # the threads really were busy meanwhile
    # A start that blocked the loop would show here as seconds (the hang this replaces never returned at all).
    assert result["loop_lateness_max_ms"] < 3000, result
    assert running(result["marker"]) == []
    # A start that kept a pipe, a socket or its filter file open would leave it here: none may be left.
    assert set(report["after"]) <= set(report["before"]), sorted(set(report["after"]) - set(report["before"]))
