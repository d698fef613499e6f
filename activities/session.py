"""OpenAI-compatible endpoints as the turn pipeline's executor (activities.turn_pipeline): the session start
(catalog + start-model policy + warning) and the turn share one activity, since no process lives between them."""

import logging
import time
from collections.abc import Awaitable, Callable

import httpx
from temporalio import activity

from activities.boundary import RunBoundary
from activities.executors.openai_compat import OpenAICompatExecutor
from activities.shutdown import fails_on_worker_shutdown
from activities.start_policy import settle_start
from activities.turn_pipeline import Turn, TurnAnswer, TurnCommitted, run_turn
from contracts.activities import Activity, SessionStarted, SessionTurnInput, SessionTurnOutput
from contracts.failures import config_error
from routing.codes import Phase
from routing.config import ExecutorKind
from routing.model_policy import plan_model, settle_model
from routing.progress import ProgressLog
from routing.run import Candidate
from routing.transcript import Entry, forward
from store.repository import Store
from store.rows import utcnow

log = logging.getLogger(__name__)


class SessionActivities:
    CATALOG_RECORD_EVERY_S = 30.0

    def __init__(self, store: Store, http: httpx.AsyncClient, boundary: RunBoundary):
        self.store, self.http, self.boundary = store, http, boundary
        # When each provider's catalog was last recorded (and what it was): spares a write per session.
        # It holds model lists only, never conversation data, and never feeds the start-model policy.
        self._recorded: dict[str, tuple[float, list[str]]] = {}
        # Endpoints that refused `stream_options` (see OpenAICompatExecutor): asked without it from then on.
        self._usage_refused: set[str] = set()

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

    async def start(self, run_id: str, agent: str, cand: Candidate, executor: OpenAICompatExecutor) -> SessionStarted:
        """The executor's catalog now (never a cache) → the start-model policy → one warning if it differs."""
        catalog = await executor.list_models()
        await self._observe(cand.provider, catalog, run_id)
        plan = plan_model(cand.requested_model, cand.fallback_model, cand.auto_fallback, catalog)
        # For an OpenAI-compatible endpoint, selecting a model is naming it in the request; it cannot fail here.
        default = cand.profile.default_model if cand.profile.default_model in catalog else None
        decision = settle_model(plan, reported=None if plan.select else default)
        warning = await settle_start(self.store, run_id, agent, cand, decision, plan.select)
        return SessionStarted(
            decision=decision, model_to_send=plan.select or default, effective_model=decision.effective, warning=warning
        )

    def endpoint(self, cand: Candidate) -> OpenAICompatExecutor:
        if cand.profile.kind is not ExecutorKind.openai:
            raise config_error(f"executor kind {cand.profile.kind} is not available on this worker")
        return OpenAICompatExecutor(cand.provider, cand.profile, self.http, self._usage_refused)

    @activity.defn(name=Activity.session_turn)
    @fails_on_worker_shutdown
    async def session_turn(self, inp: SessionTurnInput) -> SessionTurnOutput:
        """Admission by the shared breaker and budget, then session start and the turn, then its attempt row."""
        configured = await self.boundary.configured(inp.run_id, inp.workspace, inp.candidate)
        cand = configured.candidate
        turn = Turn.of(inp, cand, inp.session, configured.workspace)
        executor = self.endpoint(cand)
        return await run_turn(
            self.store, turn, EndpointSession(executor, lambda: self.start(inp.run_id, inp.agent, cand, executor))
        )


class EndpointSession:
    """An OpenAI-compatible endpoint as the turn pipeline's executor: stateless, so a session is the model the
    start-model policy chose, and every turn sends the run's forwarded transcript."""

    admission_phase = Phase.session_start
    paced_by_admission = True

    def __init__(self, endpoint: OpenAICompatExecutor, start: Callable[[], Awaitable[SessionStarted]]) -> None:
        self.endpoint, self._start = endpoint, start

    async def start(self) -> SessionStarted:
        return await self._start()

    async def prompt(self, transcript: list[Entry], started: SessionStarted, full_history: bool) -> TurnAnswer:
        forwarded = forward(transcript, self.endpoint.provider, full_history)
        result = await self.endpoint.chat(started.model_to_send, forwarded.messages)
        return TurnAnswer(result.text, result.model, forwarded.normalisations, result.limit_rpm, usage=result.usage)

    def progress(self) -> None:
        return None

    def observe(self, progress: ProgressLog | None) -> None:
        """The answer's text as it streams in is the endpoint's only progress."""
        self.endpoint.on_text = None if progress is None else lambda piece: progress.message(piece, utcnow())

    async def cancel(self) -> None:
        """Nothing to tell: the HTTP request ends with the cancelled task."""

    async def commit(self, turn: int, model: str | None) -> TurnCommitted:
        return TurnCommitted()

    async def close(self, keep_changes_of: int | None) -> None:
        """Nothing lives between turns."""
