"""The `Store` facade: one object that hands every caller the repository method it used to have, while callers
move to the repositories themselves (`store.config`, `store.capacity`, …). Every write that an activity retry can
repeat is idempotent by primary key."""

from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession
from sqlmodel import SQLModel

from routing.capacity import DEFAULT_POLICY, Admission, CallRequest, CapacityPolicy
from routing.config import AgentProfile, WorkspaceConfig
from routing.decider import HealthState
from routing.route import HealthRecord
from routing.selection import Pins
from store.attempts import AttemptRepository, UsageGroup
from store.budgets import BudgetRepository
from store.capacity import RESTORABLE, Capacity, Identities
from store.capacity_cas import CompareAndSetCapacity
from store.capacity_locking import LockingCapacity
from store.catalogs import CatalogRepository
from store.configuration import ConfigRepository
from store.database import Database
from store.engine import DEFAULT_POOL_SIZE
from store.messages import MessageRepository
from store.rows import Closed, TurnClose, TurnOpening, as_utc, utcnow
from store.run_events import RunEventRepository
from store.runs import RunRepository
from store.selections import SelectionRepository
from store.tables import (
    AttemptRow,
    HealthEventRow,
    ProviderHealthRow,
    RunMessageRow,
    RunRow,
    SelectionEventRow,
    SelectionRow,
    TranscriptEntryRow,
)
from store.transcript import TranscriptRepository

__all__ = ["RESTORABLE", "CallAdmission", "Store", "TurnOpening", "as_utc", "capacity_for", "utcnow"]

CallAdmission = Admission  # the store's old name for routing.capacity's answer


def capacity_for(database: Database, identities: Identities) -> Capacity:
    """The capacity implementation the backend takes: compare-and-set on PostgreSQL, row locks on SQLite."""
    if database.is_postgresql:
        return CompareAndSetCapacity(database, identities)
    return LockingCapacity(database, identities)


