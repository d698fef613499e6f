"""Permission questions a person answers (routing.questions), on the real dev server with the real Claude Code: under
`edit: ask` its Write waits for `office runs answer`, an unanswered one is refused after permissions.ask_timeout, and
an answer with nothing to answer exits 2. The command runs in this process (its own parsing, update and output): a
separate `office` process takes longer to start on a loaded machine than a question should wait in a test."""

import asyncio
import time

import pytest

from office.runs import run_view, wait_for_view
from office.simulator.config import ScriptedToolUse
from routing.permissions import PermissionPolicy
from routing.questions import PERMISSION_ASKED, PermissionAsked
from routing.repository import RepositoryConfig
from routing.run import RunStatus, RunView
from testkit.eventually import eventually
from testkit.runs import submit_run

from .test_real_agents import agent, claude_provider, marked, no_agent_outlives_its_test, profile, simulated
from .test_repository_runs import bare_repo, files_at, git

__all__ = ["no_agent_outlives_its_test"]  # its autouse fixture: no agent of these tests outlives them
pytestmark = pytest.mark.integration
ASK_TIMEOUT_S = 6.0


async def runs(stack, *args: str) -> tuple[int, str]:
    """`office runs ARGS`, in this process (the command's own parsing, calls and output)."""
    from typer.testing import CliRunner

    from office.cli import app

    env = {"TEMPORAL_ADDRESS": stack.temporal.address, "TEMPORAL_NAMESPACE": "default", "COLUMNS": "200",
           "OFFICE_DATABASE_URL": stack.database_url}  # fmt: skip
    result = await asyncio.to_thread(CliRunner().invoke, app, ["runs", *args], env=env)
    return result.exit_code, result.output


async def answer(stack, run_id: str, *args: str) -> tuple[int, str]:
    return await runs(stack, "answer", run_id, *args)


def write(path: str, when: str) -> ScriptedToolUse:
    return ScriptedToolUse(name="Write", input={"file_path": path, "content": f"{path}\n"}, match_text=when)


def pending(view: RunView) -> list[tuple[str, tuple[str, ...]]]:
    return [(q.kind, q.paths) for q in view.questions if q.answered_by is None]


async def awaiting(stack, run_id: str, path: str) -> RunView:
    return await eventually(
        lambda: run_view(stack.client, run_id),
        until=lambda v: pending(v) == [("edit", (path,))] and v.awaiting == "permission",
        timeout=120,  # a bound on a loaded machine (workers and agents starting), not a wait
        what=f"the run awaiting a permission for {path}",
    )


async def listed_as_awaiting(stack, ws: str) -> list[str]:
    query = f'OfficeWorkspace = "{ws}" AND OfficeAwaiting = "permission"'
    return [w.id async for w in stack.client.list_workflows(query)]


