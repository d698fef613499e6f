"""The ceilings' backlog (routing.backlog), pure: who gets the next slot, with priority classes, age promotion,
fairness between workspaces and each run's own ceiling."""

import itertools
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from routing.backlog import (
    RANK,
    GateState,
    Holder,
    RunPriority,
    Waiting,
    effective_priority,
    enqueue,
    grant,
    ordered,
    position,
    release,
)

T0 = datetime(2026, 12, 2, 8, 0, tzinfo=UTC)
BOUND_S = 900.0


def waiting(i: int, priority: RunPriority = RunPriority.default, ws: str = "a", limit: int = 2, at_s: float = 0):
    return Waiting(
        run_id=f"r{i}", workspace=ws, priority=priority, limit=limit, submitted_at=T0 + timedelta(seconds=at_s)
    )


entries = st.lists(
    st.tuples(st.sampled_from(list(RunPriority)), st.sampled_from(["a", "b", "c"]), st.integers(0, 3600)),
    max_size=30,
)


def backlog_of(items: list[tuple[RunPriority, str, int]]) -> list[Waiting]:
    return [waiting(i, p, ws, at_s=s) for i, (p, ws, s) in enumerate(items)]


@given(entries, st.integers(0, 7200))
@settings(max_examples=100, deadline=None)
def test_within_one_workspace_and_class_the_order_is_submission_order(items, now_s):
    now = T0 + timedelta(seconds=now_s)
    out = ordered([w for w in backlog_of(items) if w.workspace == "a"], [], now, BOUND_S)
    for before, after in itertools.pairwise(out):
        eb, ea = effective_priority(before, now, BOUND_S), effective_priority(after, now, BOUND_S)
        assert RANK[eb] <= RANK[ea]  # classes never interleave backwards
        if eb is ea:
            assert (before.submitted_at, before.seq) <= (after.submitted_at, after.seq)


@given(entries, st.integers(0, 7200))
@settings(max_examples=100, deadline=None)
def test_promotion_moves_a_batch_run_one_class_up_and_never_into_interactive(items, now_s):
    now = T0 + timedelta(seconds=now_s)
    for w in backlog_of(items):
        eff = effective_priority(w, now, BOUND_S)
        waited = (now - w.submitted_at).total_seconds()
        if w.priority is RunPriority.batch:
            assert eff is (RunPriority.default if waited > BOUND_S else RunPriority.batch)
        else:
            assert eff is w.priority  # interactive stays, default is never promoted into interactive


def test_an_interactive_run_submitted_last_jumps_a_batch_backlog():
    backlog = [waiting(i, RunPriority.batch, at_s=i) for i in range(500)] + [
        waiting(999, RunPriority.interactive, at_s=600)
    ]
    assert ordered(backlog, [], T0 + timedelta(seconds=601), BOUND_S)[0].run_id == "r999"


def test_a_batch_run_waiting_past_the_bound_goes_before_later_default_runs_but_after_interactive_ones():
    old_batch = waiting(1, RunPriority.batch, at_s=0)
    later_default = waiting(2, RunPriority.default, at_s=100)
    interactive = waiting(3, RunPriority.interactive, at_s=200)
    now = T0 + timedelta(seconds=BOUND_S + 1)
    assert [w.run_id for w in ordered([old_batch, later_default, interactive], [], now, BOUND_S)] == ["r3", "r1", "r2"]
    before = T0 + timedelta(seconds=BOUND_S - 1)
    assert [w.run_id for w in ordered([old_batch, later_default, interactive], [], before, BOUND_S)] == [
        "r3",
        "r2",
        "r1",
    ]


@given(entries, st.integers(0, 7200), st.integers(0, 4))
@settings(max_examples=100, deadline=None)
def test_the_next_grant_is_the_first_in_order(items, now_s, held_by_b):
    now = T0 + timedelta(seconds=now_s)
    holders = [Holder(run_id=f"h{i}", workspace="b", since=T0) for i in range(held_by_b)]
    state = GateState(scope="g", holders=holders, backlog=backlog_of(items), promote_after_s=BOUND_S)
    for i, w in enumerate(state.backlog):
        w.seq, w.limit = i, 100
    expected = ordered(state.backlog, holders, now, BOUND_S)
    assert [w.run_id for w in expected] == [h.run_id for h in grant(state, now)]  # all fit: granted in that order


def test_workspaces_sharing_a_gate_take_turns_within_a_class():
    flood = [waiting(i, ws="big", at_s=i) for i in range(100)]
    other = waiting(500, ws="small", at_s=50)
    holders = [Holder(run_id=f"h{i}", workspace="big", since=T0) for i in range(3)]
    assert ordered([*flood, other], holders, T0 + timedelta(seconds=200), BOUND_S)[0].run_id == "r500"


@given(st.lists(st.sampled_from(["ask", "end"]), min_size=1, max_size=80), st.integers(1, 5))
@settings(max_examples=100, deadline=None)
def test_a_gate_never_holds_more_than_its_ceiling_and_grants_in_submission_order(events, limit):
    state, asked, granted_order = GateState(scope="g"), 0, []
    for event in events:
        if event == "ask":
            enqueue(state, waiting(asked, limit=limit, at_s=asked))
            asked += 1
        elif state.holders:
            release(state, state.holders[0].run_id)
        granted_order += [int(h.run_id[1:]) for h in grant(state, T0)]
        assert len(state.holders) <= limit
        assert not state.backlog or len(state.holders) == limit  # a free slot never stays free while runs wait
    assert granted_order == sorted(granted_order)


def test_asking_again_is_idempotent_and_a_holder_asking_again_gets_its_grant_resent():
    state = GateState(scope="g")
    assert not enqueue(state, waiting(1, limit=1))
    assert not enqueue(state, waiting(1, limit=1))
    assert len(state.backlog) == 1
    assert [h.run_id for h in grant(state, T0)] == ["r1"]
    assert enqueue(state, waiting(1, limit=1))  # resend
    assert state.backlog == [] and len(state.holders) == 1


def test_the_first_run_in_order_is_not_overtaken_by_one_with_a_higher_ceiling():
    state = GateState(scope="g", holders=[Holder(run_id="h", workspace="a", since=T0)])
    enqueue(state, waiting(1, limit=1, at_s=0))
    enqueue(state, waiting(2, limit=5, at_s=1))
    assert grant(state, T0) == []
    assert position(state, "r1", T0) == 1 and position(state, "r2", T0) == 2
    release(state, "h")
    assert [h.run_id for h in grant(state, T0)] == ["r1", "r2"]
