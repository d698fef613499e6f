"""The run's public shapes: request, attempts, warnings and the view the CLI and queries show."""

from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from routing.backlog import QueueView, RunPriority
from routing.budget import Budgets
from routing.config import AgentProfile, ExecutionProfile
from routing.conversation import ANSWERS_IN_VIEW, ATTEMPTS_CARRIED, AnswerRef, HistoryBound, excerpt
from routing.decider import UNREADABLE_FAILURE_WAIT_S, ParkReason
from routing.permissions import PermissionCounts, PermissionPolicy
from routing.questions import QuestionRecord
from routing.repository import RepositoryConfig, RunResult
from routing.selection import SelectionSource
from routing.usage import Usage, add_costs


class RunStatus(StrEnum):
    queued = "queued"  # over a ceiling (workspace, agent profile, provider seats): waits for a slot, no attempt made
    running = "running"
    parked = "parked"
    idle = "idle"  # every turn answered; open for more (`office runs say`) until the workspace's idle_timeout
    completed = "completed"
    failed = "failed"
    cancelled = "cancelled"


class AttemptOutcome(StrEnum):
    succeeded = "succeeded"
    failed = "failed"


RUN_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]*$"  # safe in a URL, a git ref and a log line
RUN_ID_MAX = 200  # the store's column


class RunLink(BaseModel):
    """The ended run a new run continues (`office runs retry | continue`, routing.relink): which, how, and how many of
    its turns the new run carries (the new run's transcript holds a copy of them; with `files`, its branch starts
    at the ended run's branch head)."""

    model_config = ConfigDict(frozen=True)

    run_id: str = Field(min_length=1, max_length=RUN_ID_MAX, pattern=RUN_ID_PATTERN)
    how: Literal["retry", "fresh", "continue"]
    turns: int = Field(default=0, ge=0)  # the ended run's first `turns` turns, answered there, not here
    files: bool = False  # start from the ended run's branch head (its base stays the base)


class RunRequest(BaseModel):
    # "": the run's id is its workflow id (a scheduled run's: Temporal appends the time to the schedule's id)
    run_id: str = Field(default="", max_length=RUN_ID_MAX, pattern=r"^$|" + RUN_ID_PATTERN)
    workspace: str
    agent: str
    prompt: str = Field(min_length=1)
    tier: str | None = None
    pin_providers: list[str] = Field(default_factory=list)  # a user's pin for this run only
    pin_model: str | None = None
    follow_ups: list[str] = Field(default_factory=list)  # scripted further user turns of the conversation
    full_history: bool = True  # False: stateless, each turn sends only its own message (a control mode)
    continues: RunLink | None = None  # a retry or continuation of an ended run (routing.relink)
    max_cost_usd: float | None = Field(default=None, ge=0)  # the run's budget (None: the workspace's default)
    max_tokens: int | None = Field(default=None, ge=1)
    # Set by the run itself when it continues as new: its state (contracts.carried.CarriedState, validated by the
    # workflow, which routing cannot name); a client never sets it.
    carried: dict[str, Any] | None = None
    priority: RunPriority = RunPriority.default  # its class in a ceiling's backlog and in Temporal's task queues
    # Its workspace's gate, asked by its submitter (`office submit`, for a workspace with max_concurrent_runs):
    # the run starts in a start delay, with no task of its own, until the gate's grant wakes it.
    asked_gate: str | None = None

    @field_validator("prompt", "follow_ups", "workspace", "agent", "tier", "pin_model", "pin_providers")
    @classmethod
    def _no_nul_bytes(cls, value: object, info: ValidationInfo) -> object:
        """The run's texts go to the store, whose PostgreSQL text cannot hold NUL: refused here, named, before
        a workflow starts (a client that skipped `office submit` gets this from the data converter)."""
        if any(isinstance(text, str) and "\x00" in text for text in (value if isinstance(value, list) else [value])):
            raise ValueError(f"{info.field_name} contains a NUL byte (\\x00), which cannot be stored; remove it")
        return value


class Candidate(BaseModel):
    provider: str
    execution_profile: str
    profile: ExecutionProfile
    tier: str
    requested_model: str
    fallback_model: str | None = None
    auto_fallback: bool = False
    emergency: bool = False
    model_pinned: bool = False  # the user pinned the model: running on another one is a failure
    source: SelectionSource = (
        SelectionSource.default
    )  # default (configured order) | user (pinned or approved substitute)


class Ineligible(BaseModel):
    provider: str
    reason: str
    retry_at: datetime | None = None
    code: str | None = None


class RoutePlan(BaseModel):
    workspace: str
    agent: AgentProfile
    tier: str
    max_attempts: int
    pinned: bool = False
    candidates: list[Candidate]
    ineligible: list[Ineligible] = Field(default_factory=list)
    repository: RepositoryConfig | None = None  # the workspace's: runs work on their own branch of it
    permissions: PermissionPolicy = PermissionPolicy()  # the workspace's policy (profiles narrow it)
    notify: list[str] = Field(default_factory=list)  # the events the workspace's webhooks want (never their URLs)
    budgets: Budgets | None = None  # the workspace's, when it sets any: the run checks them before each attempt
    idle_timeout_s: float = 0  # the workspace's: how long an answered run stays open for more turns
    unreadable_failure_wait_s: float = UNREADABLE_FAILURE_WAIT_S  # the workspace's: how long one waits for a person
    providers: list[str] = Field(default_factory=list)  # the workspace's provider names: what a person may substitute
    history_bound: HistoryBound = HistoryBound()  # the workspace's: when the run continues as new
    max_concurrent_runs: int | None = None  # the workspace's ceiling (None: none)


