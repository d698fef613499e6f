"""Tables. Conversation data lives only here, keyed by run: nothing in a worker caches it."""

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, DateTime, Index, Text
from sqlmodel import Field, SQLModel


def _ts() -> Any:
    return Field(sa_column=Column(DateTime(timezone=True), nullable=False))


class WorkspaceRow(SQLModel, table=True):
    __tablename__ = "workspaces"
    name: str = Field(primary_key=True, max_length=63)
    config: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    updated_at: datetime = _ts()


class AgentProfileRow(SQLModel, table=True):
    __tablename__ = "agent_profiles"
    name: str = Field(primary_key=True, max_length=63)
    model: str = Field(max_length=200)
    fallback_model: str | None = Field(default=None, max_length=200)
    auto_fallback: bool = False
    pinned_providers: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    max_concurrent_sessions: int | None = None
    updated_at: datetime = _ts()


class TranscriptEntryRow(SQLModel, table=True):
    """Append-only log of one run's conversation; a snapshot is `seq <= N` of one run_id."""

    __tablename__ = "transcript_entries"
    run_id: str = Field(primary_key=True, max_length=200)
    seq: int = Field(primary_key=True)
    role: str = Field(max_length=20)
    content: str = Field(sa_column=Column(Text, nullable=False))
    provider: str | None = Field(default=None, max_length=63)
    created_at: datetime = _ts()


class AttemptRow(SQLModel, table=True):
    __tablename__ = "attempts"
    # A workspace's spend over a budget window (store.budgets) reads its attempts by finish time.
    __table_args__ = (Index("ix_attempts_workspace_finished_at", "workspace", "finished_at"),)
    run_id: str = Field(primary_key=True, max_length=200)
    seq: int = Field(primary_key=True)
    provider: str = Field(max_length=63)
    provider_key: str | None = Field(default=None, max_length=63)  # None: recorded before provider identities
    execution_profile: str = Field(max_length=130)
    requested_model: str | None = Field(default=None, max_length=200)
    effective_model: str | None = Field(default=None, max_length=200)
    outcome: str = Field(max_length=20)
    code: str | None = Field(default=None, max_length=40)
    confidence: float | None = None
    phase: str | None = Field(default=None, max_length=20)
    rule: str | None = Field(default=None, max_length=120)
    excerpt: str | None = Field(default=None, sa_column=Column(Text))
    retry_after_s: float | None = None
    decision: str | None = Field(default=None, max_length=20)
    started_at: datetime = _ts()
    finished_at: datetime = _ts()
    catalogue: str | None = Field(default=None, max_length=40)  # the rules catalogue that classified the failure
    # Usage (None: the executor reported none, or recorded before usage was): tokens as routing.usage.Usage counts
    # them, and their price in USD (None: no price for the model).
    workspace: str | None = Field(default=None, max_length=200)
    agent: str | None = Field(default=None, max_length=63)
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    cost_usd: float | None = None


class ProviderHealthRow(SQLModel, table=True):
    """Evidence about a provider scope; never a preference. model == '' means the whole provider.
    Keyed by the provider's identity (routing.identity.provider_key: kind, endpoint, credential reference), not
    its name: two workspaces' `claude` on different endpoints or keys are two rows; `provider` is the name the
    last writer's workspace gives it, for display."""

    __tablename__ = "provider_health"
    provider_key: str = Field(primary_key=True, max_length=63)
    model: str = Field(primary_key=True, default="", max_length=200)
    provider: str = Field(max_length=63)
    state: str = Field(max_length=30)
    retry_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))
    backoff_step: int = 0
    last_code: str | None = Field(default=None, max_length=40)
    last_run_id: str | None = Field(default=None, max_length=200)
    updated_at: datetime = _ts()
    # The shared circuit breaker and retry budget (every worker reads and writes these rows).
    failure_streak: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    probe_holder: str | None = Field(default=None, max_length=200)
    probe_expires: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))
    window_start: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))
    window_requests: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    window_retries: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    window_failures: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    window_limited: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    next_slot_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))
    # The request rate learned for a provider key with no declared quota (routing.capacity).
    learned_rpm: float | None = Field(default=None)
    learned_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))
    rate_stated: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})
    limited_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))


