"""What `office watch` shows of a turn (routing.progress, office.cli.watch) and how `office runs explain` reads
(office.explain.timeline_lines), as pure functions."""

from datetime import UTC, datetime, timedelta

from office.cli.watch import Follower, question_of
from office.explain import timeline_lines
from routing.progress import MAX_TEXT, ProgressLog
from routing.questions import QuestionRecord
from routing.run import RunStatus, RunView
from store.tables import RunEventRow

T0 = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)


def s(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def test_messages_and_tool_calls_come_out_in_order_with_paths_in_the_working_copy():
    log = ProgressLog(cwd="/work/runs/r1")
    log.message("I will fix ", s(0))
    log.message("the test.\n", s(0.1))
    log.tool("c1", "edit", "Edit /work/runs/r1/src/a.py", ["/work/runs/r1/src/a.py"], "in_progress", s(0.2))
    log.tool("c1", None, None, [], "completed", s(0.3))
    log.message("Done", s(0.4))
    events = log.take(s(0.5), final=True)
    assert [(e.kind, e.text, e.tool_kind, e.path) for e in events] == [
        ("message", "I will fix the test.", None, None),
        ("tool", "Edit src/a.py", "edit", "src/a.py"),
        ("tool_done", "completed", "edit", "src/a.py"),
        ("message", "Done", None, None),
    ]


def test_a_secret_split_across_chunks_is_redacted_whole():
    log = ProgressLog()
    log.message("the key is sk-abc", s(0))
    assert log.take(s(0.5)) == []  # an unfinished line waits (its last words longer still)
    log.message("def123456 and more words follow here", s(0.6))
    shown = " ".join(e.text or "" for e in log.take(s(3)) + log.take(s(3), final=True))
    assert "sk-abc" not in shown and "[redacted-key]" in shown and shown.endswith("follow here")


def test_long_messages_are_cut_into_bounded_events_and_an_attempt_is_bounded():
    log = ProgressLog(limit=5)
    log.message("word " * 400, s(0))
    events = log.take(s(1), final=True)
    assert len(events) == 6 and all(len(e.text or "") <= MAX_TEXT for e in events)
    assert events[-1].kind == "note" and "not recorded" in (events[-1].text or "")


def row(i: int, kind: str, text: str | None = None, tool: str | None = None, path: str | None = None) -> RunEventRow:
    return RunEventRow(id=i, run_id="r1", attempt=1, at=s(i), kind=kind, text=text, tool_kind=tool, path=path)


def view(**kw) -> RunView:
    return RunView(run_id="r1", status=kw.pop("status", RunStatus.running), workspace="w", agent="a", **kw)


def test_watch_prints_events_once_and_counts_a_retry_down():
    lines: list[str] = []
    follower = Follower("r1", lines.append)
    follower.events([row(1, "message", "hello"), row(2, "tool", "Edit a.py", "edit", "a.py")])
    follower.events([])
    assert follower.cursor == 2 and len(lines) == 2
    assert "agent  hello" in lines[0] and "tool   edit a.py" in lines[1]
    waiting = view(provider="alpha", retry_at=s(3))
    for now in (s(0), s(0.5), s(1.2), s(2.1)):
        follower.view(waiting, now)
    countdown = [line for line in lines if line.startswith("retrying")]
    assert countdown == ["retrying on alpha in 3 s", "retrying on alpha in 2 s", "retrying on alpha in 1 s"]


def test_watch_shows_the_pending_question_with_the_command_that_answers_it():
    answered = QuestionRecord(question_id="q1", kind="edit", paths=("src/a.py",), allowed=True, answered_by="person")
    pending = QuestionRecord(question_id="q2", kind="edit", paths=("src/b.py",), deadline=s(30))
    asking = view(questions=[answered, pending])
    assert question_of(asking) == "edit src/b.py until 09:00:30 (`office runs answer r1 --allow|--deny`)"
    assert question_of(view(questions=[answered])) is None
    assert question_of(view()) is None


def test_explain_lines_name_each_event_and_hold_no_dict_reprs():
    report = {
        "selected": [{"seq": 1, "provider": "a", "model": "m", "requested_model": "m", "source": "workspace_order",
                      "outcome": "failed", "error_code": "auth_required", "decision": "fallback", "reason": "r"}],
        "live": [
            {"at": "2026-12-02T09:00:00Z", "event": "activity_task_scheduled", "activity": "acp_turn",
             "summary": "turn 1 on a"},
            {"at": "2026-12-02T09:00:01Z", "event": "timer_started", "seconds": 3.0, "summary": "retry on a"},
            {"at": "2026-12-02T09:00:02Z", "event": "workflow_execution_update_accepted", "update": "user_decision",
             "args": [{"action": "substitute", "provider": "b", "model": None}]},
            {"at": "2026-12-02T09:00:03Z", "event": "upsert_workflow_search_attributes",
             "search_attributes": {"OfficeProvider": "b", "OfficeFallbackCount": 1}},
        ],
        "durable": [
            {"at": "2026-12-02T09:00:00+00:00", "kind": "provider_health", "provider": "a", "model": None,
             "state": "user_action_required", "retry_at": None, "code": "auth_required", "run_id": "r1"},
            {"at": "2026-12-02T09:00:04+00:00", "kind": "preference", "agent": "coder", "selection": "provider",
             "value": ["a"], "source": "user", "action": "set", "actor": "carol", "reason": "pinned"},
        ],
        "cleanup": [],
    }  # fmt: skip
    lines = timeline_lines(report)
    text = "\n".join(lines)
    assert "{'" not in text and "['" not in text
    assert "  2026-12-02 09:00:00  activity scheduled  acp_turn: turn 1 on a" in lines
    assert "  2026-12-02 09:00:01  timer started       3 s: retry on a" in lines
    assert "  2026-12-02 09:00:02  update accepted     user_decision action=substitute provider=b" in lines
    assert "  2026-12-02 09:00:03  search attributes   OfficeProvider=b OfficeFallbackCount=1" in lines
    assert "  2026-12-02 09:00:00  provider health     a -> user_action_required (auth_required), by run r1" in lines
    pinned = "set provider=a for agent coder by carol (source user): pinned"
    assert f"  2026-12-02 09:00:04  preference          {pinned}" in lines
    assert lines[-1] == "  (none)"
