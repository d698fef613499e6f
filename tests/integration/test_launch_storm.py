"""A storm of sandboxed agent starts on one worker's event loop, its threads busy: every start completes, none
blocks the loop (nothing of ours runs between fork and exec, so a thread holding a lock at fork time cannot hang
a child), and nothing of any start is left behind: no process, no open file. The agent is testkit/tiny_agent.sh,
so the storm is launches, not agents' own start-up; `office bench launch` runs a longer one with a provider relay
as well."""

import os

import pytest

from bench.launch import storm
from testkit.agents import running

pytestmark = pytest.mark.integration
STARTS = 500  # 32 at once: each place in the storm is used about 16 times


def open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


async def test_a_storm_of_sandboxed_starts_with_busy_threads_all_complete_never_stall_the_loop_and_leak_nothing():
    files_before = open_files()
    result = await storm(starts=STARTS, at_once=32, busy=2, network=False)
    assert result["completed"] == STARTS and result["failures"] == [], result
    assert result["busy_thread_rounds"] > 0  # the threads really were busy meanwhile
    # A start that blocked the loop would show here as seconds (the hang this replaces never returned at all).
    assert result["loop_lateness_max_ms"] < 3000, result
    assert running(result["marker"]) == []
    # A start that kept a pipe or a socket open would leave STARTS of them: none may be left.
    assert open_files() <= files_before, sorted(os.listdir("/proc/self/fd"))
