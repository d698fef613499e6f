"""Inputs and results passed between the workflow and its activities (pydantic, via the data converter).
No secrets: profiles carry credential references only."""

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel

from routing.budget import Estimate, RunLimits, Spend
from routing.classifier import Classification
from routing.decider import Decision
from routing.model_policy import ModelDecision
from routing.permissions import PermissionCounts, PermissionPolicy
from routing.repository import RepositoryConfig, RunResult, TurnCommit
from routing.route import Substitute
from routing.run import AttemptOutcome, Candidate, RunLink, WarningView
from routing.selection import Pins
from routing.usage import Usage


class RouteRequest(BaseModel):
    run_id: str
    workspace: str
    agent: str
    tier: str | None = None
    retry_blocked: bool = False  # after a user's resume: try routes that were waiting for user action
    pins: Pins = Pins()  # the run's own pin; durable user pins are read by the activity
    substitute: Substitute | None = None


class BudgetRequest(BaseModel):
    """Before an attempt: may the run spend? The run's own spend comes from its view; the worker reads the
    workspace's budgets, prices and spend over the windows from its store."""

    run_id: str
    workspace: str
    provider: str  # the next attempt's route and model: a dollar budget needs a price for it
    model: str
    limits: RunLimits  # the run's own (unset: the workspace's run defaults apply)
    spent: Spend
    estimate: Estimate


class SessionStarted(BaseModel):
    decision: ModelDecision
    model_to_send: str | None  # None: let the executor use its default
    effective_model: str | None  # None: provider default, model not reported (yet)
    warning: WarningView | None = None


class SessionOutput(BaseModel):
    text: str  # the answer; a long one as its head and where the whole text is (routing.conversation)
    chars: int | None = None  # the whole answer's length (None: recorded before answers were bounded)
    reported_model: str | None
    transcript_seq: int
    usage: Usage | None = None  # the tokens the provider or agent reported for the answer (None: it did not say)
    cost_usd: float | None = None  # their price (None: no usage, or no price for the model)


class AttemptRecord(BaseModel):
    run_id: str
    seq: int
    candidate: Candidate
    effective_model: str | None
    outcome: AttemptOutcome
    failure: Classification | None = None
    decision: Decision | None = None
    started_at: datetime
    finished_at: datetime
    usage: Usage | None = None  # tokens the executor reported for the attempt (a failed one's only if it knew)
    cost_usd: float | None = None
    workspace: str | None = None  # the run's, for usage by workspace (None: recorded before)
    agent: str | None = None  # the run's agent profile, for usage by agent


class SessionTurnInput(BaseModel):
    """One turn on one candidate: start the session (catalog + model policy) and answer the turn.
    For stateless HTTP executors start and run share one activity: no process lives between them."""

    run_id: str
    attempt_seq: int
    agent: str
    candidate: Candidate  # names the provider; the worker runs the profile its store holds for the workspace
    user_seq: int  # the turn's user message is entry user_seq; the answer goes to user_seq + 1
    user_text: str
    full_history: bool = True  # False: the stateless mode (only the newest user message is sent)
    is_retry: bool = False  # counts against the provider's shared retry budget
    session: SessionStarted | None = None  # the live session on this candidate: later turns skip the start
    workspace: str = ""  # the run's; "" (recorded before): the workspace the server indexed for the run


class SessionTurnOutput(BaseModel):
    started: SessionStarted
    output: SessionOutput
    normalisations: list[str] = []
    probe: bool = False  # this call was the provider's half-open probe
    commit: TurnCommit | None = None  # a run with a repository: what this turn left on the run's branch
    result: RunResult | None = None  # …and the run's branch as a whole after it (commit ids and counts only)
    permissions: PermissionCounts | None = None  # this turn's permission requests by kind
    warning: WarningView | None = None  # the turn was answered on another model than the session's: its one warning


def provider_queue(base: str, provider: str) -> str:
    """Provider calls with a configured quota run on their own queue, rate-limited by the server."""
    return f"{base}-provider-{provider}"


def acp_start_queue(base: str) -> str:
    """Agent session starts (the one activity that creates an agent process) run on their own queue: each worker
    polls it only while it holds fewer live agent processes than its limit, so a start beyond it waits here."""
    return f"{base}-acp-start"


class AcpStartInput(BaseModel):
    """The worker launches the command, and applies the repository and permissions, its store holds for the
    workspace: what the input carries of them only says whether the run works on a repository."""

    run_id: str
    attempt_seq: int
    agent: str
    candidate: Candidate
    repository: RepositoryConfig | None = None  # the session works in a working copy of the run's branch
    permissions: PermissionPolicy = PermissionPolicy()  # the workspace's policy (the profile narrows it)
    workspace: str = ""  # the run's; "" (recorded before): the workspace the server indexed for the run
    start_commit: str | None = None  # the last completed turn's commit: a fallback continues from it
    base_commit: str | None = None  # the run's base (fixed by its first working copy)


class AcpStarted(BaseModel):
    """The session lives in one worker's process: later turns go to that worker's own task queue."""

    started: SessionStarted
    session_key: str
    worker_queue: str
    base_commit: str | None = None  # with a repository: the run's base commit
    sandbox_note: str | None = None  # set when the agent runs without a sandbox (the workspace says `sandbox: none`)


class AcpTurnInput(BaseModel):
    run_id: str
    attempt_seq: int
    candidate: Candidate
    session_key: str
    started: SessionStarted
    user_seq: int
    user_text: str
    full_history: bool = True
    is_retry: bool = False  # counts against the provider's shared retry budget


class AcpCloseInput(BaseModel):
    session_key: str


class AcpAnswerInput(BaseModel):
    """A permission question's answer for the worker holding the session: it acts only on a question it holds
    itself, for the run the activity belongs to."""

    session_key: str
    question_id: str
    allow: bool


class Activity(StrEnum):
    """Activity type names: workflows schedule activities by these names, activities register under them, so
    workflows never import the activity modules (and their I/O libraries)."""

    resolve_route = "resolve_route"
    record_attempt = "record_attempt"
    session_turn = "session_turn"
    acp_start = "acp_start"
    acp_turn = "acp_turn"
    acp_close = "acp_close"
    acp_answer = "acp_answer"
    sweep_automatic_selections = "sweep_automatic_selections"
    notify_targets = "notify_targets"
    deliver_notification = "deliver_notification"
    carry_over = "carry_over"
    check_budget = "check_budget"


class CarryOverInput(BaseModel):
    """A run that continues an ended one (RunRequest.continues) asks for what it carries. Only run ids and texts:
    the activity finds the ended run, its transcript and its branch itself, and refuses unless both runs are the
    store's, in the same workspace."""

    run_id: str  # the new run (the scheduling workflow)
    continues: RunLink
    texts: list[str]  # the new run's prompt and follow-ups: the carried turns must be the ended run's own


class CarriedOver(BaseModel):
    """What the new run received: its copy of the ended run's turns, and where its branch starts."""

    turns: int  # the ended run's turns now in the new run's transcript (entries 1 .. 2 * turns)
    # The new run's branch, started at the ended run's branch head on the ended run's base (so its diff shows the
    # whole change); None: it starts at the base ref, as a new run does.
    result: RunResult | None = None
