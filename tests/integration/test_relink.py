"""`office runs retry | continue`: a new run linked to an ended one, on the real dev server with real git (bare
repositories in tmp_path), the scripted ACP agent and the provider simulator."""

import asyncio
import json
import os
import sys
import uuid
from pathlib import Path

import pytest

from bench.continuity import Conversation, score
from office.cli.common import console
from office.cli.relink import continues_line
from office.cli.runs import render_view
from office.relink import relink
from office.runs import start_request, wait_for_view
from office.simulator.config import SimProvider
from routing.run import RunLink, RunRequest, RunStatus, RunView
from testkit.agents import received
from testkit.eventually import eventually
from testkit.factories import scripted_agent
from testkit.runs import run_to_end, submit_run

from .helpers import calls_to
from .test_repository_runs import bare_repo, files_at, git, with_repository

pytestmark = pytest.mark.integration
OFFICE = str(Path(sys.executable).parent / "office")
# A terminal failure (invalid_request): the run fails at once, with turn 1's commit on its branch.
BAD_REQUEST = 'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"bad turn"}}'


async def office(stack, *args: str) -> tuple[int, str, str]:
    """The `office` CLI as a user runs it, against the stack."""
    env = {
        **os.environ,
        "TEMPORAL_ADDRESS": stack.temporal.address,
        "TEMPORAL_NAMESPACE": "default",
        "OFFICE_DATABASE_URL": stack.database_url,
        "COLUMNS": "200",
    }
    proc = await asyncio.create_subprocess_exec(
        OFFICE, *args, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=120)
    return proc.returncode or 0, out.decode(), err.decode()


def prompts_of(log: Path, agent_id: str | None = None) -> list[dict]:
    return [c for c in received(log) if c["method"] == "session/prompt" and agent_id in (None, c["agent"])]


async def test_retry_of_a_run_failed_in_turn_two_starts_at_turn_one_commit_and_fresh_at_the_base(stack, tmp_path):
    bare, log = bare_repo(tmp_path), tmp_path / "agent.jsonl"
    profile = scripted_agent(
        log,
        fail_turn=2,  # each agent process fails its second prompt
        fail_message=BAD_REQUEST,
        actions=[
            {"match": "first", "write": "a.txt", "content": "one\n"},
            {"match": "second", "write": "b.txt", "content": "two\n"},
        ],
    )
    ws, agent, _p = await stack.workspace({"claude": profile})
    await with_repository(stack, ws, bare, edit="allow")
    old = await run_to_end(stack, ws, agent, "the first", follow_ups=["the second"])
    assert old.status is RunStatus.failed and old.error_code == "invalid_request", old.message
    base = git("rev-parse", "main", cwd=bare).strip()
    turn1 = git("rev-parse", f"office/{old.run_id}", cwd=bare).strip()
    assert files_at(bare, turn1) == {"README": "hello\n", "a.txt": "one\n"}

    # the retry and the fresh start run side by side: two runs of their own
    retry, fresh = await asyncio.gather(
        relink(stack.client, stack.store, old.run_id, "retry", task_queue=stack.task_queue),
        relink(stack.client, stack.store, old.run_id, "fresh", task_queue=stack.task_queue),
    )
    new, view = await asyncio.gather(wait_for_view(stack.client, retry.id), wait_for_view(stack.client, fresh.id))
    assert new.status is RunStatus.completed, new.message
    assert new.continues == RunLink(run_id=old.run_id, how="retry", turns=1, files=True)
    # turn 2 ran again (one attempt, one prompt), on a branch of its own that starts at turn 1's commit
    assert len(new.attempts) == 1
    branch = f"office/{new.run_id}"
    [retried] = [c for c in prompts_of(log) if c["text"].startswith("[office]")]
    assert files_at(bare, branch) == {"README": "hello\n", "a.txt": "one\n", "b.txt": "two\n"}
    assert git("rev-parse", f"{branch}~1", cwd=bare).strip() == turn1
    assert new.result is not None and (new.result.base_commit, new.result.files_changed) == (base, 2)
    # the agent got the old run's turn in its first prompt, and where the files are
    assert retried["text"].startswith(
        f"[office] You are continuing this run on branch {branch}, at commit {turn1[:12]}"
    )
    assert "[user] the first" in retried["text"] and "turn 1: the first" in retried["text"]
    assert retried["text"].rstrip().endswith("the second")
    # the new run's transcript is its own copy: the old run's rows are as they were
    mine = [(r.seq, r.role, r.content) for r in await stack.store.read_transcript(new.run_id, 99)]
    theirs = [(r.seq, r.role, r.content) for r in await stack.store.read_transcript(old.run_id, 99)]
    assert mine[:2] == theirs[:2] and len(mine) == 4 and len(theirs) == 3  # theirs: turn 2's unanswered prompt
    assert continues_line(new) == (
        f"retries run {old.run_id} (1 turn(s) carried, from its branch head; `office runs show {old.run_id}`)"
    )
    # --fresh: the original prompt alone, as in the old run (no note, no forwarded history), from the base ref
    assert view.continues == RunLink(run_id=old.run_id, how="fresh", turns=0, files=False)
    assert len([c for c in prompts_of(log) if c["text"] == "the first"]) == 2
    fresh_branch = f"office/{view.run_id}"
    assert git("rev-parse", f"{fresh_branch}~1", cwd=bare).strip() == base
    assert files_at(bare, fresh_branch) == {"README": "hello\n", "a.txt": "one\n"}
    assert view.status is RunStatus.failed  # its agent fails its second prompt again: nothing was kept


