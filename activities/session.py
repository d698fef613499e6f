"""Session start (catalog + start-model policy + warning) and session run (heartbeating provider call)."""

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import AsyncIterator

import httpx
from temporalio import activity
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from activities import metrics
from activities.executors.base import ProviderCallError
from activities.executors.openai_compat import OpenAICompatExecutor
from routing.classifier import Classification, FailureSignal, classify
from routing.codes import Phase
from routing.config import ExecutorKind
from routing.messages import PROVIDER_DEFAULT
from routing.model_policy import ModelDecision, SelectionOutcome, plan_model, settle_model
from routing.run import Candidate, WarningView
from store.repository import Store, utcnow
from workflows.contracts import PROVIDER_FAILURE, RunSessionInput, SessionOutput, SessionStarted, StartSessionInput

log = logging.getLogger(__name__)

REMEDIATION = [
    "check the executor's credentials (the profile's credential_env on the worker)",
    "check the agent configuration if it was copied from another workspace or machine",
    "check the agent or executor version: its model catalog may have changed",
]


def provider_failure(failure: Classification) -> ApplicationError:
    """Non-retryable: the routing decider, not a retry policy, chooses what happens next."""
    return ApplicationError(f"{failure.code}: {failure.excerpt or failure.rule}", failure.model_dump(mode="json"),
                            type=f"{PROVIDER_FAILURE}.{failure.code}", non_retryable=True,
                            category=ApplicationErrorCategory.BENIGN)  # expected: logged at debug, not as a crash


def warning_for(run_id: str, agent: str, cand: Candidate, decision: ModelDecision) -> WarningView:
    """The key is derived from the decision, not the attempt: a retry, a restarted worker or a replay that
    reaches the same decision on the same route cannot add a second warning."""
    basis = "|".join([run_id, cand.execution_profile, decision.requested, decision.fallback or "",
                      decision.effective or "", decision.outcome, decision.reason or ""])
    return WarningView(
        kind="model_selection_warning", reason=(decision.reason or decision.outcome).__str__(),
        requested_model=decision.requested, effective_model=decision.effective or PROVIDER_DEFAULT,
        fallback_model=decision.fallback, agent=agent, executor_type=cand.profile.kind.value,
        execution_profile=cand.execution_profile, remediation=REMEDIATION,
        idempotency_key="msw:" + hashlib.sha256(basis.encode()).hexdigest()[:32])


@contextlib.asynccontextmanager
async def heartbeating() -> AsyncIterator[None]:
    """Heartbeats while a provider call is in flight, chunks or not: a lost worker shows up within the
    heartbeat timeout, and a cancellation reaches the activity promptly."""
    timeout = activity.info().heartbeat_timeout
    every_s = min(5.0, timeout.total_seconds() / 3) if timeout else 5.0

    async def beat() -> None:
        while True:
            activity.heartbeat()
            await asyncio.sleep(every_s)

    task = asyncio.create_task(beat())
    try:
        yield
    finally:
        task.cancel()


class SessionActivities:
    def __init__(self, store: Store, http: httpx.AsyncClient):
        self.store, self.http = store, http

    def _executor(self, cand: Candidate) -> OpenAICompatExecutor:
        if cand.profile.kind is not ExecutorKind.openai:
            raise ApplicationError(f"executor kind {cand.profile.kind} is not available on this worker",
                                   type="ConfigError", non_retryable=True)
        return OpenAICompatExecutor(cand.provider, cand.profile, self.http)

    @activity.defn
    async def start_session(self, inp: StartSessionInput) -> SessionStarted:
        cand = inp.candidate
        executor = self._executor(cand)
        try:
            catalog = await executor.list_models()  # what the executor advertises now, never a cache
        except ProviderCallError as err:
            raise provider_failure(classify(err.signal, utcnow())) from err
        try:
            await self.store.observe_catalog(cand.provider, catalog, inp.run_id)
        except Exception:  # noqa: BLE001 - reporting evidence only; never blocks a launch
            log.exception("could not record the catalog of %s", cand.provider)
        plan = plan_model(cand.requested_model, cand.fallback_model, cand.auto_fallback, catalog)
        # For an OpenAI-compatible endpoint, selecting a model is naming it in the request; it cannot fail here.
        default = cand.profile.default_model if cand.profile.default_model in catalog else None
        decision = settle_model(plan, reported=None if plan.select else default)
        if cand.model_pinned and decision.effective != cand.requested_model:
            # The user pinned this model: running on another one would be a silent substitution.
            raise provider_failure(classify(FailureSignal(
                phase=Phase.session_start, provider=cand.provider, status=404,
                error_text=f"pinned model {cand.requested_model} is not available on {cand.provider} "
                           f"(model not found in the advertised catalog)"), utcnow()))
        if decision.outcome is SelectionOutcome.failed:
            raise ApplicationError(f"model {plan.select} failed to apply: {decision.apply_error}",
                                   type="ModelApplyFailed", non_retryable=True)
        warning = None
        if decision.differs:
            warning = warning_for(inp.run_id, inp.agent, cand, decision)
            try:  # persisting the warning never blocks the launch
                if await self.store.add_run_message(warning.idempotency_key, inp.run_id, warning.kind,
                                                    warning.model_dump(mode="json")):
                    metrics.warnings.add(1, {"reason": warning.reason, "provider": cand.provider})
            except Exception:  # noqa: BLE001
                log.exception("could not persist model-selection warning for run %s", inp.run_id)
        return SessionStarted(decision=decision, model_to_send=plan.select or default,
                              effective_model=decision.effective, warning=warning)

    @activity.defn
    async def run_session(self, inp: RunSessionInput) -> SessionOutput:
        """Sends this run's own transcript snapshot (entries 1..transcript_upto) and appends the answer."""
        snapshot = await self.store.read_transcript(inp.run_id, inp.transcript_upto)
        messages = [{"role": e.role, "content": e.content} for e in snapshot]
        executor = self._executor(inp.candidate)

        try:
            async with heartbeating():
                result = await executor.chat(inp.model, messages)
        except ProviderCallError as err:
            raise provider_failure(classify(err.signal, utcnow())) from err
        seq = inp.transcript_upto + 1
        await self.store.append_transcript(inp.run_id, seq, "assistant", result.text, inp.candidate.provider)
        return SessionOutput(text=result.text, reported_model=result.model, transcript_seq=seq)
