"""The start-model policy: which model (if any) to select at session start, from the catalog the
executor advertises right now. A model the executor does not advertise is never sent."""

from enum import StrEnum

from pydantic import BaseModel


class PolicyMode(StrEnum):
    default_on_mismatch = "default_on_mismatch"
    fallback_model = "fallback_model"
    auto_fallback = "auto_fallback"


class SelectionOutcome(StrEnum):
    applied = "applied"  # the requested model runs
    fallback_applied = "fallback_applied"  # the profile's fallback model runs
    agent_default = "agent_default"  # no selection; the executor's default runs
    failed = "failed"  # an advertised model failed to apply: session start fails


class MismatchReason(StrEnum):
    requested_not_advertised = "requested_not_advertised"
    fallback_not_advertised = "fallback_not_advertised"
    selection_unsupported = "selection_unsupported"
    empty_catalog = "empty_catalog"
    apply_failed = "apply_failed"


class ModelPlan(BaseModel):
    mode: PolicyMode
    requested: str
    fallback: str | None
    select: str | None  # the one model to select, or None: make no selection call
    outcome_if_applied: SelectionOutcome
    reason: MismatchReason | None  # why we are not on the requested model, when we are not


class ModelDecision(BaseModel):
    mode: PolicyMode
    requested: str
    fallback: str | None
    effective: str | None  # None: provider default, model not reported
    outcome: SelectionOutcome
    reason: MismatchReason | None
    set_model_called: bool
    apply_error: str | None = None

    @property
    def differs(self) -> bool:
        return self.outcome is not SelectionOutcome.applied or self.effective != self.requested


def mode_for(fallback: str | None, auto_fallback: bool) -> PolicyMode:
    if auto_fallback:  # auto-fallback wins over fallback_model
        return PolicyMode.auto_fallback
    return PolicyMode.fallback_model if fallback else PolicyMode.default_on_mismatch


def plan_model(
    requested: str,
    fallback: str | None,
    auto_fallback: bool,
    catalog: list[str] | None,
    selection_supported: bool = True,
) -> ModelPlan:
    mode = mode_for(fallback, auto_fallback)

    def plan(select: str | None, outcome: SelectionOutcome, reason: MismatchReason | None) -> ModelPlan:
        return ModelPlan(
            mode=mode, requested=requested, fallback=fallback, select=select, outcome_if_applied=outcome, reason=reason
        )

    if not selection_supported:
        return plan(None, SelectionOutcome.agent_default, MismatchReason.selection_unsupported)
    if not catalog:
        return plan(None, SelectionOutcome.agent_default, MismatchReason.empty_catalog)
    if requested in catalog:
        return plan(requested, SelectionOutcome.applied, None)
    if mode is PolicyMode.fallback_model and fallback in catalog:
        return plan(fallback, SelectionOutcome.fallback_applied, MismatchReason.requested_not_advertised)
    if mode is PolicyMode.fallback_model:
        return plan(None, SelectionOutcome.agent_default, MismatchReason.fallback_not_advertised)
    return plan(None, SelectionOutcome.agent_default, MismatchReason.requested_not_advertised)


def settle_model(plan: ModelPlan, apply_error: str | None = None, reported: str | None = None) -> ModelDecision:
    """The decision after the (at most one) selection call. `reported` is what the executor says runs."""
    called = plan.select is not None
    if called and apply_error is not None:
        if plan.mode is PolicyMode.auto_fallback:
            return ModelDecision(
                mode=plan.mode,
                requested=plan.requested,
                fallback=plan.fallback,
                effective=reported,
                outcome=SelectionOutcome.agent_default,
                reason=MismatchReason.apply_failed,
                set_model_called=True,
                apply_error=apply_error,
            )
        return ModelDecision(
            mode=plan.mode,
            requested=plan.requested,
            fallback=plan.fallback,
            effective=None,
            outcome=SelectionOutcome.failed,
            reason=MismatchReason.apply_failed,
            set_model_called=True,
            apply_error=apply_error,
        )
    effective = reported if reported is not None else plan.select
    return ModelDecision(
        mode=plan.mode,
        requested=plan.requested,
        fallback=plan.fallback,
        effective=effective,
        outcome=plan.outcome_if_applied,
        reason=plan.reason,
        set_model_called=called,
    )


class ModelStatus(StrEnum):
    available = "available"
    gone = "gone"  # reported, never healed: the profile keeps the model until the user changes it
    unknown = "unknown"


def model_status(model: str | None, catalogs: list[list[str]]) -> ModelStatus | None:
    """`available` if any known catalog advertises the model, `gone` if catalogs are known and none does."""
    if model is None:
        return None
    if not catalogs:
        return ModelStatus.unknown
    return ModelStatus.available if any(model in c for c in catalogs) else ModelStatus.gone
