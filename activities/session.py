"""Session start (catalog + start-model policy + warning) and session run (heartbeating provider call).

Every store call of a turn (admission, the transcript, the warning, the answer and its attempt row) waits out a
store outage (activities.bookkeeping.store_retrying); an outage is never classified as the provider's. Once the
provider has answered, the answer is held here and recorded as soon as the store is back: it is never asked of
the provider again."""

import hashlib
import logging
import time
from typing import Any

import httpx
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities import bookkeeping, metrics
from activities.admission import accounted, admit_and_open, heartbeating, note_stated_rate
from activities.attempts import close_answered, succeeded
from activities.bookkeeping import clean_text, store_retrying
from activities.boundary import RunBoundary
from activities.executors.base import ProviderCallError
from activities.executors.openai_compat import ChatResult, OpenAICompatExecutor
from activities.shutdown import fails_on_worker_shutdown
from contracts.activities import (
    Activity,
    SessionOutput,
    SessionStarted,
    SessionTurnInput,
    SessionTurnOutput,
)
from contracts.failures import STORE_REJECTED, config_error, provider_failure
from routing.classifier import FailureSignal, classify
from routing.codes import Phase
from routing.config import ExecutorKind
from routing.messages import PROVIDER_DEFAULT
from routing.model_policy import ModelDecision, SelectionOutcome, plan_model, settle_model
from routing.run import Candidate, WarningView
from routing.transcript import Entry, forward
from store.repository import Store, TurnOpening, utcnow

log = logging.getLogger(__name__)

REMEDIATION = [
    "check the executor's credentials (the profile's credential_env on the worker)",
    "check the agent configuration if it was copied from another workspace or machine",
    "check the agent or executor version: its model catalog may have changed",
]


def warning_for(run_id: str, agent: str, cand: Candidate, decision: ModelDecision) -> WarningView:
    """The key is derived from the decision, not the attempt: a retry, a restarted worker or a replay that
    reaches the same decision on the same route cannot add a second warning."""
    basis = "|".join(
        [
            run_id,
            cand.execution_profile,
            decision.requested,
            decision.fallback or "",
            decision.effective or "",
            decision.outcome,
            decision.reason or "",
        ]
    )
    return WarningView(
        kind="model_selection_warning",
        reason=(decision.reason or decision.outcome).__str__(),
        requested_model=decision.requested,
        effective_model=decision.effective or PROVIDER_DEFAULT,
        fallback_model=decision.fallback,
        agent=agent,
        executor_type=cand.profile.kind.value,
        execution_profile=cand.execution_profile,
        remediation=REMEDIATION,
        idempotency_key="msw:" + hashlib.sha256(basis.encode()).hexdigest()[:32],
    )


def as_entries(rows: Any) -> list[Entry]:
    """The run's transcript rows as the pure router's entries (what `forward` normalises)."""
    return [Entry(seq=r.seq, role=r.role, content=r.content, provider=r.provider) for r in rows]


async def settle_start(
    store: Store, run_id: str, agent: str, cand: Candidate, decision: ModelDecision, selected: str | None
) -> WarningView | None:
    """Every executor ends its session start here: a pinned model is never silently substituted, an
    advertised model that failed to apply fails the start, and a differing model gets its one warning."""
    if cand.model_pinned and decision.effective != cand.requested_model:
        # The user pinned this model: running on another one would be a silent substitution.
        raise provider_failure(
            classify(
                FailureSignal(
                    phase=Phase.session_start,
                    provider=cand.provider,
                    status=404,
                    error_text=f"pinned model {cand.requested_model} is not available on {cand.provider} "
                    f"(model not found in the advertised catalog)",
                ),
                utcnow(),
            )
        )
    if decision.outcome is SelectionOutcome.failed:
        raise ApplicationError(
            f"model {selected} failed to apply: {decision.apply_error}", type="ModelApplyFailed", non_retryable=True
        )
    if not decision.differs:
        return None
    warning = warning_for(run_id, agent, cand, decision)
    payload = warning.model_dump(mode="json")
    try:  # idempotent by key; a store outage is waited out like any bookkeeping, bad data never fails the turn
        if await store_retrying(
            lambda: store.add_run_message(warning.idempotency_key, run_id, warning.kind, payload),
            f"persisting the model warning of {run_id}",
        ):
            metrics.warnings.add(1, {"reason": warning.reason, "provider": cand.provider})
    except ApplicationError as err:
        if err.type != STORE_REJECTED:
            raise  # StoreUnavailable: the workflow waits for the store
        log.warning("could not persist model-selection warning for run %s: %s", run_id, err.message)
    except Exception:
        log.exception("could not persist model-selection warning for run %s", run_id)
    return warning


