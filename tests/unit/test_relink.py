"""What `office runs retry | continue` may start from an ended run, and what the carry-over activity accepts."""

import pytest

from routing.relink import RelinkRefused, answered_turns, carried_problem, refusal, relinked
from routing.run import RunLink, RunRequest, RunStatus

OLD = RunRequest(
    run_id="old", workspace="ws", agent="coder", prompt="first", follow_ups=["second", "third"], pin_model="m2"
)


def test_a_run_still_going_or_completed_is_refused_in_one_line_naming_what_to_do():
    for status in (RunStatus.running, RunStatus.parked):
        why = refusal("r1", status, "retry")
        assert why and f"still {status.value}" in why and "office runs cancel r1" in why
        assert refusal("r1", status, "continue")
    why = refusal("r1", RunStatus.completed, "retry")
    assert why and "office runs continue r1" in why and "\n" not in why
    assert refusal("r1", RunStatus.completed, "continue") is None
    assert refusal("r1", RunStatus.failed, "retry") is None and refusal("r1", RunStatus.cancelled, "fresh") is None


@pytest.mark.parametrize(
    "entries, turns",
    [
        ([], 0),
        ([(1, "user")], 0),
        ([(1, "user"), (2, "assistant")], 1),
        ([(1, "user"), (2, "assistant"), (3, "user")], 1),
        ([(1, "user"), (2, "assistant"), (3, "user"), (4, "assistant")], 2),
        ([(1, "user"), (3, "user"), (4, "assistant")], 0),  # a gap: nothing after it counts
        ([(1, "user"), (2, "user")], 0),
    ],
)
def test_answered_turns_count_from_the_start_without_gaps(entries, turns):
    assert answered_turns(entries) == turns


def test_a_retry_keeps_the_request_and_carries_the_answered_turns_and_the_branch():
    new = relinked(OLD, "new", "retry", answered=1, has_branch=True)
    assert (new.run_id, new.prompt, new.follow_ups, new.pin_model) == ("new", "first", ["second", "third"], "m2")
    assert new.continues == RunLink(run_id="old", how="retry", turns=1, files=True)
    assert OLD.continues is None  # the ended run's request is not changed


def test_a_fresh_retry_carries_nothing():
    new = relinked(OLD, "new", "fresh", answered=2, has_branch=True)
    assert new.continues == RunLink(run_id="old", how="fresh", turns=0, files=False)
    assert [new.prompt, *new.follow_ups] == ["first", "second", "third"]


def test_a_retry_of_a_run_that_answered_every_turn_points_to_continue():
    with pytest.raises(RelinkRefused, match="runs continue old"):
        relinked(OLD, "new", "retry", answered=3)


def test_a_continuation_drops_the_turns_never_answered_and_adds_the_new_one():
    new = relinked(OLD, "new", "continue", answered=1, text=" and now this ", has_branch=True)
    assert [new.prompt, *new.follow_ups] == ["first", "and now this"]
    assert new.continues == RunLink(run_id="old", how="continue", turns=1, files=True)
    nothing_answered = relinked(OLD, "new", "continue", answered=0, text="again", has_branch=True)
    assert nothing_answered.continues is not None and not nothing_answered.continues.files
    with pytest.raises(RelinkRefused, match="empty"):
        relinked(OLD, "new", "continue", answered=1, text="  ")


def test_the_activity_accepts_only_turns_the_ended_run_answered_with_the_same_texts():
    link = RunLink(run_id="old", how="retry", turns=1)
    answered = [(1, "user", "first"), (2, "assistant", "done")]
    assert carried_problem(link, ["first", "second"], answered) is None
    assert "differ" in (carried_problem(link, ["other", "second"], answered) or "")
    assert "did not answer" in (carried_problem(link, ["first"], [(1, "user", "first")]) or "")
    assert "only 1" in (carried_problem(RunLink(run_id="old", how="retry", turns=2), ["first"], answered) or "")
