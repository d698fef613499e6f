"""The end every executor's session start shares: the start-model policy's decision settled, and the one persisted
model-selection warning whenever the effective model differs from the requested one (idempotent by a key derived
from the decision, so a retry, a restarted worker or a replay never adds a second)."""

import hashlib
import logging

from temporalio.exceptions import ApplicationError

from activities import metrics
from activities.bookkeeping import store_retrying
from contracts.failures import STORE_REJECTED, provider_failure
from routing.classifier import FailureSignal, classify
from routing.codes import Phase
from routing.messages import PROVIDER_DEFAULT
from routing.model_policy import ModelDecision, SelectionOutcome
from routing.run import Candidate, WarningView
from store.repository import Store
from store.rows import utcnow

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
