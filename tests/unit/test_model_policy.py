"""The start-model policy: every mode × catalog × apply-outcome case."""

import pytest

from routing.model_policy import MismatchReason as R
from routing.model_policy import PolicyMode as M
from routing.model_policy import SelectionOutcome as O
from routing.model_policy import plan_model, settle_model

CATALOG = ["a", "b", "fb"]

# (requested, fallback, auto, catalog, supported, apply_error) -> (mode, selected, outcome, reason, effective)
CASES = [
    # default-on-mismatch
    ("a", None, False, CATALOG, True, None, M.default_on_mismatch, "a", O.applied, None, "a"),
    (
        "gone",
        None,
        False,
        CATALOG,
        True,
        None,
        M.default_on_mismatch,
        None,
        O.agent_default,
        R.requested_not_advertised,
        None,
    ),
    ("a", None, False, CATALOG, True, "boom", M.default_on_mismatch, "a", O.failed, R.apply_failed, None),
    # fallback-model
    ("a", "fb", False, CATALOG, True, None, M.fallback_model, "a", O.applied, None, "a"),
    (
        "gone",
        "fb",
        False,
        CATALOG,
        True,
        None,
        M.fallback_model,
        "fb",
        O.fallback_applied,
        R.requested_not_advertised,
        "fb",
    ),
    (
        "gone",
        "gone2",
        False,
        CATALOG,
        True,
        None,
        M.fallback_model,
        None,
        O.agent_default,
        R.fallback_not_advertised,
        None,
    ),
    ("gone", "fb", False, CATALOG, True, "boom", M.fallback_model, "fb", O.failed, R.apply_failed, None),
    # auto-fallback wins over fallback_model; apply errors are best effort
    ("a", "fb", True, CATALOG, True, None, M.auto_fallback, "a", O.applied, None, "a"),
    ("gone", "fb", True, CATALOG, True, None, M.auto_fallback, None, O.agent_default, R.requested_not_advertised, None),
    ("a", None, True, CATALOG, True, "boom", M.auto_fallback, "a", O.agent_default, R.apply_failed, None),
    # selection unsupported, empty catalog: never a speculative call
    (
        "a",
        None,
        False,
        CATALOG,
        False,
        None,
        M.default_on_mismatch,
        None,
        O.agent_default,
        R.selection_unsupported,
        None,
    ),
    ("a", "fb", True, [], True, None, M.auto_fallback, None, O.agent_default, R.empty_catalog, None),
    ("a", "fb", False, None, True, None, M.fallback_model, None, O.agent_default, R.empty_catalog, None),
]


@pytest.mark.parametrize(
    "requested,fallback,auto,catalog,supported,apply_error,mode,selected,outcome,reason,effective", CASES
)
def test_policy(requested, fallback, auto, catalog, supported, apply_error, mode, selected, outcome, reason, effective):
    plan = plan_model(requested, fallback, auto, catalog, supported)
    assert (plan.mode, plan.select) == (mode, selected)
    calls = []
    if plan.select is not None:  # the executor's one selection attempt
        calls.append(plan.select)
    decision = settle_model(plan, apply_error=apply_error if calls else None)
    assert (decision.outcome, decision.reason, decision.effective) == (outcome, reason, effective)
    assert decision.set_model_called == bool(calls)
    assert len(calls) <= 1
    if catalog is not None:
        assert all(c in catalog for c in calls), "a model the executor does not advertise was selected"
    assert decision.differs == (outcome is not O.applied)


def test_reported_model_wins_over_assumption():
    plan = plan_model("gone", None, False, CATALOG)
    assert settle_model(plan, reported="b").effective == "b"


def test_model_status_reports_gone_without_healing():
    from routing.model_policy import ModelStatus, model_status

    assert model_status("m1", [["m1"], ["m2"]]) is ModelStatus.available
    assert model_status("m1", [["m2"], ["m3"]]) is ModelStatus.gone
    assert model_status("m1", []) is ModelStatus.unknown
    assert model_status(None, [["m1"]]) is None