async def test_a_person_allows_denies_or_lets_the_claude_code_write_time_out(stack, tmp_path):
    sim = await simulated(
        stack,
        "anthropic",
        claude_provider(
            tool_uses=[write("notes/plan.md", "the plan"), write("notes/no.md", "a note"), write("late.md", "late")]
        ),
    )
    claude = profile(stack, tmp_path, [str(agent("claude-agent-acp"))], sim)
    ws, agent_name, _p = await stack.workspace({"claude": claude}, model="sonnet")
    bare = bare_repo(tmp_path)
    config = await stack.store.get_workspace(ws)
    policy = PermissionPolicy(edit="ask", ask_timeout=ASK_TIMEOUT_S)
    await stack.store.save_workspace(
        config.model_copy(update={"repository": RepositoryConfig(url=str(bare)), "permissions": policy})
    )
    started = time.monotonic()
    handle = await submit_run(stack, ws, agent_name, "Write the plan", follow_ups=["Write a note", "Write it late"])
    run_id = handle.id

    # Turn 1: the Write waits for a person, who allows it.
    view = await awaiting(stack, run_id, "notes/plan.md")
    first = view.questions[0].question_id
    code, out = await answer(stack, run_id, "--allow", "--actor", "alice", "--question", first)
    assert code == 0 and "allowed edit notes/plan.md" in out, out
    # Turn 2: refused by a person.
    view = await awaiting(stack, run_id, "notes/no.md")
    code, out = await answer(stack, run_id, "--deny", "--actor", "bob", "--question", view.questions[1].question_id)
    assert code == 0 and "refused edit notes/no.md" in out, out
    # Turn 3: nobody answers. Meanwhile the UI's list query finds the run, and an answer to the first question,
    # already answered, is refused by the update's validator in one line.
    asked_late = time.monotonic()
    await awaiting(stack, run_id, "late.md")
    await eventually(lambda: listed_as_awaiting(stack, ws), until=lambda ids: ids == [run_id], timeout=20,
                     what="OfficeAwaiting = permission")  # fmt: skip
    code, out = await answer(stack, run_id, "--deny", "--question", first)
    assert code == 2 and out.strip().count("\n") == 0 and "already answered" in out and "Traceback" not in out, out
    view = await wait_for_view(stack.client, run_id)
    waited = time.monotonic() - asked_late
    elapsed = time.monotonic() - started
    assert view.status is RunStatus.completed, view.message

    records = [(q.kind, q.paths, q.allowed, q.answered_by, q.actor) for q in view.questions]
    assert records == [
        ("edit", ("notes/plan.md",), True, "person", "alice"),
        ("edit", ("notes/no.md",), False, "person", "bob"),
        ("edit", ("late.md",), False, "timeout", None),
    ]
    assert view.awaiting is None and view.permissions.allowed == {"edit": 1}
    assert view.permissions.refused == {"edit": 2}
    assert waited >= ASK_TIMEOUT_S
    # Only the allowed write landed, as turn 1's commit; the refused turns left the branch as it was.
    branch = f"office/{run_id}"
    assert files_at(bare, branch) == {"README": "hello\n", "notes/plan.md": "notes/plan.md\n"}
    assert git("rev-list", "--count", f"main..{branch}", cwd=bare).strip() == "1"
    transcript = await stack.store.read_transcript(run_id, 10)
    answers = [e.content for e in transcript if e.role == "assistant"]
    assert "tool reported an error" not in answers[0]
    assert all("tool reported an error" in a for a in answers[1:]), answers  # the agent heard "no", and says so
    await eventually(lambda: listed_as_awaiting(stack, ws), until=lambda ids: ids == [], timeout=20,
                     what="OfficeAwaiting cleared")  # fmt: skip

    # Nothing pending (the run has ended): exit 2, one line.
    code, out = await answer(stack, run_id, "--allow")
    assert code == 2 and out.strip().count("\n") == 0 and "nothing is awaiting" in out and "Traceback" not in out, out
    print(f"\nMEASURE claude-code: 3 turns with 3 questions in {elapsed:.1f}s (unanswered one waited {waited:.1f}s)")


async def test_worker_killed_while_a_question_is_pending_the_agent_asks_again_elsewhere(stack, tmp_path):
    """The lost turn is re-dispatched like any other (worker_lost); the first question is closed as `turn_ended` (an
    answer to it is refused), the new worker's agent asks again, and only the answered write lands, once."""
    import signal
    import uuid

    from .helpers import start_worker, stop_workers

    sim = await simulated(stack, "anthropic", claude_provider(tool_uses=[write("notes/plan.md", "the plan")]))
    claude = profile(stack, tmp_path, [str(agent("claude-agent-acp"))], sim)
    ws, agent_name, _p = await stack.workspace({"claude": claude}, model="sonnet")
    bare = bare_repo(tmp_path)
    config = await stack.store.get_workspace(ws)
    policy = PermissionPolicy(edit="ask", ask_timeout=40)
    await stack.store.save_workspace(
        config.model_copy(update={"repository": RepositoryConfig(url=str(bare)), "permissions": policy})
    )
    started = time.monotonic()
    queue = f"ask-kill-{uuid.uuid4().hex[:6]}"
    quiet = {"OFFICE_OTEL_EXPORTER": "none"}
    workers = [
        await start_worker(stack, queue, tmp_path / f"w{n}.log", OFFICE_WORK_DIR=str(tmp_path / f"w{n}"), **quiet)
        for n in (1, 2)
    ]  # both at once: the one whose agent asks is killed, the other takes the run on
    try:
        handle = await submit_run(stack, ws, agent_name, "Write the plan", task_queue=queue)
        view = await awaiting(stack, handle.id, "notes/plan.md")
        lost = view.questions[0].question_id
        [holder] = [w for w in workers if marked(w.pid)]
        holder.send_signal(signal.SIGKILL)
        await holder.wait()
        view = await eventually(
            lambda: run_view(stack.client, handle.id),
            until=lambda v: len(v.questions) == 2 and pending(v) == [("edit", ("notes/plan.md",))],
            timeout=90,
            what="the agent on the second worker asking again",
        )
        assert view.questions[0].answered_by == "turn_ended" and view.questions[0].allowed is None
        code, out = await answer(stack, handle.id, "--allow", "--question", lost)
        assert code == 2 and "already answered" in out, out  # the lost question is closed
        code, out = await answer(stack, handle.id, "--allow", "--actor", "carol")
        assert code == 0, out
        view = await asyncio.wait_for(wait_for_view(stack.client, handle.id), timeout=60)
    finally:
        await stop_workers(*workers)
    assert view.status is RunStatus.completed, view.message
    assert [a.error_code for a in view.attempts] == ["worker_lost", None]
    assert [(q.answered_by, q.allowed, q.actor) for q in view.questions] == [
        ("turn_ended", None, None),
        ("person", True, "carol"),
    ]
    branch = f"office/{view.run_id}"
    assert files_at(bare, branch) == {"README": "hello\n", "notes/plan.md": "notes/plan.md\n"}
    assert git("rev-list", "--count", f"main..{branch}", cwd=bare).strip() == "1"
    assert view.awaiting is None
    elapsed = time.monotonic() - started
    print(f"\nMEASURE claude-code: a question lost with its worker, asked again and answered: {elapsed:.1f}s")