async def test_continue_carries_the_transcript_and_the_branch(stack, tmp_path):
    bare, log = bare_repo(tmp_path), tmp_path / "agent.jsonl"
    profile = scripted_agent(
        log,
        actions=[
            {"match": "first", "write": "a.txt", "content": "one\n"},
            {"match": "more", "read": "a.txt"},
            {"match": "more", "write": "b.txt", "content": "two\n"},
        ],
    )
    ws, agent, _p = await stack.workspace({"claude": profile})
    await with_repository(stack, ws, bare, edit="allow")
    old = await run_to_end(stack, ws, agent, "the first")
    assert old.status is RunStatus.completed, old.message
    handle = await relink(stack.client, stack.store, old.run_id, "continue", "now more", task_queue=stack.task_queue)
    new = await wait_for_view(stack.client, handle.id)
    assert new.status is RunStatus.completed, new.message
    assert new.continues == RunLink(run_id=old.run_id, how="continue", turns=1, files=True)
    branch = f"office/{new.run_id}"
    assert files_at(bare, branch) == {"README": "hello\n", "a.txt": "one\n", "b.txt": "two\n"}
    assert [c.get("content") for c in received(log) if c.get("read")] == ["one\n"]  # turn 1's file was there
    [_, second] = prompts_of(log)
    assert f"[assistant] {old.output}" in second["text"] and second["text"].rstrip().endswith("now more")
    assert new.output and new.output.endswith("turn 1: now more")  # a new agent process: its first prompt
    # the UI lists the chain by the search attribute the new run was started with
    found = await eventually(
        lambda: _ids(stack, f'OfficeContinues = "{old.run_id}"'), timeout=15, what="the run that continues"
    )
    assert found == [new.run_id]


async def _ids(stack, query: str) -> list[str]:
    return [w.id async for w in stack.client.list_workflows(query)]


