"""Queries. Every write that an activity retry can repeat is idempotent by primary key."""

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

import asyncpg
from sqlalchemy import or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from sqlmodel import SQLModel

from routing.capacity import (
    CAPACITY_SIGNALS,
    DEFAULT_POLICY,
    Admission,
    CallFailed,
    CallRequest,
    CallSucceeded,
    CapacityPolicy,
    HealthEvidence,
    RateLimited,
    RateStated,
    admit,
    counts_toward_breaker,
    opens,
    step,
)
from routing.config import AgentProfile, WorkspaceConfig
from routing.decider import HealthState
from routing.identity import legacy_key, provider_key
from routing.route import HealthRecord
from routing.selection import Pins, SelectionKind, SelectionSource
from store import turn_path
from store.engine import DEFAULT_POOL_SIZE, make_engine
from store.rows import Closed, TurnClose, TurnOpening, as_utc, capacity_of, health_event, save_capacity, utcnow
from store.tables import (
    AgentProfileRow,
    AttemptRow,
    HealthEventRow,
    ProviderCatalogRow,
    ProviderHealthRow,
    RunMessageRow,
    RunRow,
    SelectionEventRow,
    SelectionRow,
    TranscriptEntryRow,
    WorkspaceRow,
)

CallAdmission = Admission  # the store's old name for routing.capacity's answer
# What a success restores: a record that is not healthy, or a healthy one counting failures in a row (the
# streak that opens the breaker counts failures with no success between them).
RESTORABLE = or_(
    ProviderHealthRow.state != HealthState.healthy.value,
    ProviderHealthRow.failure_streak > 0,  # type: ignore[operator]
)