async def test_allow_for_run_covers_the_same_kind_under_the_same_directory_for_this_run_only(stack, tmp_path):
    """The scripted agent (office/scripted_agent.py) asks three times in one turn, which the real Claude Code cannot
    be scripted to do: `--allow --for-run` on src/a.txt lets src/b.txt through without a person; other/c.txt, in
    another directory, still waits, and nobody answering refuses it (and the write the agent tries anyway)."""
    from testkit.agents import received
    from testkit.factories import scripted_agent

    from .test_repository_runs import with_repository

    log = tmp_path / "agent.jsonl"
    actions = []
    for path in ("src/a.txt", "src/b.txt", "other/c.txt"):
        actions += [{"permission": "edit", "raw_input": {"file_path": path}}, {"write": path, "content": "x\n"}]
    ws, agent_name, _p = await stack.workspace({"claude": scripted_agent(log, actions=actions)})
    bare = bare_repo(tmp_path)
    await with_repository(stack, ws, bare, edit="ask", ask_timeout=2)
    handle = await submit_run(stack, ws, agent_name, "Write three files")
    await awaiting(stack, handle.id, "src/a.txt")
    code, out = await runs(stack, "show", handle.id)
    assert code == 0 and "awaiting permission: edit src/a.txt until" in out, out
    # Anyone may signal a run: a question naming no session of the turn running now is not heard, and an answer
    # naming a question that is not pending is refused.
    forged = PermissionAsked(session_key=f"{handle.id}/9", question_id="forged", kind="edit", paths=("x",))
    await stack.client.get_workflow_handle(handle.id).signal(PERMISSION_ASKED, forged)
    code, out = await answer(stack, handle.id, "--allow", "--question", "forged")
    assert code == 2 and "not awaiting an answer" in out, out
    assert pending(await run_view(stack.client, handle.id)) == [("edit", ("src/a.txt",))]
    code, out = await answer(stack, handle.id, "--allow", "--for-run")
    assert code == 0 and "for the rest of the run: edit under src/" in out, out
    view = await wait_for_view(stack.client, handle.id)
    assert view.status is RunStatus.completed, view.message
    assert [(q.paths, q.allowed, q.answered_by, q.for_run) for q in view.questions] == [
        (("src/a.txt",), True, "person", True),
        (("src/b.txt",), True, "grant", False),
        (("other/c.txt",), False, "timeout", False),
        (("other/c.txt",), False, "timeout", False),  # its write, tried anyway, is a request of its own
    ]
    outcomes = [c.get("option") or c.get("error") for c in received(log) if c["method"] == "action"]
    assert outcomes[:4] == ["allow", None, "allow", None] and outcomes[4] == "reject" and "refused" in outcomes[5]
    assert files_at(bare, f"office/{view.run_id}") == {"README": "hello\n", "src/a.txt": "x\n", "src/b.txt": "x\n"}
