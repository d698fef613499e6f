"""A storm of sandboxed agent starts on one worker's event loop, its threads busy: every start completes, none
blocks the loop (nothing of ours runs between fork and exec, so a thread holding a lock at fork time cannot hang
a child), and no process of any agent is left behind. The agent is testkit/tiny_agent.sh, so the storm is
launches, not agents' own start-up; `office bench launch` runs it with a provider relay as well."""

import pytest

from bench.launch import storm
from testkit.agents import running

pytestmark = pytest.mark.integration


async def test_two_thousand_sandboxed_starts_with_busy_threads_all_complete_and_never_stall_the_loop():
    result = await storm(starts=2000, at_once=32, busy=2, network=False)
    assert result["completed"] == 2000 and result["failures"] == [], result
    assert result["busy_thread_rounds"] > 0  # the threads really were busy meanwhile
    # A start that blocked the loop would show here as seconds (the hang this replaces never returned at all).
    assert result["loop_lateness_max_ms"] < 3000, result
    assert running(result["marker"]) == []
