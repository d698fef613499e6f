"""Permission questions, pure: what travels to a person (redacted, relative), what `--for-run` covers, the
OfficeAwaiting attribute's clearing, and the workspace check that a question fits in its turn."""

import asyncio

import pytest
from pydantic import ValidationError

from activities.questions import OpenQuestions
from contracts import search_attributes as sa
from routing.config import WorkspaceConfig
from routing.questions import PermissionAsked, covered, grant_of, question_of
from routing.run import RunStatus, RunView

WD = "/srv/work/run-1"


def asked(kind: str = "edit", paths: tuple[str, ...] = (), command: str | None = None) -> PermissionAsked:
    return PermissionAsked(session_key="s", question_id="q", kind=kind, paths=paths, command=command)  # type: ignore[arg-type]


def test_a_question_shows_paths_relative_to_the_working_copy_and_no_secrets():
    q = question_of(
        "run-1/1", "q1", "execute", "Run it", [f"{WD}/src/a.py", "docs/b.md"],
        "curl -H 'Authorization: Bearer sk-abcdefghijklmnop' x", WD,
    )  # fmt: skip
    assert q.paths == ("src/a.py", "docs/b.md")
    assert q.command is not None and "sk-abcdefghijklmnop" not in q.command and "[redacted]" in q.command


def test_for_run_covers_the_same_kind_under_the_same_directory_only():
    grant = grant_of(asked(paths=("src/pkg/a.py",)))
    assert grant.prefixes == ("src/pkg",)
    assert covered([grant], asked(paths=("src/pkg/b.py", "src/pkg/sub/c.py")))
    assert not covered([grant], asked(paths=("src/pkg/b.py", "src/other.py")))  # every path must be covered
    assert not covered([grant], asked(paths=("src/pkgx/b.py",)))  # a prefix is a directory, not a string
    assert not covered([grant], asked(kind="delete", paths=("src/pkg/b.py",)))  # the same kind only
    assert not covered([grant], asked(paths=("src/pkg/../../etc/x",)))
    assert not covered([grant], asked())  # no paths: no path grant covers it
    top = grant_of(asked(paths=("a.txt",)))
    assert top.prefixes == (".",) and covered([top], asked(paths=("deep/b.txt",)))
    assert not covered([top], asked(paths=("/etc/passwd",)))
    command = grant_of(asked(kind="execute", command="make test"))
    assert covered([command], asked(kind="execute", command="make test"))
    assert not covered([command], asked(kind="execute", command="make deploy"))


def test_office_awaiting_is_set_while_a_question_waits_and_removed_after():
    view = RunView(run_id="r", status=RunStatus.running, workspace="w", agent="a")
    published: dict[str, object] = {}
    sa.changed(view, published)
    view.awaiting = "permission"
    [update] = sa.changed(view, published)
    assert update.key.name == "OfficeAwaiting" and update.value == "permission"
    view.awaiting = None
    [update] = sa.changed(view, published)
    assert update.key.name == "OfficeAwaiting" and update.value is None  # unset: the list query no longer finds it
    assert sa.changed(view, published) == []
    view.error_code = None  # the other attributes keep their last value, as before
    assert sa.changed(view, published) == []


def _workspace(timeout_s: float, **permissions: object) -> dict[str, object]:
    agent = {"kind": "acp", "command": ["agent"], "timeout_s": timeout_s}
    return {"name": "w", "provider_order": ["a"], "providers": {"a": agent}, "permissions": permissions}


def test_ask_timeout_must_fit_in_every_agent_turn_when_something_asks():
    WorkspaceConfig.model_validate(_workspace(120, edit="ask"))  # the defaults fit: 90 s in a 120 s turn
    WorkspaceConfig.model_validate(_workspace(30, edit="deny", ask_timeout=600))  # nothing asks: no wait
    with pytest.raises(ValidationError, match=r"permissions.ask_timeout \(600 s\).*providers.a.timeout_s"):
        WorkspaceConfig.model_validate(_workspace(120, edit="ask", ask_timeout=600))


async def test_an_open_question_is_answered_once_only_by_its_own_id_and_refused_when_the_turn_ends():
    questions, sent = OpenQuestions(), []

    async def send(q: PermissionAsked) -> None:
        sent.append(q)

    questions.during_turn(send, "run-1/1", 30)
    first = asyncio.create_task(questions.ask("edit", "Write", [f"{WD}/a"], None, WD))
    await asyncio.sleep(0)
    assert [q.paths for q in sent] == [("a",)]
    assert not questions.deliver("not-mine", True)
    assert questions.deliver(sent[0].question_id, True) and await first
    assert not questions.deliver(sent[0].question_id, False)  # answered once
    second = asyncio.create_task(questions.ask("edit", "Write", [f"{WD}/b"], None, WD))
    await asyncio.sleep(0)
    questions.turn_ended()
    assert await second is False
    assert await questions.ask("edit", "Write", [f"{WD}/c"], None, WD) is False  # no turn: nobody to ask
