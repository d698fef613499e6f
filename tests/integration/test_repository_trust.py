"""What a repository can do to a worker, through real runs: its hooks see none of the worker's secrets, a
production worker refuses a repository on its own disk, and a file too big for a working copy ends the run before
any checkout, each time as a configuration failure naming the setting, never a provider failure."""

import pytest

from activities.git.runner import DEV_MODE_ENV
from office.simulator.config import SimProvider
from routing.run import RunStatus
from testkit.agents import received
from testkit.factories import scripted_agent
from testkit.runs import run_to_end
from tests.unit.test_git_trust import SECRETS, SERVER_HOOKS, hostile_repository
from tests.unit.test_workcopy import committed

from .helpers import calls_to
from .test_repository_runs import bare_repo, with_repository

pytestmark = pytest.mark.integration


async def test_a_runs_pushes_run_the_repositorys_hooks_without_the_workers_secrets(stack, tmp_path, monkeypatch):
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    marker, log = tmp_path / "hooks-saw.txt", tmp_path / "agent.jsonl"
    bare = hostile_repository(tmp_path, marker)
    ws, agent, _p = await stack.workspace(
        {"claude": scripted_agent(log, actions=[{"write": "a.txt", "content": "A\n"}])}
    )
    await with_repository(stack, ws, bare, edit="allow")
    view = await run_to_end(stack, ws, agent, "Add a.txt")
    assert view.status is RunStatus.completed, view.message
    seen = marker.read_text()
    assert {line[3:] for line in seen.splitlines() if line.startswith("== ")} == {*SERVER_HOOKS, "alternate-refs"}
    for name, value in SECRETS.items():
        assert value not in seen and f"\n{name}=" not in seen, f"{name} reached a hook of the repository"
    assert "\nOFFICE_" not in seen and "\nTEMPORAL_" not in seen


@pytest.mark.parametrize(
    ("case", "setting", "words"),
    [
        ("production worker, local path", "repository.url", f"{DEV_MODE_ENV}=1"),
        ("file over max_file_bytes", "repository.max_file_bytes", "raise repository.max_file_bytes"),
    ],
)
async def test_what_a_worker_refuses_fails_the_run_as_configuration(stack, tmp_path, monkeypatch, case, setting, words):
    log = tmp_path / "agent.jsonl"
    ws, agent, p = await stack.workspace({"claude": scripted_agent(log), "beta": SimProvider()})
    if case.startswith("production"):
        monkeypatch.delenv(DEV_MODE_ENV)  # the in-process worker now runs as in production
        await with_repository(stack, ws, bare_repo(tmp_path))
    else:
        bare = committed(tmp_path, "big", {"README.md": 7, "data/zeros.bin": 2_000_000})
        await with_repository(stack, ws, bare)
        saved = await stack.store.get_workspace(ws)
        small = saved.repository.model_copy(update={"max_file_bytes": 1_000_000})
        await stack.store.save_workspace(saved.model_copy(update={"repository": small}))
    view = await run_to_end(stack, ws, agent, "Change something")
    assert view.status is RunStatus.failed and view.error_code == "invalid_configuration", view.message
    assert setting in (view.message or "") and words in (view.message or ""), view.message
    assert not [c for c in received(log) if c["method"] == "session/prompt"]  # no agent was given the task
    assert calls_to(stack, p["beta"]) == []  # never routed elsewhere
    assert await stack.store.list_health([p["claude"], p["beta"]]) == []