class AttemptView(BaseModel):
    seq: int
    provider: str
    execution_profile: str = ""
    model: str | None = None
    requested_model: str | None = None
    outcome: AttemptOutcome
    source: SelectionSource = SelectionSource.default
    error_code: str | None = None
    decision: str | None = None
    reason: str | None = None
    rule: str | None = None
    catalogue: str | None = None  # the rules catalogue version that classified the failure
    excerpt: str | None = None
    retry_after_s: float | None = None
    sandbox: str | None = None  # "none": this attempt's agent ran without a sandbox (the workspace said so)
    usage: Usage | None = None  # the tokens the executor reported (None: it reported none)
    cost_usd: float | None = None  # their price (None: no usage, or the model has no price)


class WarningView(BaseModel):
    kind: str
    reason: str
    requested_model: str | None
    effective_model: str
    fallback_model: str | None = None
    agent: str
    executor_type: str
    execution_profile: str
    remediation: list[str] = Field(default_factory=list)
    idempotency_key: str


class RunView(BaseModel):
    run_id: str
    status: RunStatus
    workspace: str
    agent: str
    provider: str | None = None
    requested_model: str | None = None
    effective_model: str | None = None
    attempts: list[AttemptView] = Field(default_factory=list)
    warnings: list[WarningView] = Field(default_factory=list)
    message: str | None = None
    error_code: str | None = None
    park_reason: ParkReason | None = None
    output: str | None = None  # the last turn's answer
    answers: list[AnswerRef] = Field(default_factory=list)  # the latest turns' answers (excerpts), in order
    continued: int = 0  # times the run continued as new (its workflow history began again, same run id)
    earlier_attempts: int = 0  # attempts before `attempts[0]` (left out of a continued run's view; in the store)
    fallback_count: int = 0
    result: RunResult | None = None  # the run's branch: base and head commits, files changed (no content)
    permissions: PermissionCounts = PermissionCounts()  # what the agent asked for, allowed and refused, by kind
    repository_note: str | None = None  # e.g. a turn ran on a provider without a file system
    sandbox_note: str | None = None  # the run's agent ran without a sandbox: what that means and how to change it
    usage: Usage | None = None  # the attempts' tokens summed (None: no attempt reported any)
    cost_usd: float | None = None  # the priced attempts' cost summed (None: none was priced)
    unpriced_attempts: int = 0  # attempts with tokens but no price: the run cost more than cost_usd says
    continues: RunLink | None = None  # the ended run this one retries or continues
    schedule_id: str | None = None  # the schedule that started the run (the server's TemporalScheduledById)
    retry_at: datetime | None = None  # while a short retry on `provider` waits: when it tries again
    awaiting: str | None = None  # "permission": a question waits for `office runs answer` (OfficeAwaiting)
    questions: list[QuestionRecord] = Field(default_factory=list)  # permission questions: asked, answered, by whom
    queue: QueueView | None = None  # the last ceiling the run waited for (None: it never met one)

    def note_usage(self, usage: Usage | None, cost_usd: float | None) -> None:
        """An attempt's tokens and cost count toward the run's (every attempt, failed ones too, when known)."""
        if usage is None:
            return
        self.usage = usage if self.usage is None else self.usage + usage
        self.cost_usd = add_costs(self.cost_usd, cost_usd)
        self.unpriced_attempts += cost_usd is None

    def note_answer(self, turn: int, text: str, chars: int | None = None) -> None:
        """Turn `turn` (0 for the prompt) was answered: its excerpt and transcript entry join the view's answers.
        `chars`: the whole answer's length when `text` is only its head (a long answer stays in the transcript)."""
        self.output = text
        ref = AnswerRef(turn=turn + 1, seq=2 * turn + 2, excerpt=excerpt(text), chars=chars or len(text))
        self.answers = [*self.answers, ref][-ANSWERS_IN_VIEW:]

    def carried(self) -> "RunView":
        """The view a continued run starts from: its latest attempts only (every attempt stays in the store), and
        the last answer as an excerpt (the next turn's answer replaces it; the whole text is in the transcript)."""
        dropped = max(0, len(self.attempts) - ATTEMPTS_CARRIED)
        return self.model_copy(
            update={
                "attempts": self.attempts[dropped:],
                "earlier_attempts": self.earlier_attempts + dropped,
                "output": excerpt(self.output) if self.output is not None else None,
            }
        )

    def note_start(self, effective_model: str | None, warning: WarningView | None) -> None:
        """A session started: the model it runs, and its model warning once (replays and restarts repeat it)."""
        self.effective_model = effective_model
        if warning and all(w.idempotency_key != warning.idempotency_key for w in self.warnings):
            self.warnings.append(warning)
