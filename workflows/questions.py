"""Permission questions in the run (routing.questions): the worker holding the agent signals a question, the run
shows it and waits (a durable timer: the workspace's permissions.ask_timeout, never past the end of the turn), a
person answers through the `answer_permission` update (validated: something must be pending, and the question they
name must still be open), and the answer goes back to the worker with the `acp_answer` activity on that worker's own
queue. `--for-run` grants live in this run's state only; nothing is written to preferences.

A signal is anyone's to send: a question counts only while the run's own turn runs on the session it names, and the
answer goes only to that session's worker, which acts only on a question it opened itself."""

import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from contracts import stubs
    from contracts.activities import AcpAnswerInput
    from routing.permissions import ASK_TURN_MARGIN_S
    from routing.questions import (
        ANSWER_PERMISSION,
        AWAITING_PERMISSION,
        PERMISSION_ASKED,
        Answerer,
        PermissionAnswer,
        PermissionAsked,
        QuestionRecord,
        RunGrant,
        covered,
        grant_of,
    )
    from routing.run import RunView

# A run that asks a person: the first question's commands (a marker, the wait's timer, the answer's activity).
PERMISSION_QUESTIONS = "permission-questions-v1"
# `--for-run` grants only once the session's worker confirms it asked the question (a signal is anyone's to send,
# and a session key is no secret): a forged question a person allows for the run grants nothing.
GRANT_ON_DELIVERY = "grant-on-delivery-v1"
ANSWER_DELIVERY = timedelta(seconds=30)  # the session's worker takes the answer this soon, or the turn is lost anyway
MAX_RECORDS = 200  # the run's permission record keeps this many questions (the oldest answered ones go first)


@dataclass(frozen=True)
class Asking:
    """The turn running now on a live agent session: the only one whose questions the run hears."""

    session_key: str
    worker_queue: str
    ends_at: datetime  # when the turn's activity times out
    ask_timeout_s: float  # the workspace's permissions.ask_timeout


