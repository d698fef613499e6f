"""Activities that read and write route state: configuration, provider health, attempts, transcripts."""

from datetime import timedelta

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities import metrics
from routing.decider import DecisionKind, HealthState
from routing.route import resolve_route
from routing.run import RoutePlan
from store.repository import Store, utcnow
from workflows.contracts import AttemptRecord, OpenTranscript, RouteRequest


class RouteStateActivities:
    def __init__(self, store: Store):
        self.store = store

    @activity.defn
    async def open_transcript(self, inp: OpenTranscript) -> int:
        """The user's prompt is entry 1 of the run's own append-only transcript."""
        await self.store.append_transcript(inp.run_id, 1, "user", inp.prompt)
        return 1

    @activity.defn
    async def resolve_route(self, req: RouteRequest) -> RoutePlan:
        workspace = await self.store.get_workspace(req.workspace)
        if workspace is None:
            raise ApplicationError(f"workspace {req.workspace!r} does not exist; create it with "
                                   "`office workspace set`", type="ConfigError", non_retryable=True)
        agent = await self.store.get_agent(req.agent)
        if agent is None:
            raise ApplicationError(f"agent profile {req.agent!r} does not exist; create it with "
                                   "`office profile set`", type="ConfigError", non_retryable=True)
        health = await self.store.list_health()
        pins = req.pins if req.pins.any else await self.store.user_pins(req.agent)
        if req.substitute and req.substitute.provider not in workspace.providers:
            raise ApplicationError(f"substitute provider {req.substitute.provider!r} is not in workspace "
                                   f"{req.workspace!r}", type="ConfigError", non_retryable=True)
        return resolve_route(workspace, agent, health, utcnow(), req.tier, frozenset(req.excluded), req.retry_blocked,
                             pins, req.substitute)

    @activity.defn
    async def record_attempt(self, rec: AttemptRecord) -> None:
        """Idempotent on (run, seq): an activity retry never adds a second row or a second health step."""
        failure, decision = rec.failure, rec.decision
        inserted = await self.store.record_attempt({
            "run_id": rec.run_id, "seq": rec.seq, "provider": rec.candidate.provider,
            "execution_profile": rec.candidate.execution_profile,
            "requested_model": rec.candidate.requested_model, "effective_model": rec.effective_model,
            "outcome": rec.outcome, "code": failure.code.value if failure else None,
            "confidence": failure.confidence if failure else None,
            "phase": failure.phase.value if failure else None, "rule": failure.rule if failure else None,
            "excerpt": failure.excerpt if failure else None,
            "retry_after_s": failure.retry_after_s if failure else None,
            "decision": decision.kind.value if decision else None,
            "started_at": rec.started_at, "finished_at": rec.finished_at})
        if not inserted:
            return
        self._count(rec)
        provider = rec.candidate.provider
        if rec.outcome == "succeeded":
            await self.store.restore_health(provider, rec.effective_model, rec.run_id)
            return
        if decision is None or decision.health is None:
            return
        effect = decision.health
        retry_at = rec.finished_at + timedelta(seconds=effect.retry_after_s) if effect.retry_after_s else None
        if effect.state is HealthState.user_action_required:
            retry_at = None  # no timer: it waits for the user
        model = (rec.effective_model or rec.candidate.requested_model) if effect.model_scoped else None
        await self.store.set_health(provider, model, effect.state, retry_at,
                                    failure.code.value if failure else None, rec.run_id)

    @staticmethod
    def _count(rec: AttemptRecord) -> None:
        attrs = {"provider": rec.candidate.provider}
        if rec.outcome == "succeeded":
            metrics.runs.add(1, attrs | {"outcome": "completed"})
            return
        code = rec.failure.code.value if rec.failure else "unknown"
        kind = rec.decision.kind if rec.decision else DecisionKind.fail
        if kind is DecisionKind.fallback:
            metrics.fallbacks.add(1, attrs | {"code": code})
        elif kind is DecisionKind.short_retry:
            metrics.retries.add(1, attrs | {"code": code})
        elif kind in (DecisionKind.park, DecisionKind.wait):
            reason = rec.decision.park_reason.value if rec.decision and rec.decision.park_reason else "wait"
            metrics.parks.add(1, attrs | {"reason": reason})
        else:
            metrics.runs.add(1, attrs | {"outcome": "failed", "code": code})