class SessionActivities:
    CATALOG_RECORD_EVERY_S = 30.0

    def __init__(self, store: Store, http: httpx.AsyncClient, boundary: RunBoundary):
        self.store, self.http, self.boundary = store, http, boundary
        # When each provider's catalog was last recorded (and what it was): spares a write per session.
        # It holds model lists only, never conversation data, and never feeds the start-model policy.
        self._recorded: dict[str, tuple[float, list[str]]] = {}

    async def _observe(self, provider: str, catalog: list[str], run_id: str) -> None:
        now = time.monotonic()
        last = self._recorded.get(provider)
        if last is not None and last[1] == catalog and now - last[0] < self.CATALOG_RECORD_EVERY_S:
            return
        try:
            await self.store.observe_catalog(provider, catalog, run_id)
            self._recorded[provider] = (now, catalog)
        except Exception:
            log.exception("could not record the catalog of %s", provider)

    def _executor(self, cand: Candidate) -> OpenAICompatExecutor:
        if cand.profile.kind is not ExecutorKind.openai:
            raise config_error(f"executor kind {cand.profile.kind} is not available on this worker")
        return OpenAICompatExecutor(cand.provider, cand.profile, self.http)

    async def _start(self, run_id: str, agent: str, cand: Candidate) -> SessionStarted:
        """The executor's catalog now (never a cache) → the start-model policy → one warning if it differs."""
        try:
            catalog = await self._executor(cand).list_models()
        except ProviderCallError as err:
            raise provider_failure(classify(err.signal, utcnow())) from err
        await self._observe(cand.provider, catalog, run_id)
        plan = plan_model(cand.requested_model, cand.fallback_model, cand.auto_fallback, catalog)
        # For an OpenAI-compatible endpoint, selecting a model is naming it in the request; it cannot fail here.
        default = cand.profile.default_model if cand.profile.default_model in catalog else None
        decision = settle_model(plan, reported=None if plan.select else default)
        warning = await settle_start(self.store, run_id, agent, cand, decision, plan.select)
        return SessionStarted(
            decision=decision, model_to_send=plan.select or default, effective_model=decision.effective, warning=warning
        )

    @activity.defn(name=Activity.session_turn)
    @fails_on_worker_shutdown
    async def session_turn(self, inp: SessionTurnInput) -> SessionTurnOutput:
        """Admission by the shared breaker and budget, then session start and the turn, then its attempt row."""
        cand = (await self.boundary.configured(inp.run_id, inp.workspace, inp.candidate)).candidate
        started_at = utcnow()
        opening = TurnOpening(inp.run_id, inp.user_seq, clean_text(inp.user_text))
        admission, snapshot = await admit_and_open(self.store, inp.run_id, cand, inp.is_retry, opening=opening)
        if snapshot is None:  # the call waited for its slot: the turn opens now
            snapshot = await bookkeeping.open_turn(self.store, inp.run_id, inp.user_seq, inp.user_text)
        # The shared breaker learns of a failure now; one heartbeat loop covers the catalog read and the call.
        async with accounted(self.store, inp.run_id, cand, admission), heartbeating():
            started = inp.session or await self._start(inp.run_id, inp.agent, cand)
            forwarded = forward(as_entries(snapshot), cand.provider, inp.full_history)
            result = await self._call(cand, started.model_to_send, forwarded.messages)
        await note_stated_rate(self.store, cand, admission, result.limit_rpm)
        effective = result.model or started.effective_model
        record = succeeded(inp.run_id, inp.attempt_seq, cand, effective, started_at)
        # The provider has answered: from here on only bookkeeping is left, and the answer is held until the
        # store has it (a StoreUnavailable past the bound carries it back to the workflow as `held`).
        text = clean_text(result.text)
        output = SessionOutput(text=text, reported_model=result.model, transcript_seq=inp.user_seq + 1)
        turn = SessionTurnOutput(
            started=started, output=output, normalisations=forwarded.normalisations, probe=admission.probe
        )
        return await close_answered(self.store, turn, record)

    async def _call(self, cand: Candidate, model: str | None, messages: list[dict[str, str]]) -> ChatResult:
        """The provider call; the caller heartbeats around it."""
        try:
            return await self._executor(cand).chat(model, messages)
        except ProviderCallError as err:
            raise provider_failure(classify(err.signal, utcnow())) from err
