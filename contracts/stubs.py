"""One typed stub per activity (the pattern of temporalio's samples): workflows schedule these, so mypy checks each
call's input and result against the activity's contract, and workflows never import the implementations (or their
I/O libraries). Each worker registers the implementation under the same name; `tests/unit/test_stubs.py` checks
that every stub has one with the same input and result types.
"""

from temporalio import activity

from contracts.activities import (
    AcpAnswerInput,
    AcpCloseInput,
    AcpStarted,
    AcpStartInput,
    AcpTurnInput,
    Activity,
    AttemptRecord,
    BudgetRequest,
    CarriedOver,
    CarryOverInput,
    RouteRequest,
    SessionTurnInput,
    SessionTurnOutput,
)
from contracts.notify import DeliveryOutcome, NotifyDelivery, NotifyRequest, NotifyTarget
from contracts.watchdog import ClearedSelection, SweepRequest
from routing.budget import Verdict
from routing.run import RoutePlan

IMPLEMENTED_BY_THE_WORKER = "a stub: the worker registers the implementation under this name"


@activity.defn(name=Activity.resolve_route)
async def resolve_route(req: RouteRequest) -> RoutePlan:
    """Local: workspace order, agent profile, pins and provider health → the run's candidates."""
    raise NotImplementedError(IMPLEMENTED_BY_THE_WORKER)


@activity.defn(name=Activity.record_attempt)
async def record_attempt(rec: AttemptRecord) -> None:
    """Local: a failed attempt's row and its health evidence."""
    raise NotImplementedError(IMPLEMENTED_BY_THE_WORKER)


@activity.defn(name=Activity.session_turn)
async def session_turn(inp: SessionTurnInput) -> SessionTurnOutput:
    """An OpenAI-compatible turn: admission, session start (catalog + model policy), the call, its close."""
    raise NotImplementedError(IMPLEMENTED_BY_THE_WORKER)


@activity.defn(name=Activity.acp_start)
async def acp_start(inp: AcpStartInput) -> AcpStarted:
    """Launches the agent (in a working copy of the run's branch) and starts its session."""
    raise NotImplementedError(IMPLEMENTED_BY_THE_WORKER)


@activity.defn(name=Activity.acp_turn)
async def acp_turn(inp: AcpTurnInput) -> SessionTurnOutput:
    """One prompt on the live agent session, on the worker that holds it."""
    raise NotImplementedError(IMPLEMENTED_BY_THE_WORKER)


@activity.defn(name=Activity.acp_close)
async def acp_close(inp: AcpCloseInput) -> bool:
    """Ends the run's live agent session."""
    raise NotImplementedError(IMPLEMENTED_BY_THE_WORKER)


@activity.defn(name=Activity.acp_answer)
async def acp_answer(inp: AcpAnswerInput) -> bool:
    """Hands a permission question's answer to the agent that asked it (False: no such question open there)."""
    raise NotImplementedError(IMPLEMENTED_BY_THE_WORKER)


@activity.defn(name=Activity.sweep_automatic_selections)
async def sweep_automatic_selections(req: SweepRequest) -> list[ClearedSelection]:
    """The watchdog's backstop: clears stale automatic selection state, with an audit record."""
    raise NotImplementedError(IMPLEMENTED_BY_THE_WORKER)


@activity.defn(name=Activity.notify_targets)
async def notify_targets(req: NotifyRequest) -> list[NotifyTarget]:
    """The run's workspace's endpoints that want the event (indexes and retry settings, never a URL)."""
    raise NotImplementedError(IMPLEMENTED_BY_THE_WORKER)


@activity.defn(name=Activity.deliver_notification)
async def deliver_notification(delivery: NotifyDelivery) -> DeliveryOutcome:
    """Posts the event, signed, to the endpoint the store holds at that index; raises to be retried."""
    raise NotImplementedError(IMPLEMENTED_BY_THE_WORKER)


@activity.defn(name=Activity.carry_over)
async def carry_over(inp: CarryOverInput) -> CarriedOver:
    """A retry or continuation of an ended run: copies the turns it carries into its own transcript, finds the
    ended run's branch head."""
    raise NotImplementedError(IMPLEMENTED_BY_THE_WORKER)


@activity.defn(name=Activity.check_budget)
async def check_budget(req: BudgetRequest) -> Verdict:
    """Local: the run's and its workspace's budgets against what they spent; whether the next attempt may start."""
    raise NotImplementedError(IMPLEMENTED_BY_THE_WORKER)


ALL = (
    resolve_route,
    record_attempt,
    session_turn,
    acp_start,
    acp_turn,
    acp_close,
    acp_answer,
    sweep_automatic_selections,
    notify_targets,
    deliver_notification,
    carry_over,
    check_budget,
)