class Store:
    def __init__(self, url: str, engine: AsyncEngine | None = None, pool_size: int = DEFAULT_POOL_SIZE):
        self.url = url
        self.engine = engine or make_engine(url, pool_size)
        self._sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        # Lookups that write nothing run without BEGIN/ROLLBACK: two round trips fewer on every run's path.
        self._reads = async_sessionmaker(self.engine.execution_options(isolation_level="AUTOCOMMIT"))
        self._asyncpg = self.engine.dialect.name == "postgresql"  # a run's per-turn statements: store.turn_path
        self._known_rows = turn_path.KnownRows()

    @contextlib.asynccontextmanager
    async def _driver(self) -> AsyncIterator[asyncpg.Connection]:
        """A pooled connection as asyncpg's own; one that broke is dropped from the pool, not handed out again."""
        async with self.engine.connect() as conn:
            raw = (await conn.get_raw_connection()).driver_connection
            try:
                yield raw
            finally:
                # Broken, or still inside a transaction (a cancellation that interrupted its rollback too): such a
                # connection would hold its row locks in the pool. SQLAlchemy's reset does not know of asyncpg's
                # own transactions, so it is closed here, even while this task is being cancelled.
                if raw.is_closed() or raw.is_in_transaction():
                    await asyncio.shield(conn.invalidate())

    async def close(self) -> None:
        await self.engine.dispose()

    def db(self) -> AsyncSession:
        """A database session (unit of work); "session" elsewhere means an agent session."""
        return self._sessions()

    def reads(self) -> AsyncSession:
        """A session for lookups only (autocommit: each statement sees committed data, nothing to roll back)."""
        return self._reads()

    def _insert(self, table: type[SQLModel]):
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite
        return dialect.insert(table)  # type: ignore[arg-type]

    async def insert_ignore(self, table: type[SQLModel], values: dict[str, Any]) -> bool:
        """Insert unless the primary key exists; True when this call inserted the row."""
        stmt = self._insert(table).values(**values).on_conflict_do_nothing()
        async with self.db() as s:
            result = await s.execute(stmt)
            await s.commit()
            return bool(result.rowcount)

    async def upsert(self, table: type[SQLModel], values: dict[str, Any], keys: list[str], where: Any = None) -> bool:
        """Insert, or update the row the keys name (only where `where` holds of it); True when a row was written."""
        stmt = self._insert(table).values(**values)
        stmt = stmt.on_conflict_do_update(
            index_elements=keys, set_={k: v for k, v in values.items() if k not in keys}, where=where
        )
        async with self.db() as s:
            result = await s.execute(stmt)
            await s.commit()
            return bool(result.rowcount)

    # --- configuration -------------------------------------------------------------------------
    async def save_workspace(self, config: WorkspaceConfig) -> None:
        await self.upsert(
            WorkspaceRow,
            {"name": config.name, "config": config.model_dump(mode="json"), "updated_at": utcnow()},
            ["name"],
        )

    async def get_workspace(self, name: str) -> WorkspaceConfig | None:
        async with self.reads() as s:
            row = await s.get(WorkspaceRow, name)
        return WorkspaceConfig.model_validate(row.config) if row else None

    async def list_workspaces(self) -> list[WorkspaceConfig]:
        async with self.reads() as s:
            rows = (await s.execute(select(WorkspaceRow).order_by(WorkspaceRow.name))).scalars().all()
        return [WorkspaceConfig.model_validate(r.config) for r in rows]

    async def save_agent(self, agent: AgentProfile) -> None:
        values = agent.model_dump(mode="json") | {"updated_at": utcnow()}
        await self.upsert(AgentProfileRow, values, ["name"])

    async def get_agent(self, name: str) -> AgentProfile | None:
        async with self.reads() as s:
            row = await s.get(AgentProfileRow, name)
        return AgentProfile.model_validate(row.model_dump(exclude={"updated_at"})) if row else None

    async def list_agents(self) -> list[AgentProfile]:
        async with self.reads() as s:
            rows = (await s.execute(select(AgentProfileRow).order_by(AgentProfileRow.name))).scalars().all()
        return [AgentProfile.model_validate(r.model_dump(exclude={"updated_at"})) for r in rows]

    # --- transcript: append-only, one owner per run ---------------------------------------------
    async def append_transcript(
        self, run_id: str, seq: int, role: str, content: str, provider: str | None = None
    ) -> bool:
        return await self.insert_ignore(
            TranscriptEntryRow,
            {
                "run_id": run_id,
                "seq": seq,
                "role": role,
                "content": content,
                "provider": provider,
                "created_at": utcnow(),
            },
        )

    async def read_transcript(self, run_id: str, upto_seq: int) -> list[TranscriptEntryRow]:
        async with self.db() as s:
            rows = (
                (
                    await s.execute(
                        select(TranscriptEntryRow)
                        .where(TranscriptEntryRow.run_id == run_id, TranscriptEntryRow.seq <= upto_seq)
                        .order_by(TranscriptEntryRow.seq)
                    )
                )
                .scalars()
                .all()
            )
        return list(rows)

    async def open_turn(self, run_id: str, user_seq: int, text: str) -> list[TranscriptEntryRow]:
        """One transaction: append the turn's user message (idempotent) and read the run's snapshot up to it."""
        async with self.db() as s:
            rows = await self._open_turn(s, TurnOpening(run_id, user_seq, text))
            await s.commit()
        return rows

    async def _open_turn(self, s: AsyncSession, turn: "TurnOpening") -> list[TranscriptEntryRow]:
        await s.execute(
            self._insert(TranscriptEntryRow)
            .values(run_id=turn.run_id, seq=turn.user_seq, role="user", content=turn.text, provider=None,
                    created_at=utcnow())
            .on_conflict_do_nothing()
        )  # fmt: skip
        snapshot = (
            select(TranscriptEntryRow)
            .where(TranscriptEntryRow.run_id == turn.run_id, TranscriptEntryRow.seq <= turn.user_seq)
            .order_by(TranscriptEntryRow.seq)
        )
        return list((await s.execute(snapshot)).scalars().all())

    async def close_turn(self, close: TurnClose) -> Closed:
        """One transaction: record the succeeded attempt, append the answer, and restore the provider's health
        (provider-wide and for the model that ran). Idempotent on (run, seq) for the answer and (run, attempt seq)
        for the attempt: a retry after a lost commit acknowledgement inserts nothing and restores nothing again.
        The attempt row is the fence: when (run, attempt seq) is already recorded (the workflow booked the attempt
        as lost with its worker, which then came back), the late answer is not written either. A late answer that
        got in first stays the turn's answer: `Closed.answer` is the text the transcript holds for the turn, which
        the turn returns, so the run shows what its next turn is sent.
        The health restored is the attempt's provider identity
        (`close.attempt["provider_key"]`, else the one the provider's name resolves to)."""
        now = utcnow()
        key = close.attempt.get("provider_key") or await self.key_for(close.provider)
        close = dataclasses.replace(close, attempt=close.attempt | {"provider_key": key})
        if self._asyncpg:
            async with self._driver() as conn:
                return await turn_path.close_turn(conn, close, now)
        run_id, seq, answer, provider, attempt = close.run_id, close.seq, close.answer, close.provider, close.attempt
        effective_model = close.effective_model
        async with self.db() as s:
            inserted = (await s.execute(self._insert(AttemptRow).values(**attempt).on_conflict_do_nothing())).rowcount
            answered = 0  # this close's answer went in: no need to read which answer the turn holds
            if inserted:
                answered = (
                    await s.execute(
                        self._insert(TranscriptEntryRow)
                        .values(
                            run_id=run_id, seq=seq, role="assistant", content=answer, provider=provider, created_at=now
                        )
                        .on_conflict_do_nothing()
                    )
                ).rowcount
                self._restore_rows(
                    (
                        await s.execute(
                            select(ProviderHealthRow)
                            .where(
                                ProviderHealthRow.provider_key == key,
                                ProviderHealthRow.model.in_(["", effective_model or ""]),  # type: ignore[attr-defined]
                                RESTORABLE,
                            )
                            .with_for_update()  # read, step and write back: no other writer in between
                        )
                    )
                    .scalars()
                    .all(),
                    s,
                    run_id,
                    now,
                )
            stored = None
            if not answered:  # an answer that got in first (a lost attempt's, or this close's before a lost ack)
                stored = await s.scalar(
                    select(TranscriptEntryRow.content).where(
                        TranscriptEntryRow.run_id == run_id,  # type: ignore[arg-type]
                        TranscriptEntryRow.seq == seq,  # type: ignore[arg-type]
                    )
                )
            await s.commit()
        return Closed(inserted=bool(inserted), answer=answer if stored is None else stored)

    # --- office runs --------------------------------------------------------------------------------
    async def register_run(self, workflow_run_id: str, run_id: str, workspace: str) -> None:
        """Idempotent: a re-resolved route registers nothing new."""
        values = {"workflow_run_id": workflow_run_id, "run_id": run_id, "workspace": workspace}
        await self.insert_ignore(RunRow, values | {"registered_at": utcnow()})

    async def registered_run(self, workflow_run_id: str) -> RunRow | None:
        async with self.reads() as s:
            return await s.get(RunRow, workflow_run_id)

    # --- attempts ---------------------------------------------------------------------------------
    async def record_attempt(self, values: dict[str, Any], supersede_success: bool = False) -> bool:
        """Insert-if-absent on (run, seq); True when this call wrote the row. `supersede_success`: the workflow
        books an attempt whose worker it lost, and that worker's late close may have recorded it as succeeded
        first: the booking replaces such a row (the run never took that answer as the attempt's result)."""
        if not supersede_success:
            return await self.insert_ignore(AttemptRow, values)
        return await self.upsert(AttemptRow, values, ["run_id", "seq"], where=AttemptRow.outcome == "succeeded")

    async def list_attempts(self, run_id: str) -> list[AttemptRow]:
        async with self.db() as s:
            rows = (
                (await s.execute(select(AttemptRow).where(AttemptRow.run_id == run_id).order_by(AttemptRow.seq)))
                .scalars()
                .all()
            )
        return list(rows)

    # --- provider health: evidence, never preference --------------------------------------------
    # Rows are keyed by the provider's identity (routing.identity.provider_key), never by its name alone. The
    # activities pass the key they computed from the candidate's profile; a caller that passes only a name (the
    # CLI, tests, scripts) gets the identity that name has in the stored workspaces (`key_for`).
    async def key_for(self, provider: str) -> str:
        """The identity a provider name stands for in the stored workspaces. A name no workspace uses gets a
        legacy key of its own; a name that workspaces give to different providers is ambiguous: pass the key."""
        keys = await self.keys_for([provider])
        found = keys.get(provider, set())
        if len(found) > 1:
            raise ValueError(
                f"provider name {provider!r} stands for {len(found)} different providers across workspaces "
                f"(keys {', '.join(sorted(found))}); name it by its key"
            )
        return next(iter(found)) if found else legacy_key(provider)

    async def keys_for(self, providers: list[str]) -> dict[str, set[str]]:
        """Every identity each of these provider names has in the stored workspaces."""
        found: dict[str, set[str]] = {}
        for workspace in await self.list_workspaces():
            for name, profile in workspace.providers.items():
                if name in providers:
                    found.setdefault(name, set()).add(provider_key(profile))
        return found

    async def _lock_health(
        self, s: AsyncSession, key: str, provider: str, model: str = "", create: bool = False
    ) -> ProviderHealthRow | None:
        """The provider scope's health row, locked until the transaction ends: SELECT … FOR UPDATE on
        PostgreSQL; on SQLite a first write takes its single writer lock before the read (the driver opens a
        transaction only at a write, so a read first could decide on a row another writer is changing).
        With `create`, a missing row is inserted race-free (as healthy) and locked."""
        where = (ProviderHealthRow.provider_key == key, ProviderHealthRow.model == model)
        if self.engine.dialect.name == "sqlite":
            await s.execute(
                update(ProviderHealthRow)
                .where(*where)
                .values(provider_key=key)
                .execution_options(synchronize_session=False)
            )
        locked = select(ProviderHealthRow).where(*where).with_for_update()
        row = (await s.execute(locked)).scalars().first()
        if row is None and create:
            await s.execute(
                self._insert(ProviderHealthRow)
                .values(
                    provider_key=key,
                    provider=provider,
                    model=model,
                    state=HealthState.healthy.value,
                    updated_at=utcnow(),
                )
                .on_conflict_do_nothing()
            )
            row = (await s.execute(locked)).scalars().one()
        return row

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
        """A run's decision about the provider, as evidence. It never closes an open breaker: only a success
        (restore_health) or the cooling time does. `observed_at`: when the failure it is about was seen
        (evidence older than the provider's last answer is stale)."""
        now = utcnow()
        key = key or await self.key_for(provider)
        async with self.db() as s:
            row = await self._lock_health(s, key, provider, model or "", create=True)
            assert row is not None
            before = capacity_of(row)
            after = step(before, now, HealthEvidence(state, retry_at, code, run_id, observed_at))
            if after != before:
                save_capacity(row, after)
                row.provider = provider
                s.add(row)
                s.add(health_event(row, now, code))
            await s.commit()

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
        """Called by the call that failed, at once (no workflow round trip): counts the failure in the shared
        window and opens the breaker when the window says so; a failed half-open probe re-opens it a step
        longer. A rate or quota limit instead teaches the provider key's rate and sets its Retry-After floor.
        Returns True when this failure opened the breaker."""
        if code in CAPACITY_SIGNALS:
            await self._apply(provider, RateLimited(run_id, retry_after_s, limit_rpm, admitted_at), key, policy)
            return False
        if not counts_toward_breaker(code):
            return False
        now, event = utcnow(), CallFailed(code=code, run_id=run_id)
        key = key or await self.key_for(provider)
        async with self.db() as s:
            row = await self._lock_health(s, key, provider)
            if row is None:
                await s.commit()
                return False
            before = capacity_of(row)
            opened = opens(before, now, event, policy)
            save_capacity(row, step(before, now, event, policy))
            s.add(row)
            if opened:
                s.add(health_event(row, now, code))
            await s.commit()
        return opened

    async def note_rate(self, provider: str, limit_rpm: float, *, key: str | None = None) -> None:
        """An answer's rate-limit headers stated the provider's request limit: pace to it from now on."""
        await self._apply(provider, RateStated(limit_rpm), key)

    async def _apply(
        self, provider: str, event: RateLimited | RateStated, key: str | None, policy: CapacityPolicy = DEFAULT_POLICY
    ) -> None:
        now = utcnow()
        key = key or await self.key_for(provider)
        async with self.db() as s:
            row = await self._lock_health(s, key, provider, create=True)
            assert row is not None
            before = capacity_of(row)
            after = step(before, now, event, policy)
            if after != before:
                save_capacity(row, after)
                s.add(row)
                if after.health != before.health or after.retry_at != before.retry_at:
                    s.add(health_event(row, now, after.last_code))
            await s.commit()

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
        """Before every provider call, on every worker: retry budget, breaker and probe lease, then the wait
        before calling: the provider key's Retry-After floor and, with a quota, the next pacing slot. With
        `reserved_at`, a caller whose slot (given then) has come asks whether it still stands."""
        request = CallRequest(run_id, is_retry, requests_per_minute, reserved_at)
        admission, _ = await self.admit_and_open(provider, request, None, policy, key=key)
        return admission

    async def admit_and_open(
        self,
        provider: str,
        request: CallRequest,
        opening: "TurnOpening | None",
        policy: CapacityPolicy = DEFAULT_POLICY,
        *,
        key: str | None = None,
    ) -> tuple[Admission, list[TranscriptEntryRow] | None]:
        """`admit_call`, and when the call may go at once, the turn's `open_turn` in the same transaction (one
        round trip for a happy turn's start). The snapshot is None when the call must wait or was refused."""
        key = key or await self.key_for(provider)
        if self._asyncpg:  # this process's admissions to a key take turns before taking a connection
            async with self._known_rows.lock(key), self._driver() as conn:
                known, now = self._known_rows, utcnow()
                return await turn_path.admit_and_open(conn, known, key, provider, request, opening, policy, now)
        now = utcnow()
        async with self.db() as s:
            row = await self._lock_health(s, key, provider, create=True)
            assert row is not None
            before = capacity_of(row)
            after, admission = admit(before, now, request, policy)
            if after != before:
                save_capacity(row, after)
                s.add(row)
            snapshot = None
            if opening is not None and admission.allowed and admission.wait_s <= 0:
                snapshot = await self._open_turn(s, opening)
            await s.commit()
        return admission, snapshot

    async def restore_health(self, provider: str, model: str | None, run_id: str, *, key: str | None = None) -> None:
        """A success clears the provider-wide record and the record for the model that ran."""
        key = key or await self.key_for(provider)
        async with self.db() as s:
            rows = (
                (
                    await s.execute(
                        select(ProviderHealthRow)
                        .where(
                            ProviderHealthRow.provider_key == key,
                            ProviderHealthRow.model.in_(["", model or ""]),  # type: ignore[attr-defined]
                            RESTORABLE,
                        )
                        .with_for_update()  # read, step and write back: no other writer in between
                    )
                )
                .scalars()
                .all()
            )
            self._restore_rows(rows, s, run_id, utcnow())
            await s.commit()

    @staticmethod
    def _restore_rows(rows: Any, s: AsyncSession, run_id: str, now: datetime) -> None:
        for row in rows:
            was = row.state
            save_capacity(row, step(capacity_of(row), now, CallSucceeded(run_id=run_id)))
            s.add(row)
            if was != row.state:  # a streak that only starts over is no health change
                s.add(health_event(row, now, code=None))

    async def list_health(self, scope: WorkspaceConfig | list[str] | None = None) -> list[HealthRecord]:
        """Health records; with a workspace, those of its providers' identities; with provider names, those of
        every identity the names have in the stored workspaces (route resolution matches records to its own
        candidates by key, so another workspace's provider of the same name never blocks them)."""
        query = select(ProviderHealthRow)
        if isinstance(scope, WorkspaceConfig):
            keys = {provider_key(p) for p in scope.providers.values()}
            query = query.where(ProviderHealthRow.provider_key.in_(keys))  # type: ignore[attr-defined]
        elif scope is not None:
            found = await self.keys_for(scope)
            keys = set().union(*found.values()) | {legacy_key(name) for name in scope}
            query = query.where(ProviderHealthRow.provider_key.in_(keys))  # type: ignore[attr-defined]
        async with self.db() as s:
            return await self._health(s, query)

    @staticmethod
    async def _health(s: AsyncSession, query: Any) -> list[HealthRecord]:
        rows = (await s.execute(query)).scalars().all()
        return [
            HealthRecord(
                provider=r.provider,
                provider_key=r.provider_key,
                model=r.model or None,
                state=HealthState(r.state),
                retry_at=as_utc(r.retry_at),
                last_code=r.last_code,
            )
            for r in rows
        ]

    async def configs(self, workspace: str, agent: str) -> tuple[WorkspaceConfig | None, AgentProfile | None]:
        """A workspace and an agent profile, in one round trip."""
        if self._asyncpg:
            async with self._driver() as conn:
                config, profile, _ = await turn_path.configs(conn, workspace, agent)
            return config, profile
        async with self.reads() as s:
            return await self._configs(s, workspace, agent)

    @staticmethod
    async def _configs(
        s: AsyncSession, workspace: str, agent: str
    ) -> tuple[WorkspaceConfig | None, AgentProfile | None]:
        ws_row, agent_row = await s.get(WorkspaceRow, workspace), await s.get(AgentProfileRow, agent)
        config = WorkspaceConfig.model_validate(ws_row.config) if ws_row else None
        profile = AgentProfile.model_validate(agent_row.model_dump(exclude={"updated_at"})) if agent_row else None
        return config, profile

    async def route_inputs(
        self, workspace: str, agent: str, with_pins: bool
    ) -> tuple[WorkspaceConfig | None, AgentProfile | None, list[HealthRecord], Pins]:
        """What route resolution reads, in one round trip: the workspace, the agent profile, the health records
        of the workspace's own provider identities and (`with_pins`) the user's pins."""
        if self._asyncpg:
            async with self._driver() as conn:
                config, profile, pins = await turn_path.configs(conn, workspace, agent, with_pins)
                keys = {provider_key(p) for p in config.providers.values()} if config else set()
                return config, profile, await turn_path.health(conn, keys) if keys else [], pins
        async with self.reads() as s:
            config, profile = await self._configs(s, workspace, agent)
            health: list[HealthRecord] = []
            if config is not None:
                keys = {provider_key(p) for p in config.providers.values()}
                where = ProviderHealthRow.provider_key.in_(keys)  # type: ignore[attr-defined]
                health = await self._health(s, select(ProviderHealthRow).where(where))
            pins = await self._pins(s, agent) if with_pins else Pins()
        return config, profile, health, pins

    async def clear_health(self, provider: str, model: str | None = None) -> int:
        """An operator's word that a provider (or one model on it) is fixed; returns rows cleared. `provider` is
        a provider key (as `office health list --json` shows it) or a name: a name clears every identity shown
        under it."""
        async with self.db() as s:
            query = select(ProviderHealthRow).where(
                (ProviderHealthRow.provider == provider) | (ProviderHealthRow.provider_key == provider)
            )
            if model is not None:
                query = query.where(ProviderHealthRow.model == model)
            rows = (await s.execute(query)).scalars().all()
            for row in rows:
                await s.delete(row)
            await s.commit()
            return len(rows)

    async def health_rows(self) -> list[ProviderHealthRow]:
        async with self.db() as s:
            return list(
                (
                    await s.execute(
                        select(ProviderHealthRow).order_by(
                            ProviderHealthRow.provider, ProviderHealthRow.provider_key, ProviderHealthRow.model
                        )
                    )
                )
                .scalars()
                .all()
            )

    async def health_events(
        self, run_id: str | None = None, since: datetime | None = None, until: datetime | None = None
    ) -> list[HealthEventRow]:
        return await self._events(HealthEventRow, since, until, run_id=run_id)

    async def _events(self, table: Any, since: datetime | None, until: datetime | None, **equal: Any) -> list:
        """Rows of an append-only event table in time order, within [since, until], matching `equal`."""
        query = select(table).order_by(table.at, table.id)
        for column, value in equal.items():
            if value is not None:
                query = query.where(getattr(table, column) == value)
        if since is not None:
            query = query.where(table.at >= since)
        if until is not None:
            query = query.where(table.at <= until)
        async with self.db() as s:
            return list((await s.execute(query)).scalars().all())

    # --- durable selections: read-only here; writes live in store.preferences ----------------------
    async def user_pins(self, agent: str) -> Pins:
        """Only source=user rows count: anything else is not a preference, whatever it says."""
        async with self.reads() as s:
            return await self._pins(s, agent)

    @staticmethod
    async def _pins(s: AsyncSession, agent: str) -> Pins:
        user_rows = select(SelectionRow).where(
            SelectionRow.agent == agent, SelectionRow.source == SelectionSource.user.value
        )
        rows = (await s.execute(user_rows)).scalars().all()
        pins = Pins()
        for row in rows:
            if row.kind == SelectionKind.provider.value:
                pins.providers = list(row.value)
            elif row.kind == SelectionKind.model.value and row.value:
                pins.model = row.value[0]
        return pins

    async def selections(self) -> list[SelectionRow]:
        async with self.db() as s:
            return list(
                (await s.execute(select(SelectionRow).order_by(SelectionRow.agent, SelectionRow.kind))).scalars().all()
            )

    async def selection_events(
        self, since: datetime | None = None, until: datetime | None = None, agent: str | None = None
    ) -> list[SelectionEventRow]:
        return await self._events(SelectionEventRow, since, until, agent=agent)

    # --- observed catalogs (evidence for reporting, never an input to the start-model policy) -------
    async def observe_catalog(self, provider: str, models: list[str], run_id: str | None) -> None:
        await self.upsert(
            ProviderCatalogRow,
            {"provider": provider, "models": models, "observed_at": utcnow(), "run_id": run_id},
            ["provider"],
        )

    async def observed_catalogs(self, providers: list[str]) -> dict[str, list[str]]:
        async with self.db() as s:
            rows = (
                (await s.execute(select(ProviderCatalogRow).where(ProviderCatalogRow.provider.in_(providers))))
                .scalars()
                .all()
            )  # type: ignore[attr-defined]
        return {r.provider: list(r.models) for r in rows}

    # --- run messages ---------------------------------------------------------------------------
    async def add_run_message(self, key: str, run_id: str, kind: str, payload: dict[str, Any]) -> bool:
        return await self.insert_ignore(
            RunMessageRow,
            {"idempotency_key": key, "run_id": run_id, "kind": kind, "payload": payload, "created_at": utcnow()},
        )

    async def list_run_messages(self, run_id: str) -> list[RunMessageRow]:
        async with self.db() as s:
            rows = (
                (
                    await s.execute(
                        select(RunMessageRow).where(RunMessageRow.run_id == run_id).order_by(RunMessageRow.created_at)
                    )
                )
                .scalars()
                .all()
            )
        return list(rows)