class PermissionQuestions:
    def __init__(
        self,
        view: Callable[[], RunView],
        asking: Callable[[], Asking | None],
        publish: Callable[[], None],
        on_waiting: Callable[[QuestionRecord], Awaitable[None]] | None = None,
    ) -> None:
        self._view, self._asking, self._publish = view, asking, publish
        self._on_waiting = on_waiting  # a question waits for a person: the UI's details, the webhooks
        self._grants: list[RunGrant] = []  # --for-run: this run only
        self._grants_on_delivery = False  # GRANT_ON_DELIVERY: a grant waits for the session's confirmation

    @property
    def grants(self) -> list[RunGrant]:
        return list(self._grants)

    def restore(self, grants: list[RunGrant]) -> None:
        """A run that continued as new keeps its `--for-run` grants (they are the run's, across histories)."""
        self._grants = list(grants)

    def install(self) -> None:
        workflow.set_signal_handler(PERMISSION_ASKED, self.asked)
        workflow.set_update_handler(ANSWER_PERMISSION, self.answer, validator=self.validate)

    # --- the worker asks ------------------------------------------------------------------------------------
    async def asked(self, asked: PermissionAsked) -> None:
        asking, view = self._asking(), self._view()
        if asking is None or asked.session_key != asking.session_key:
            return  # not a question of the turn running now: nobody is waiting for its answer
        if any(r.question_id == asked.question_id for r in view.questions) or not workflow.patched(
            PERMISSION_QUESTIONS
        ):
            return
        now = workflow.now()
        record = QuestionRecord(
            question_id=asked.question_id, kind=asked.kind, title=asked.title, paths=asked.paths,
            command=asked.command, asked_at=now,
        )  # fmt: skip
        self._keep(record)
        if covered(self._grants, asked) is not None:
            self._settle(record, True, "grant")
        else:
            wait_s = min(asking.ask_timeout_s, (asking.ends_at - now).total_seconds() - ASK_TURN_MARGIN_S)
            record.deadline = now + timedelta(seconds=max(wait_s, 0))
            self._show()
            if wait_s > 0 and self._on_waiting is not None:
                await self._on_waiting(record)
            if wait_s > 0:
                with contextlib.suppress(TimeoutError):
                    await workflow.wait_condition(
                        lambda: record.answered_by is not None or self._asking() is not asking,
                        timeout=timedelta(seconds=wait_s),
                        timeout_summary="waiting for a person to answer a permission question",
                    )
            if record.answered_by is None:
                ended = self._asking() is not asking
                self._settle(record, None if ended else False, "turn_ended" if ended else "timeout")
            self._show()
            if record.answered_by == "turn_ended":  # the worker and its agent are gone: nobody to tell
                return
        delivered = await self._deliver(asking, record)
        if record.for_run and record.answered_by == "person" and self._grants_on_delivery:
            if delivered:
                self._grant(record)
            else:  # not a question the session asked (forged, or already gone): its answer grants nothing
                record.for_run = False
                workflow.logger.warning("question %s was not the session's own: no grant", record.question_id)
            self._show()

    async def _deliver(self, asking: Asking, record: QuestionRecord) -> bool:
        """Best effort: if the session's worker is gone, its turn fails as a lost worker and the agent asks again.
        True when the session held the question open and took the answer."""
        try:
            held = await workflow.execute_activity(
                stubs.acp_answer,
                AcpAnswerInput(session_key=asking.session_key, question_id=record.question_id,
                               allow=bool(record.allowed)),
                task_queue=asking.worker_queue,
                schedule_to_close_timeout=ANSWER_DELIVERY,
                retry_policy=RetryPolicy(maximum_interval=timedelta(seconds=5)),
                summary=f"permission {'allowed' if record.allowed else 'refused'}: {record.kind}",
            )  # fmt: skip
        except ActivityError:
            workflow.logger.warning("the answer to question %s did not reach its worker", record.question_id)
            return False
        return bool(held)

    # --- a person answers -----------------------------------------------------------------------------------
    def validate(self, answer: PermissionAnswer) -> None:
        pending = self._pending()
        if not pending:
            raise ValueError("nothing in this run is awaiting a permission answer")
        if answer.question_id is not None and all(q.question_id != answer.question_id for q in pending):
            raise ValueError(
                f"question {answer.question_id} is not awaiting an answer "
                "(already answered, or not a question of this run)"
            )
        if answer.for_run and not answer.allow:
            raise ValueError("--for-run goes with --allow only (a refusal is for this request)")

    def answer(self, answer: PermissionAnswer) -> QuestionRecord:
        pending = self._pending()
        record = next((q for q in pending if q.question_id == answer.question_id), pending[0])
        self._settle(record, answer.allow, "person", answer.actor, answer.for_run)
        if answer.for_run and answer.allow:
            self._grants_on_delivery = workflow.patched(GRANT_ON_DELIVERY)
            if not self._grants_on_delivery:  # histories from before: granted on the answer
                self._grant(record)
        self._show()
        return record

    def _grant(self, record: QuestionRecord) -> None:
        grant = grant_of(record)
        self._grants.append(grant)
        for other in self._pending():  # what the grant covers needs no person either
            if covered([grant], _as_asked(other)) is not None:
                self._settle(other, True, "grant")

    # --- state ------------------------------------------------------------------------------------------------
    def _pending(self) -> list[QuestionRecord]:
        return [q for q in self._view().questions if q.answered_by is None]

    def _keep(self, record: QuestionRecord) -> None:
        questions = self._view().questions
        questions.append(record)
        while len(questions) > MAX_RECORDS:
            oldest = next((q for q in questions if q.answered_by is not None), questions[0])
            questions.remove(oldest)

    @staticmethod
    def _settle(
        record: QuestionRecord, allowed: bool | None, by: Answerer, actor: str | None = None, for_run: bool = False
    ) -> None:
        record.allowed, record.answered_by, record.actor = allowed, by, actor
        record.answered_at, record.for_run = workflow.now(), for_run

    def _show(self) -> None:
        """The run's view and its OfficeAwaiting attribute say whether a question waits for a person."""
        self._view().awaiting = AWAITING_PERMISSION if self._pending() else None
        self._publish()


def _as_asked(record: QuestionRecord) -> PermissionAsked:
    return PermissionAsked(
        session_key="", question_id=record.question_id, kind=record.kind, paths=record.paths, command=record.command
    )
