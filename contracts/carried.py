"""What an office run carries into its continuation when it continues as new (routing.conversation.HistoryBound):
ONE model, the second argument of the continued run, so the run's state crosses the boundary whole. State a
feature adds to the run (a pending question, a budget, …) belongs here too. No secrets (it is workflow input)."""

from pydantic import BaseModel

from contracts.activities import AcpStarted, SessionStarted
from routing.backlog import HeldGates
from routing.conversation import Conversation
from routing.cycle import RouteCycle
from routing.questions import RunGrant
from routing.run import RunView


class TurnsState(BaseModel):
    """workflows.turns.AgentTurns' state: the live sessions (references only: the agent's process stays on its
    worker) and the run's file state (commit ids)."""

    session: tuple[str, SessionStarted] | None = None  # (execution profile, its started HTTP session)
    acp: tuple[str, AcpStarted] | None = None  # (execution profile, the live agent session)
    base_commit: str | None = None
    start_commit: str | None = None


class CarriedState(BaseModel):
    view: RunView  # what users see, its latest attempts only (RunView.carried)
    conversation: Conversation  # the transcript position (turns begun) and the turns still waiting
    cycle: RouteCycle  # the route plan (with its pins and any approved substitute) and the position in it
    turns: TurnsState = TurnsState()
    continued: int = 1  # how many times the run has continued as new
    grants: list[RunGrant] = []  # `office runs answer --for-run`: what this run may do without asking again
    notify_events: list[str] = []  # the events the workspace's webhooks want (its last route resolution's)
    gates: HeldGates = HeldGates()  # the ceilings' slots the run holds (workflows/gate.py)
    notify_sent: dict[str, int] = {}  # per event, how many were sent: the next delivery's id goes on from there
