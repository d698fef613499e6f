"""The conversation's pure rules: the order of turns, what `say` refuses, when the history bound is reached."""

from hypothesis import given
from hypothesis import strategies as st

from routing.conversation import (
    SAY_MAX_CHARS,
    WAITING_MAX_CHARS,
    Conversation,
    HistoryBound,
    answer_in_history,
    say_problem,
)


def test_turns_run_in_the_order_they_were_queued_and_number_on_from_the_begun_ones():
    talk = Conversation(pending=["prompt", "follow-up"])
    assert talk.next_turn() == (0, "prompt")
    assert talk.queue("said") == 3  # after the follow-up still waiting
    assert [talk.next_turn(), talk.next_turn(), talk.next_turn()] == [(1, "follow-up"), (2, "said"), None]


def test_say_refuses_what_cannot_be_sent_or_carried():
    assert say_problem("go on", []) is None
    assert "empty" in (say_problem(" \n", []) or "")
    assert "NUL" in (say_problem("a\x00b", []) or "")
    assert str(SAY_MAX_CHARS) in (say_problem("x" * (SAY_MAX_CHARS + 1), []) or "")
    waiting = ["x" * SAY_MAX_CHARS] * (WAITING_MAX_CHARS // SAY_MAX_CHARS)
    assert "say more once the run has answered some" in (say_problem("one more", waiting) or "")


def test_the_bound_leaves_one_turns_headroom_in_events_and_in_bytes():
    bound = HistoryBound(max_events=1000, max_bytes=1_000_000, turn_events=100, turn_bytes=100_000)
    assert not bound.reached(899, 899_999)
    assert bound.reached(900, 0) and bound.reached(0, 900_000)


@given(st.text(max_size=300), st.integers(min_value=10, max_value=200))
def test_an_answer_reaches_history_whole_when_short_else_as_its_head_and_where_the_rest_is(text, limit):
    shown = answer_in_history(text, "r1", 4, limit=limit)
    if len(text) <= limit:
        assert shown == text
    else:
        head, note = shown[:limit], shown[limit:]
        assert head == text[:limit]
        assert f"{len(text) - limit} more characters of {len(text)}" in note
        assert "entry 4 of run r1's transcript" in note and "office runs show r1" in note
        assert len(note) < 200  # bounded whatever the answer's length
