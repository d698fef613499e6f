"""`office watch RUN`: what a run is doing, as it happens. Its agent's messages and tool calls come from the store's
run events (written by the turn activities, activities.run_events); its state, the countdown of a short retry
and a question waiting for a person come from the run's view (a query). Ends when the run ends."""

import asyncio
import math
from collections.abc import Callable
from datetime import UTC, datetime

from rich.markup import escape

from office.cli.answer import describe
from office.cli.common import Services, console
from office.runs import run_view
from routing.run import RunStatus, RunView
from store.rows import as_utc
from store.tables import RunEventRow

ENDED = (RunStatus.completed, RunStatus.failed, RunStatus.cancelled)
Print = Callable[[str], None]


def _print(text: str) -> None:
    console.print(text, soft_wrap=True, highlight=False)


def event_line(row: RunEventRow) -> str:
    """`12:01:02  agent  I will fix the test` or `12:01:03  tool   edit src/a.py  Edit src/a.py`."""
    at = as_utc(row.at).strftime("%H:%M:%S")
    if row.kind == "message":
        return f"{at}  agent  {escape(row.text or '')}"
    what = " ".join(escape(p) for p in (row.tool_kind, row.path) if p)
    if row.kind == "tool":
        return f"{at}  tool   {what}" + (f"  [dim]{escape(row.text)}[/]" if row.text else "")
    if row.kind == "tool_done":
        colour = "red" if row.text == "failed" else "green"
        return f"{at}  tool   {what}  [{colour}]{escape(row.text or '')}[/]"
    return f"{at}  note   {escape(row.text or '')}"


def question_of(view: RunView) -> str | None:
    """The permission question waiting for a person (routing.questions), with the command that answers it."""
    pending = [q for q in view.questions if q.answered_by is None]
    if not pending:
        return None
    q = pending[0]
    until = f" until {q.deadline:%H:%M:%S}" if q.deadline else ""
    return f"{describe(q)}{until} (`office runs answer {view.run_id} --allow|--deny`)"


class Follower:
    """Prints what changed since the last look: new events, the run's state, the retry countdown, a question."""

    def __init__(self, run_id: str, out: Print = _print) -> None:
        self.run_id, self.out = run_id, out
        self.cursor = 0  # the last event shown
        self._state: tuple[object, ...] | None = None
        self._countdown: tuple[str | None, int] | None = None
        self._question: str | None = None

    def events(self, rows: list[RunEventRow]) -> None:
        for row in rows:
            self.out(event_line(row))
            self.cursor = max(self.cursor, row.id or 0)

    def view(self, view: RunView, now: datetime) -> None:
        state = (view.status.value, view.provider, len(view.attempts), view.park_reason)
        if state != self._state:
            self._state = state
            latest = view.attempts[-1] if view.attempts else None
            step = f" last attempt {latest.provider}:{latest.error_code or latest.outcome}" if latest else ""
            self.out(f"{view.status.value:<10} provider={view.provider or '-'}{step}")
        self._retry(view, now)
        question = question_of(view)
        if question and question != self._question:
            self.out(f"[yellow]waiting for a person:[/] {escape(question)}")
        self._question = question

    def _retry(self, view: RunView, now: datetime) -> None:
        if view.retry_at is None or view.status in ENDED:
            self._countdown = None
            return
        left = max(0, math.ceil((as_utc(view.retry_at) - now).total_seconds()))
        countdown = (view.provider, left)
        if countdown != self._countdown:
            self.out(f"retrying on {view.provider or 'the same route'} in {left} s")
        self._countdown = countdown


async def follow(services: Services, run_id: str, interval: float, out: Print = _print) -> RunView:
    """Until the run ends. The view is read before the events: a run that has ended has stored all of its
    events by then (each turn stores its last ones before it returns), so none is missed at the end."""
    follower = Follower(run_id, out)
    while True:
        view = await run_view(services.client, run_id)
        follower.events(await services.store.run_events.after(run_id, follower.cursor))
        follower.view(view, datetime.now(UTC))
        if view.status in ENDED:
            return view
        await asyncio.sleep(interval)
