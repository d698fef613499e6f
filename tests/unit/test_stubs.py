"""The typed activity stubs workflows schedule: each has an implementation the worker registers under its name with
the same input and result types, and mypy refuses a workflow call whose input does not fit."""

import inspect
import subprocess
import sys
import typing
from pathlib import Path

import pytest
from temporalio import activity

from activities.acp_session import AcpActivities
from activities.budget import BudgetActivities
from activities.gate import GateActivities
from activities.notify import NotifyActivities
from activities.relink import RelinkActivities
from activities.routing_state import RouteStateActivities
from activities.session import SessionActivities
from activities.watchdog import WatchdogActivities
from contracts import gate, stubs

ROOT = Path(__file__).resolve().parents[2]
IMPLEMENTATIONS = [
    RouteStateActivities.resolve_route,
    RouteStateActivities.record_attempt,
    SessionActivities.session_turn,
    AcpActivities.acp_start,
    AcpActivities.acp_turn,
    AcpActivities.acp_close,
    AcpActivities.acp_answer,
    WatchdogActivities.sweep_automatic_selections,
    NotifyActivities.notify_targets,
    NotifyActivities.deliver_notification,
    RelinkActivities.carry_over,
    BudgetActivities.check_budget,
    GateActivities.gate_ask,
    GateActivities.gate_enter,
    GateActivities.gate_release,
    GateActivities.gate_vanished,
    GateActivities.gate_wake,
]
STUBS = (*stubs.ALL, *gate.ALL)


def name_of(fn: typing.Callable[..., typing.Any]) -> str:
    definition = activity._Definition.from_callable(fn)
    assert definition is not None and definition.name, fn
    return definition.name


def contract(fn: typing.Callable[..., typing.Any]) -> tuple[list[object], object]:
    """The input types (in order, without `self`) and the result type."""
    hints = typing.get_type_hints(fn)
    params = [p for p in inspect.signature(fn).parameters.values() if p.name != "self"]
    return [hints[p.name] for p in params], hints["return"]


@pytest.mark.parametrize("stub", STUBS, ids=lambda s: s.__name__)
def test_every_stub_has_an_implementation_under_its_name_with_its_types(stub):
    [impl] = [i for i in IMPLEMENTATIONS if name_of(i) == name_of(stub)]
    assert contract(impl) == contract(stub)


def test_every_implementation_has_a_stub():
    assert sorted(map(name_of, IMPLEMENTATIONS)) == sorted(map(name_of, STUBS))


def test_mypy_refuses_a_workflow_call_whose_input_does_not_fit(tmp_path):
    snippet = tmp_path / "wrong_input.py"
    snippet.write_text(
        "from datetime import timedelta\n"
        "from temporalio import workflow\n"
        "from contracts import stubs\n"
        "from contracts.activities import RouteRequest\n"
        "from routing.run import RoutePlan\n\n"
        "async def fits() -> RoutePlan:\n"
        "    req = RouteRequest(run_id='r', workspace='w', agent='a')\n"
        "    return await workflow.execute_local_activity(stubs.resolve_route, req,"
        " start_to_close_timeout=timedelta(seconds=1))\n\n"
        "async def does_not_fit() -> None:\n"
        "    req = RouteRequest(run_id='r', workspace='w', agent='a')\n"
        "    await workflow.execute_activity(stubs.session_turn, req, start_to_close_timeout=timedelta(seconds=1))\n"
    )
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--config-file", str(ROOT / "pyproject.toml"), str(snippet)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    errors = [line for line in out.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1, out.stdout  # the call that fits passes
    assert ":13: error:" in errors[0] and "execute_activity" in errors[0], errors  # the call that does not
