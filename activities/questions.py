"""The worker's side of permission questions (routing.questions): an agent's request the policy marks `ask` is
signalled to its run, and the agent's request waits on a future this session holds until the run hands back an
answer (the `acp_answer` activity, on this worker's own queue) or the wait's backstop refuses it.

The open questions belong to one agent session (one run): nothing here is shared between runs, and an answer
acts only on a question this session opened itself, by an id it made up."""

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Awaitable, Callable, Sequence

from routing.permissions import ASK_TURN_MARGIN_S, ToolKind
from routing.questions import PermissionAsked, question_of

log = logging.getLogger(__name__)
Send = Callable[[PermissionAsked], Awaitable[None]]


class OpenQuestions:
    """One agent session's open permission questions. `send` is set for the length of a turn (the turn's activity
    knows its run and the worker's Temporal client); outside a turn nobody can be asked, so the answer is no."""

    def __init__(self) -> None:
        self._open: dict[str, asyncio.Future[bool]] = {}
        self.send: Send | None = None
        self.session_key = ""
        self.wait_s = 0.0  # the backstop: the run's own timer answers first (permissions.ask_timeout)

    def during_turn(self, send: Send, session_key: str, ask_timeout_s: float) -> None:
        self.send, self.session_key = send, session_key
        self.wait_s = ask_timeout_s + ASK_TURN_MARGIN_S

    def turn_ended(self) -> None:
        """The turn is over (finished, failed or cancelled): whatever is still open is refused."""
        self.send = None
        for future in self._open.values():
            if not future.done():
                future.set_result(False)

    def open_ids(self) -> list[str]:
        return list(self._open)

    async def ask(self, kind: ToolKind, title: str, paths: Sequence[str], command: str | None, workdir: str) -> bool:
        """Asks the run's person; True only when a person (or the run's `--for-run` grant) allowed it."""
        send = self.send
        if send is None:
            return False
        question_id = uuid.uuid4().hex
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._open[question_id] = future
        try:
            try:
                await send(question_of(self.session_key, question_id, kind, title, paths, command, workdir))
            except Exception as err:  # the run cannot be told: nobody can answer, so the answer is no
                log.warning("could not ask the run about a %s request: %s", kind, err)
                return False
            with contextlib.suppress(TimeoutError):
                return await asyncio.wait_for(asyncio.shield(future), self.wait_s)
            return False
        finally:
            self._open.pop(question_id, None)

    def deliver(self, question_id: str, allow: bool) -> bool:
        """The run's answer to one of this session's open questions; False when it holds no such question."""
        future = self._open.get(question_id)
        if future is None or future.done():
            return False
        future.set_result(allow)
        return True