async def test_on_the_cli_continue_forwards_the_whole_conversation_and_retry_refuses_in_one_line(stack):
    ws, agent, p = await stack.workspace({"alpha": SimProvider()})
    canary = f"CANARY-{uuid.uuid4().hex}"
    turns = [f"{canary} turn 0: the anchor is 4711.", f"{canary} turn 1: go on.", f"{canary} turn 2: recall it."]
    old = await run_to_end(stack, ws, agent, turns[0], follow_ups=[turns[1]])
    assert old.status is RunStatus.completed
    slow_ws, slow_agent, slow = await stack.workspace({"alpha": SimProvider(latency_ms=300_000)})
    running = await submit_run(stack, slow_ws, slow_agent, "slow")
    try:
        (code, out, err), (c1, _, e1), (c2, _, e2) = await asyncio.gather(
            office(stack, "runs", "continue", old.run_id, turns[2], "--wait", "--json"),
            office(stack, "runs", "retry", old.run_id),
            office(stack, "runs", "retry", running.id),
        )
    finally:
        await running.cancel()
    assert (c1, e1.strip()) == (
        2,
        f"error: run {old.run_id} completed: nothing to retry; add a turn with `office runs continue {old.run_id} "
        '"text"`',
    )
    assert (c2, e2.strip().splitlines()) == (
        2,
        [
            f"error: run {running.id} is still running: only an ended run can "
            f"be retried; wait for it to end or `office runs cancel {running.id}`"
        ],
    )
    assert await _ids(stack, f'OfficeContinues = "{running.id}"') == []
    assert code == 0, err
    new = json.loads(out)
    assert new["status"] == "completed" and new["continues"]["run_id"] == old.run_id
    assert "anchor is 4711" in new["output"]  # the simulator recalls the first message it was sent
    conversation = Conversation("c", canary, "anchor is 4711", turns, 2, "none")
    report = score([(conversation, old)], calls_to(stack, p["alpha"]), {canary: conversation}, {"primary": p["alpha"]})
    assert (report["bleed"], report["payload_mismatch"], report["chat_calls"]) == (0, 0, 3)
    with console.capture() as shown:  # what `office runs show` prints
        render_view(RunView.model_validate(new))
    assert f"continues run {old.run_id} (2 turn(s) carried; `office runs show {old.run_id}`)" in " ".join(
        shown.get().split()
    )
    # the cancelled run, once its provider answers again, is retried: its turn 1 had no answer, so it runs again
    await stack.simulator.set_provider(slow["alpha"], SimProvider())
    cancelled = await wait_for_view(stack.client, running.id)
    assert cancelled.status is RunStatus.cancelled
    retried = await wait_for_view(
        stack.client, (await relink(stack.client, stack.store, running.id, "retry", task_queue=stack.task_queue)).id
    )
    assert retried.status is RunStatus.completed and retried.continues is not None
    assert (retried.continues.run_id, retried.continues.turns) == (running.id, 0)


async def test_a_forged_link_to_another_workspaces_run_carries_nothing(stack):
    ws_a, agent_a, _ = await stack.workspace({"alpha": SimProvider()})
    ws_b, agent_b, p_b = await stack.workspace({"alpha": SimProvider()})
    theirs = await run_to_end(stack, ws_a, agent_a, "secret plan")
    link = RunLink(run_id=theirs.run_id, how="continue", turns=1)
    forged = [  # a client that skips `office runs continue`: its own request, straight to the server
        RunRequest(run_id=f"forged-{uuid.uuid4().hex[:8]}", workspace=ws_b, agent=agent_b, prompt="secret plan",
                   follow_ups=["tell me"], continues=link),
        RunRequest(run_id=f"forged-{uuid.uuid4().hex[:8]}", workspace=ws_b, agent=agent_b, prompt="x",
                   continues=link.model_copy(update={"run_id": "no-such-run"})),
    ]  # fmt: skip
    handles = [await start_request(stack.client, r, stack.task_queue, "sim-small", "forged") for r in forged]
    views = [await wait_for_view(stack.client, h.id) for h in handles]
    assert [(v.status, v.error_code) for v in views] == [(RunStatus.failed, "invalid_input")] * 2
    assert f"ran in workspace {ws_a}, not in {ws_b}" in (views[0].message or "")
    assert "not a run of this office" in (views[1].message or "")
    assert [await stack.store.read_transcript(r.run_id, 99) for r in forged] == [[], []]
    assert calls_to(stack, p_b["alpha"]) == []  # no turn ran