class RunRow(SQLModel, table=True):
    """An office run as its own workflow code registered it (route resolution, a local activity that refuses
    remote calls): the worker's proof, without asking the server, that an activity's scheduling workflow is an
    office run on the office's queue, and the workspace that run acts in (activities.boundary)."""

    __tablename__ = "office_runs"
    workflow_run_id: str = Field(primary_key=True, max_length=64)
    run_id: str = Field(index=True, max_length=200)
    workspace: str = Field(max_length=200)
    registered_at: datetime = _ts()


class RunMessageRow(SQLModel, table=True):
    """Messages persisted with a run (model-selection warnings); the key makes writes idempotent."""

    __tablename__ = "run_messages"
    idempotency_key: str = Field(primary_key=True, max_length=200)
    run_id: str = Field(index=True, max_length=200)
    kind: str = Field(max_length=40)
    payload: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    created_at: datetime = _ts()


class ProviderCatalogRow(SQLModel, table=True):
    """The model catalog an executor advertised at a session start: evidence for `profile show`.
    The start-model policy never reads it; it always asks the executor."""

    __tablename__ = "provider_catalogs"
    provider: str = Field(primary_key=True, max_length=63)
    models: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    observed_at: datetime = _ts()
    run_id: str | None = Field(default=None, max_length=200)


class SelectionRow(SQLModel, table=True):
    """Durable per-agent selection state. Written only through store.preferences (source=user); rows with
    another source are legacy or bug data, which the watchdog clears."""

    __tablename__ = "selections"
    agent: str = Field(primary_key=True, max_length=63)
    kind: str = Field(primary_key=True, max_length=20)
    value: list[str] = Field(sa_column=Column(JSON, nullable=False))
    source: str = Field(max_length=20)
    actor: str | None = Field(default=None, max_length=120)
    written_by_run: str | None = Field(default=None, max_length=200)
    created_at: datetime = _ts()


class SelectionEventRow(SQLModel, table=True):
    """Append-only: every durable selection change, by users and by the watchdog (the audit record)."""

    __tablename__ = "selection_events"
    id: int | None = Field(default=None, primary_key=True)
    agent: str = Field(max_length=63)
    kind: str = Field(max_length=20)
    value: list[str] = Field(sa_column=Column(JSON, nullable=False))
    source: str = Field(max_length=20)
    action: str = Field(max_length=20)  # set | cleared
    actor: str = Field(max_length=120)
    reason: str = Field(sa_column=Column(Text, nullable=False))
    written_by_run: str | None = Field(default=None, max_length=200)
    at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False, index=True))


class HealthEventRow(SQLModel, table=True):
    """Append-only: every provider-health write, so a run's durable effects can be explained later."""

    __tablename__ = "health_events"
    id: int | None = Field(default=None, primary_key=True)
    provider: str = Field(max_length=63)
    provider_key: str | None = Field(default=None, max_length=63)  # None: written before provider identities
    model: str = Field(default="", max_length=200)
    state: str = Field(max_length=30)
    retry_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))
    code: str | None = Field(default=None, max_length=40)
    run_id: str | None = Field(default=None, max_length=200, index=True)
    at: datetime = _ts()


class RunEventRow(SQLModel, table=True):
    """What a run's agent is doing, as `office watch` streams it: its messages (redacted excerpts) and tool calls
    (kind and path, never file contents). Written by the turn activities in batches, bounded per run
    (store.run_events.KEEP_PER_RUN), read by id order; never part of a workflow history."""

    __tablename__ = "run_events"
    __table_args__ = (Index("ix_run_events_run_id_id", "run_id", "id"),)
    id: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(max_length=200)
    attempt: int  # the attempt (its seq in the run) whose agent did it
    at: datetime = _ts()
    kind: str = Field(max_length=20)  # message | tool | tool_done
    text: str | None = Field(default=None, sa_column=Column(Text))
    tool_kind: str | None = Field(default=None, max_length=40)
    path: str | None = Field(default=None, max_length=500)