class Store:
    """The repositories of one database, and (delegating to them) the methods callers have always used. The
    delegates are methods, so a subclass (a test's faulty store) can still override one."""

    def __init__(self, url: str, engine: AsyncEngine | None = None, pool_size: int = DEFAULT_POOL_SIZE):
        self.database = Database(url, engine, pool_size)
        self.url, self.engine = url, self.database.engine
        self.config = ConfigRepository(self.database)
        self.transcript = TranscriptRepository(self.database)
        self.attempts = AttemptRepository(self.database)
        self.runs = RunRepository(self.database)
        self.budgets = BudgetRepository(self.database)
        self.capacity: Capacity = capacity_for(self.database, self.config)
        self.selection = SelectionRepository(self.database)
        self.catalogs = CatalogRepository(self.database)
        self.messages = MessageRepository(self.database)
        self.run_events = RunEventRepository(self.database)

    # --- configuration: store.configuration ----------------------------------------------------------------
    async def save_workspace(self, config: WorkspaceConfig) -> None:
        await self.config.save_workspace(config)

    async def get_workspace(self, name: str) -> WorkspaceConfig | None:
        return await self.config.get_workspace(name)

    async def list_workspaces(self) -> list[WorkspaceConfig]:
        return await self.config.list_workspaces()

    async def save_agent(self, agent: AgentProfile) -> None:
        await self.config.save_agent(agent)

    async def get_agent(self, name: str) -> AgentProfile | None:
        return await self.config.get_agent(name)

    async def list_agents(self) -> list[AgentProfile]:
        return await self.config.list_agents()

    async def key_for(self, provider: str) -> str:
        return await self.config.key_for(provider)

    async def keys_for(self, providers: list[str]) -> dict[str, set[str]]:
        return await self.config.keys_for(providers)

    async def configs(self, workspace: str, agent: str) -> tuple[WorkspaceConfig | None, AgentProfile | None]:
        return await self.config.configs(workspace, agent)

    async def route_inputs(
        self, workspace: str, agent: str, with_pins: bool
    ) -> tuple[WorkspaceConfig | None, AgentProfile | None, list[HealthRecord], Pins]:
        return await self.config.route_inputs(workspace, agent, with_pins)

    # --- transcript: store.transcript ----------------------------------------------------------------------
    async def append_transcript(
        self, run_id: str, seq: int, role: str, content: str, provider: str | None = None
    ) -> bool:
        return await self.transcript.append_transcript(run_id, seq, role, content, provider)

    async def read_transcript(self, run_id: str, upto_seq: int) -> list[TranscriptEntryRow]:
        return await self.transcript.read_transcript(run_id, upto_seq)

    async def open_turn(self, run_id: str, user_seq: int, text: str) -> list[TranscriptEntryRow]:
        return await self.transcript.open_turn(run_id, user_seq, text)

    # --- attempts and registered runs: store.attempts, store.runs ------------------------------------------
    async def record_attempt(self, values: dict[str, Any], supersede_success: bool = False) -> bool:
        return await self.attempts.record_attempt(values, supersede_success)

    async def list_attempts(self, run_id: str) -> list[AttemptRow]:
        return await self.attempts.list_attempts(run_id)

    async def usage_since(self, since: datetime, workspace: str | None = None) -> list[UsageGroup]:
        return await self.attempts.usage_since(since, workspace)

    async def unread_since(self, since: datetime, workspace: str | None = None) -> list[AttemptRow]:
        return await self.attempts.unread_since(since, workspace)

    async def register_run(self, workflow_run_id: str, run_id: str, workspace: str) -> None:
        await self.runs.register_run(workflow_run_id, run_id, workspace)

    async def registered_run(self, workflow_run_id: str) -> RunRow | None:
        return await self.runs.registered_run(workflow_run_id)

    # --- capacity (health, admission, a turn's close, restore): store.capacity -----------------------------
    async def admit_call(
        self,
        provider: str,
        run_id: str,
        is_retry: bool,
        requests_per_minute: float | None = None,
        policy: CapacityPolicy = DEFAULT_POLICY,
        *,
        key: str | None = None,
        reserved_at: datetime | None = None,
    ) -> Admission:
        return await self.capacity.admit_call(
            provider, run_id, is_retry, requests_per_minute, policy, key=key, reserved_at=reserved_at
        )

    async def admit_and_open(
        self,
        provider: str,
        request: CallRequest,
        opening: TurnOpening | None,
        policy: CapacityPolicy = DEFAULT_POLICY,
        *,
        key: str | None = None,
    ) -> tuple[Admission, list[TranscriptEntryRow] | None]:
        return await self.capacity.admit_and_open(provider, request, opening, policy, key=key)

    async def close_turn(self, close: TurnClose) -> Closed:
        return await self.capacity.close_turn(close)

    async def note_failure(
        self,
        provider: str,
        code: str,
        run_id: str,
        policy: CapacityPolicy = DEFAULT_POLICY,
        *,
        key: str | None = None,
        retry_after_s: float | None = None,
        limit_rpm: float | None = None,
        admitted_at: datetime | None = None,
    ) -> bool:
        return await self.capacity.note_failure(
            provider, code, run_id, policy, key=key, retry_after_s=retry_after_s, limit_rpm=limit_rpm,
            admitted_at=admitted_at,
        )  # fmt: skip

    async def note_rate(self, provider: str, limit_rpm: float, *, key: str | None = None) -> None:
        await self.capacity.note_rate(provider, limit_rpm, key=key)

    async def set_health(
        self,
        provider: str,
        model: str | None,
        state: HealthState,
        retry_at: datetime | None,
        code: str | None,
        run_id: str | None,
        *,
        key: str | None = None,
        observed_at: datetime | None = None,
    ) -> None:
        await self.capacity.set_health(provider, model, state, retry_at, code, run_id, key=key, observed_at=observed_at)

    async def restore_health(self, provider: str, model: str | None, run_id: str, *, key: str | None = None) -> None:
        await self.capacity.restore_health(provider, model, run_id, key=key)

    async def list_health(self, scope: WorkspaceConfig | list[str] | None = None) -> list[HealthRecord]:
        return await self.capacity.list_health(scope)

    async def health_rows(self) -> list[ProviderHealthRow]:
        return await self.capacity.health_rows()

    async def health_events(
        self, run_id: str | None = None, since: datetime | None = None, until: datetime | None = None
    ) -> list[HealthEventRow]:
        return await self.capacity.health_events(run_id, since, until)

    async def clear_health(self, provider: str, model: str | None = None) -> int:
        return await self.capacity.clear_health(provider, model)

    # --- durable selections, read side (writes: store.preferences): store.selections -----------------------
    async def user_pins(self, agent: str) -> Pins:
        return await self.selection.user_pins(agent)

    async def selections(self) -> list[SelectionRow]:
        return await self.selection.selections()

    async def selection_events(
        self, since: datetime | None = None, until: datetime | None = None, agent: str | None = None
    ) -> list[SelectionEventRow]:
        return await self.selection.selection_events(since, until, agent)

    # --- observed catalogs and run messages: store.catalogs, store.messages --------------------------------
    async def observe_catalog(self, provider: str, models: list[str], run_id: str | None) -> None:
        await self.catalogs.observe_catalog(provider, models, run_id)

    async def observed_catalogs(self, providers: list[str]) -> dict[str, list[str]]:
        return await self.catalogs.observed_catalogs(providers)

    async def add_run_message(self, key: str, run_id: str, kind: str, payload: dict[str, Any]) -> bool:
        return await self.messages.add_run_message(key, run_id, kind, payload)

    async def list_run_messages(self, run_id: str) -> list[RunMessageRow]:
        return await self.messages.list_run_messages(run_id)

    # --- the database itself: store.database ----------------------------------------------------------------
    async def close(self) -> None:
        await self.database.close()

    def db(self) -> AsyncSession:
        """A database session (unit of work); "session" elsewhere means an agent session."""
        return self.database.db()

    def reads(self) -> AsyncSession:
        """A session for lookups only (autocommit: each statement sees committed data, nothing to roll back)."""
        return self.database.reads()

    async def insert_ignore(self, table: type[SQLModel], values: dict[str, Any]) -> bool:
        """Insert unless the primary key exists; True when this call inserted the row."""
        return await self.database.insert_ignore(table, values)

    async def upsert(
        self, table: type[SQLModel], values: dict[str, Any], keys: list[str], where: ColumnElement[bool] | None = None
    ) -> bool:
        """Insert, or update the row the keys name (only where `where` holds of it); True when a row was written."""
        return await self.database.upsert(table, values, keys, where)
