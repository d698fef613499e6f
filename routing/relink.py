"""A new run linked to an ended one, pure: what `office runs retry | continue` may start, with which turns, and the
checks the copying activity makes on what it carries.

- `retry RUN` (a failed or cancelled run): the same prompt and follow-ups; the turns RUN answered are carried (a copy
  of its transcript up to them, and its branch head as the start of the new run's branch), the first unanswered
  turn runs again, then the rest.
- `retry RUN --fresh`: the same prompt and follow-ups from the repository's base ref, nothing carried.
- `continue RUN "text"` (any ended run): the turns RUN answered are carried as by a retry, then "text" is the new
  turn. Turns RUN never answered (a failed turn, the follow-ups after it) are not part of the new run.

The new run is a run of its own (its own id, transcript, branch office/<new-id> and attempts), on the route the
workspace's order gives when it starts; its view names the run it continues (`RunView.continues`)."""

from collections.abc import Sequence
from typing import Literal

from routing.run import RunLink, RunRequest, RunStatus

How = Literal["retry", "fresh", "continue"]


class RelinkRefused(ValueError):
    """The ended run cannot be retried or continued this way: one line naming the run and what to do instead."""


def refusal(run_id: str, status: RunStatus, how: How) -> str | None:
    """Why `how` cannot start from a run in `status` (None: it can)."""
    if status in (RunStatus.running, RunStatus.parked):
        return (
            f"run {run_id} is still {status.value}: only an ended run can be "
            f"{'continued' if how == 'continue' else 'retried'}; wait for it to end or `office runs cancel {run_id}`"
        )
    if status is RunStatus.completed and how != "continue":
        return f'run {run_id} completed: nothing to retry; add a turn with `office runs continue {run_id} "text"`'
    return None


def answered_turns(entries: Sequence[tuple[int, str]]) -> int:
    """How many turns a transcript answered from its start: (seq, role) entries 1 user, 2 assistant, 3 user, …"""
    turns = 0
    for want, (seq, role) in enumerate(entries, 1):
        if seq != want or role != ("user" if seq % 2 else "assistant"):
            break
        turns = seq // 2
    return turns


def relinked(
    old: RunRequest, run_id: str, how: How, answered: int, text: str | None = None, has_branch: bool = False
) -> RunRequest:
    """The new run's request: the ended run's workspace, agent, tier, pins and history mode; its texts and how many
    of them are carried. `answered`: the turns the ended run answered; `has_branch`: it pushed a branch."""
    texts = [old.prompt, *old.follow_ups]
    carried = 0 if how == "fresh" else min(answered, len(texts))
    if how == "continue":
        if text is None or not text.strip():
            raise RelinkRefused('the new turn is empty; give its text: office runs continue RUN "text"')
        texts = [*texts[:carried], text.strip()]
    elif carried == len(texts):
        raise RelinkRefused(
            f'run {old.run_id} answered all its turns; add one with `office runs continue {old.run_id} "text"`'
        )
    link = RunLink(run_id=old.run_id, how=how, turns=carried, files=has_branch and carried > 0)
    return old.model_copy(
        update={"run_id": run_id, "prompt": texts[0], "follow_ups": texts[1:], "continues": link}, deep=True
    )


def carried_problem(link: RunLink, texts: Sequence[str], entries: Sequence[tuple[int, str, str]]) -> str | None:
    """The copying activity's check of the ended run's transcript (seq, role, content) against the new run's
    request: it answered the `link.turns` turns the new run carries, with the same user texts. None: it did."""
    if link.turns > len(texts):
        return f"the run carries {link.turns} turns of {link.run_id} but has only {len(texts)}"
    if answered_turns([(seq, role) for seq, role, _ in entries]) < link.turns:
        return f"run {link.run_id} did not answer {link.turns} turns (its transcript holds fewer)"
    users = [content for seq, role, content in entries if role == "user" and seq <= 2 * link.turns]
    if users != [t.replace("\x00", "\ufffd") for t in texts[: link.turns]]:
        return f"the turns carried differ from what run {link.run_id} was asked"
    return None
