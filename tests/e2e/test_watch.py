"""`office watch` as a user runs it beside a live run (a separate process on the real stack, its output read line
by line while the run goes), and the lines `office runs explain` prints."""

import asyncio
import itertools
import os
import re
import sys
from pathlib import Path

from office.explain import explain_run, timeline_lines
from office.runs import run_view, say
from routing.conversation import HistoryBound
from routing.run import RunStatus
from testkit.factories import scripted_agent
from testkit.runs import submit_run

OFFICE = str(Path(sys.executable).parent / "office")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def office_env(stack) -> dict[str, str]:
    return {
        **os.environ,
        "TEMPORAL_ADDRESS": stack.temporal.address,
        "TEMPORAL_NAMESPACE": "default",
        "OFFICE_DATABASE_URL": stack.database_url,
        "COLUMNS": "200",
    }


class Watch:
    """`office watch RUN` running; its output read a line at a time, as it comes."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc, self.lines = proc, list[str]()

    @classmethod
    async def start(cls, stack, run_id: str) -> "Watch":
        proc = await asyncio.create_subprocess_exec(
            OFFICE, "watch", run_id, "--interval", "0.2", env=office_env(stack),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        )  # fmt: skip
        return cls(proc)

    async def until(self, text: str, within_s: float = 30) -> str:
        async with asyncio.timeout(within_s):
            while True:
                raw = await self.proc.stdout.readline()  # type: ignore[union-attr]
                if not raw:
                    raise AssertionError(f"watch ended before {text!r}: {self.lines}")
                self.lines.append(ANSI.sub("", raw.decode()).rstrip())
                if text in self.lines[-1]:
                    return self.lines[-1]

    async def end(self) -> int:
        rest, _ = await asyncio.wait_for(self.proc.communicate(), timeout=30)
        self.lines += [ANSI.sub("", line).rstrip() for line in rest.decode().splitlines()]
        return self.proc.returncode or 0


async def test_watch_streams_the_agents_messages_and_tool_calls_as_they_happen(stack, tmp_path):
    log = tmp_path / "agent.jsonl"
    script = scripted_agent(log, actions=[
        {"say": "Looking at the failing test.\n"},
        {"tool": "read", "path": "tests/test_a.py", "title": "Read tests/test_a.py", "status": "completed"},
        {"until": str(tmp_path / "go")},  # the turn goes on once the watcher has shown the lines above
        {"say": "Fixing it now.\n"},
        {"tool": "edit", "path": "src/a.py", "title": "Edit src/a.py", "status": "failed"},
    ])  # fmt: skip
    ws, agent, _p = await stack.workspace({"claude": script})
    handle = await submit_run(stack, ws, agent, "Fix the failing test")
    watch = await Watch.start(stack, handle.id)
    await watch.until("tool   read tests/test_a.py")
    seen_while = await run_view(stack.client, handle.id)
    assert seen_while.status is RunStatus.running and not any("Fixing it now" in line for line in watch.lines)
    (tmp_path / "go").touch()
    assert await watch.end() == 0
    shown = [re.sub(r"^\d\d:\d\d:\d\d  ", "", line) for line in watch.lines if re.match(r"\d\d:\d\d:\d\d  ", line)]
    assert shown == [
        "agent  Looking at the failing test.",
        "tool   read tests/test_a.py  Read tests/test_a.py",
        "tool   read tests/test_a.py  completed",
        "agent  Fixing it now.",
        "tool   edit src/a.py  Edit src/a.py",
        "tool   edit src/a.py  failed",
        "agent  [agent-default] turn 1: Fix the failing test",
    ]
    assert any(line.startswith("completed") for line in watch.lines)  # then the run as `runs show` prints it
    assert str(tmp_path) not in "\n".join(watch.lines)


async def test_watch_counts_a_short_retry_down_and_explain_reads_as_lines(stack, tmp_path):
    log = tmp_path / "agent.jsonl"
    script = scripted_agent(
        log, actions=[{"until": str(tmp_path / "go")}], fail_once=str(tmp_path / "failed"),
        fail_message="Internal error: 429 rate limit exceeded, please try again in 3s",
    )  # fmt: skip
    ws, agent, p = await stack.workspace({"claude": script})
    handle = await submit_run(stack, ws, agent, "Fix the failing test")
    watch = await Watch.start(stack, handle.id)
    await watch.until("running")  # the watcher is following: the agent may go on (and fail once)
    (tmp_path / "go").touch()
    first = await watch.until(f"retrying on {p['claude']} in ")
    assert await watch.end() == 0
    countdown = [int(m.group(1)) for line in watch.lines if (m := re.search(r"retrying on \S+ in (\d+) s", line))]
    assert first in watch.lines and countdown[0] >= 2 and len(countdown) >= 2  # counted down, not just said
    assert all(later < earlier for earlier, later in itertools.pairwise(countdown))
    assert any(line.startswith("completed") for line in watch.lines)

    await handle.result()  # the view says completed before the run has closed its agent and ended
    out = "\n".join(timeline_lines(await explain_run(stack.client, stack.store, handle.id)))  # as the CLI prints
    assert "{'" not in out
    for kind in ("activity scheduled", "activity failed", "timer started", "activity completed", "run completed"):
        assert re.search(rf"^  \d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d  {kind}( |$)", out, re.M), (kind, out)
    assert re.search(r"timer started\s+\d+(\.\d+)? s: retry on " + re.escape(p["claude"]), out)


async def test_watch_follows_a_run_that_continues_as_new_between_its_turns(stack, tmp_path):
    """The run id a user watches stays while its workflow history starts over: every turn's lines are shown once,
    in order, and the watch ends with the run."""
    script = scripted_agent(tmp_path / "agent.jsonl", actions=[{"until": str(tmp_path / "go")}])
    ws, agent, _p = await stack.workspace({"claude": script})
    config = await stack.store.get_workspace(ws)
    assert config is not None  # a bound this small continues the run as new after every turn
    bound = HistoryBound(max_events=100, turn_events=95)
    await stack.store.save_workspace(config.model_validate(config.model_dump() | {"history_bound": bound}))
    handle = await submit_run(stack, ws, agent, "Plan the fix")
    watch = await Watch.start(stack, handle.id)
    await watch.until("running")
    await say(stack.client, handle.id, "Write the fix")
    await say(stack.client, handle.id, "Test the fix")
    (tmp_path / "go").touch()
    assert await watch.end() == 0

    said = [line.split("  agent  ", 1)[1] for line in watch.lines if "  agent  " in line]
    assert said == [f"[agent-default] turn {i}: {text}" for i, text in
                    enumerate(["Plan the fix", "Write the fix", "Test the fix"], 1)]  # fmt: skip
    assert any(line.startswith("completed") for line in watch.lines)
    latest = await stack.client.get_workflow_handle(handle.id).describe()
    assert latest.run_id != handle.first_execution_run_id  # it did continue as new
