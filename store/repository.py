"""Queries. Every write that an activity retry can repeat is idempotent by primary key."""

from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import BaseModel
from sqlalchemy import or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from sqlmodel import SQLModel

from routing.backoff import ladder_step
from routing.breaker import BreakerPolicy, counts_toward_breaker, retry_allowed, should_open
from routing.config import AgentProfile, WorkspaceConfig
from routing.decider import HealthState
from routing.route import HealthRecord
from routing.selection import Pins, SelectionKind, SelectionSource
from store.engine import make_engine
from store.tables import (
    AgentProfileRow,
    AttemptRow,
    HealthEventRow,
    ProviderCatalogRow,
    ProviderHealthRow,
    RunMessageRow,
    SelectionEventRow,
    SelectionRow,
    TranscriptEntryRow,
    WorkspaceRow,
)


class CallAdmission(BaseModel):
    """The shared breaker's and budget's answer before a provider call."""

    allowed: bool
    wait_s: float = 0.0  # wait this long first (a Retry-After floor for this provider key)
    slot_at: datetime | None = None  # when this call may go (with a quota: its pacing slot)
    probe: bool = False  # this call is the one half-open probe
    rule: str | None = None  # why it was refused
    retry_after_s: float | None = None


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(value: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes; everything here is UTC."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=UTC)


class Store:
    def __init__(self, url: str, engine: AsyncEngine | None = None):
        self.url = url
        self.engine = engine or make_engine(url)
        self._sessions = async_sessionmaker(self.engine, expire_on_commit=False)

    async def close(self) -> None:
        await self.engine.dispose()

    def session(self) -> AsyncSession:
        return self._sessions()

    def _insert(self, table: type[SQLModel]):
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite
        return dialect.insert(table)  # type: ignore[arg-type]

    async def insert_ignore(self, table: type[SQLModel], values: dict[str, Any]) -> bool:
        """Insert unless the primary key exists; True when this call inserted the row."""
        stmt = self._insert(table).values(**values).on_conflict_do_nothing()
        async with self.session() as s:
            result = await s.execute(stmt)
            await s.commit()
            return bool(result.rowcount)

    async def upsert(self, table: type[SQLModel], values: dict[str, Any], keys: list[str]) -> None:
        stmt = self._insert(table).values(**values)
        stmt = stmt.on_conflict_do_update(index_elements=keys, set_={k: v for k, v in values.items() if k not in keys})
        async with self.session() as s:
            await s.execute(stmt)
            await s.commit()

    # --- configuration -------------------------------------------------------------------------
    async def save_workspace(self, config: WorkspaceConfig) -> None:
        await self.upsert(
            WorkspaceRow,
            {"name": config.name, "config": config.model_dump(mode="json"), "updated_at": utcnow()},
            ["name"],
        )

    async def get_workspace(self, name: str) -> WorkspaceConfig | None:
        async with self.session() as s:
            row = await s.get(WorkspaceRow, name)
        return WorkspaceConfig.model_validate(row.config) if row else None

    async def list_workspaces(self) -> list[WorkspaceConfig]:
        async with self.session() as s:
            rows = (await s.execute(select(WorkspaceRow).order_by(WorkspaceRow.name))).scalars().all()
        return [WorkspaceConfig.model_validate(r.config) for r in rows]

    async def save_agent(self, agent: AgentProfile) -> None:
        values = agent.model_dump(mode="json") | {"updated_at": utcnow()}
        await self.upsert(AgentProfileRow, values, ["name"])

    async def get_agent(self, name: str) -> AgentProfile | None:
        async with self.session() as s:
            row = await s.get(AgentProfileRow, name)
        return AgentProfile.model_validate(row.model_dump(exclude={"updated_at"})) if row else None

    async def list_agents(self) -> list[AgentProfile]:
        async with self.session() as s:
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
        async with self.session() as s:
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
        async with self.session() as s:
            await s.execute(
                self._insert(TranscriptEntryRow)
                .values(run_id=run_id, seq=user_seq, role="user", content=text, provider=None, created_at=utcnow())
                .on_conflict_do_nothing()
            )
            rows = (
                (
                    await s.execute(
                        select(TranscriptEntryRow)
                        .where(TranscriptEntryRow.run_id == run_id, TranscriptEntryRow.seq <= user_seq)
                        .order_by(TranscriptEntryRow.seq)
                    )
                )
                .scalars()
                .all()
            )
            await s.commit()
        return list(rows)

    async def close_turn(
        self, run_id: str, seq: int, answer: str, provider: str, attempt: dict[str, Any], effective_model: str | None
    ) -> bool:
        """One transaction: append the answer, record the succeeded attempt, and restore the provider's health
        (provider-wide and for the model that ran). Idempotent; True when the attempt row is new."""
        now = utcnow()
        async with self.session() as s:
            await s.execute(
                self._insert(TranscriptEntryRow)
                .values(run_id=run_id, seq=seq, role="assistant", content=answer, provider=provider, created_at=now)
                .on_conflict_do_nothing()
            )
            inserted = (await s.execute(self._insert(AttemptRow).values(**attempt).on_conflict_do_nothing())).rowcount
            if inserted:
                self._restore_rows(
                    (
                        await s.execute(
                            select(ProviderHealthRow).where(
                                ProviderHealthRow.provider == provider,
                                ProviderHealthRow.model.in_(["", effective_model or ""]),  # type: ignore[attr-defined]
                                ProviderHealthRow.state != HealthState.healthy.value,
                            )
                        )
                    )
                    .scalars()
                    .all(),
                    s,
                    run_id,
                    now,
                )
            await s.commit()
        return bool(inserted)

    # --- attempts ---------------------------------------------------------------------------------
    async def record_attempt(self, values: dict[str, Any]) -> bool:
        return await self.insert_ignore(AttemptRow, values)

    async def list_attempts(self, run_id: str) -> list[AttemptRow]:
        async with self.session() as s:
            rows = (
                (await s.execute(select(AttemptRow).where(AttemptRow.run_id == run_id).order_by(AttemptRow.seq)))
                .scalars()
                .all()
            )
        return list(rows)

    # --- provider health: evidence, never preference --------------------------------------------
    async def set_health(
        self,
        provider: str,
        model: str | None,
        state: HealthState,
        retry_at: datetime | None,
        code: str | None,
        run_id: str | None,
    ) -> None:
        """A run's decision about the provider, as evidence. It never closes an open breaker: only a success
        (restore_health) or the cooling time does."""
        now = utcnow()
        async with self.session() as s:
            existing = await s.get(ProviderHealthRow, (provider, model or ""))
        step = 0
        if existing is not None:
            open_until = as_utc(existing.retry_at)
            if (
                existing.state == HealthState.degraded.value
                and state is HealthState.short_retry
                and (open_until is None or open_until > now)
            ):
                return
            if state is not HealthState.healthy and existing.state == state.value:
                step = existing.backoff_step + 1
        await self.upsert(
            ProviderHealthRow,
            {
                "provider": provider,
                "model": model or "",
                "state": state.value,
                "retry_at": retry_at,
                "backoff_step": step,
                "last_code": code,
                "last_run_id": run_id,
                "updated_at": now,
            },
            ["provider", "model"],
        )
        await self._log_health(provider, model, state, retry_at, code, run_id)

    async def note_failure(
        self, provider: str, code: str, run_id: str, policy: BreakerPolicy = BreakerPolicy()
    ) -> bool:
        """Called by the call that failed, at once (no workflow round trip): counts the failure in the shared
        window and opens the breaker when the window says so; a failed half-open probe re-opens it a step
        longer. Returns True when this failure opened the breaker."""
        if not counts_toward_breaker(code):
            return False
        now = utcnow()
        async with self.session() as s:
            row = (
                (
                    await s.execute(
                        select(ProviderHealthRow)
                        .where(ProviderHealthRow.provider == provider, ProviderHealthRow.model == "")
                        .with_for_update()
                    )
                )
                .scalars()
                .first()
            )
            if row is None:
                return False
            row.window_failures += 1
            row.failure_streak += 1
            probing = row.probe_holder is not None
            opened = probing or (
                row.state != HealthState.degraded.value
                and should_open(row.window_requests, row.window_failures, row.failure_streak, policy)
            )
            if opened:
                row.backoff_step = row.backoff_step + 1 if probing else 0
                row.state, row.retry_at = (
                    HealthState.degraded.value,
                    now + timedelta(seconds=ladder_step(row.backoff_step)),
                )
                row.probe_holder = row.probe_expires = None
                row.last_code, row.last_run_id, row.updated_at = code, run_id, now
            s.add(row)
            await s.commit()
        if opened:
            await self._log_health(provider, None, HealthState.degraded, row.retry_at, code, run_id)
        return opened

    async def admit_call(
        self,
        provider: str,
        run_id: str,
        is_retry: bool,
        requests_per_minute: float | None = None,
        policy: BreakerPolicy = BreakerPolicy(),
    ) -> CallAdmission:
        """Before every provider call, on every worker: retry budget, breaker and probe lease, then the wait
        before calling: the provider key's Retry-After floor and, with a quota, the next pacing slot."""
        now = utcnow()
        locked = (
            select(ProviderHealthRow)
            .where(ProviderHealthRow.provider == provider, ProviderHealthRow.model == "")
            .with_for_update()
        )
        async with self.session() as s:
            row = (await s.execute(locked)).scalars().first()
            if row is None:  # first call ever: create the row race-free, then lock it
                await self.insert_ignore(
                    ProviderHealthRow,
                    {"provider": provider, "model": "", "updated_at": now, "state": HealthState.healthy.value},
                )
                row = (await s.execute(locked)).scalars().one()
            window_start = as_utc(row.window_start)
            if window_start is None or (now - window_start).total_seconds() > policy.budget_window_s:
                row.window_start, row.window_requests, row.window_retries, row.window_failures = now, 0, 0, 0
                window_start = now
            if is_retry and not retry_allowed(row.window_requests, row.window_retries, policy):
                await s.commit()
                left = policy.budget_window_s - (now - window_start).total_seconds()
                return CallAdmission(allowed=False, rule="budget.retries_exhausted", retry_after_s=max(1.0, left))
            retry_at = as_utc(row.retry_at)
            admission = CallAdmission(allowed=True)
            if row.state == HealthState.degraded.value:
                if retry_at is not None and retry_at > now:
                    await s.commit()
                    return CallAdmission(
                        allowed=False, rule="breaker.open", retry_after_s=(retry_at - now).total_seconds()
                    )
                claimed = await s.execute(
                    update(ProviderHealthRow)
                    .where(
                        ProviderHealthRow.provider == provider,
                        ProviderHealthRow.model == "",
                        or_(
                            ProviderHealthRow.probe_holder.is_(None),  # type: ignore[union-attr]
                            ProviderHealthRow.probe_expires < now,
                            ProviderHealthRow.probe_holder == run_id,
                        ),
                    )
                    .values(probe_holder=run_id, probe_expires=now + timedelta(seconds=policy.probe_lease_s))
                    .execution_options(synchronize_session=False)
                )  # refreshed below; SQLite loads naive datetimes
                if not claimed.rowcount:
                    await s.commit()
                    expires = as_utc(row.probe_expires) or now
                    return CallAdmission(
                        allowed=False,
                        rule="breaker.probe_in_flight",
                        retry_after_s=max(1.0, (expires - now).total_seconds()),
                    )
                await s.refresh(row)
                admission = CallAdmission(allowed=True, probe=True)
            slot = now
            if row.state == HealthState.short_retry.value and retry_at is not None and retry_at > now:
                slot = retry_at  # Retry-After is a floor for every caller of this provider key
            if requests_per_minute:  # a shared pacer: calls are spaced by the quota, across all workers
                slot = max(slot, as_utc(row.next_slot_at) or now)
                row.next_slot_at = slot + timedelta(seconds=policy.pacing_margin * 60.0 / requests_per_minute)
            wait = (slot - now).total_seconds()
            if wait > policy.max_wait_s:
                await s.rollback()
                return CallAdmission(allowed=False, rule="pacing.backlog", retry_after_s=wait)
            admission.wait_s, admission.slot_at = wait, slot
            row.window_requests += 1
            row.window_retries += 1 if is_retry else 0
            s.add(row)
            await s.commit()
            return admission

    async def _log_health(
        self,
        provider: str,
        model: str | None,
        state: HealthState,
        retry_at: datetime | None,
        code: str | None,
        run_id: str | None,
    ) -> None:
        async with self.session() as s:
            s.add(
                HealthEventRow(
                    provider=provider,
                    model=model or "",
                    state=state.value,
                    retry_at=retry_at,
                    code=code,
                    run_id=run_id,
                    at=utcnow(),
                )
            )
            await s.commit()

    async def restore_health(self, provider: str, model: str | None, run_id: str) -> None:
        """A success clears the provider-wide record and the record for the model that ran."""
        async with self.session() as s:
            rows = (
                (
                    await s.execute(
                        select(ProviderHealthRow).where(
                            ProviderHealthRow.provider == provider,
                            ProviderHealthRow.model.in_(["", model or ""]),  # type: ignore[attr-defined]
                            ProviderHealthRow.state != HealthState.healthy.value,
                        )
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
            row.state, row.retry_at, row.backoff_step = HealthState.healthy.value, None, 0
            row.last_run_id, row.updated_at = run_id, now
            row.failure_streak, row.probe_holder, row.probe_expires = 0, None, None
            s.add(row)
            s.add(
                HealthEventRow(
                    provider=row.provider, model=row.model, state=HealthState.healthy.value, run_id=run_id, at=now
                )
            )

    async def list_health(self, providers: list[str] | None = None) -> list[HealthRecord]:
        """Health records, only for `providers` when given (route resolution reads its workspace's only)."""
        query = select(ProviderHealthRow)
        if providers is not None:
            query = query.where(ProviderHealthRow.provider.in_(providers))  # type: ignore[attr-defined]
        async with self.session() as s:
            rows = (await s.execute(query)).scalars().all()
        return [
            HealthRecord(
                provider=r.provider,
                model=r.model or None,
                state=HealthState(r.state),
                retry_at=as_utc(r.retry_at),
                last_code=r.last_code,
            )
            for r in rows
        ]

    async def clear_health(self, provider: str, model: str | None = None) -> int:
        """An operator's word that a provider (or one model on it) is fixed; returns rows cleared."""
        async with self.session() as s:
            query = select(ProviderHealthRow).where(ProviderHealthRow.provider == provider)
            if model is not None:
                query = query.where(ProviderHealthRow.model == model)
            rows = (await s.execute(query)).scalars().all()
            for row in rows:
                await s.delete(row)
            await s.commit()
            return len(rows)

    async def health_rows(self) -> list[ProviderHealthRow]:
        async with self.session() as s:
            return list(
                (
                    await s.execute(
                        select(ProviderHealthRow).order_by(ProviderHealthRow.provider, ProviderHealthRow.model)
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
        async with self.session() as s:
            return list((await s.execute(query)).scalars().all())

    # --- durable selections: read-only here; writes live in store.preferences ----------------------
    async def user_pins(self, agent: str) -> Pins:
        """Only source=user rows count: anything else is not a preference, whatever it says."""
        async with self.session() as s:
            rows = (
                (
                    await s.execute(
                        select(SelectionRow).where(
                            SelectionRow.agent == agent, SelectionRow.source == SelectionSource.user.value
                        )
                    )
                )
                .scalars()
                .all()
            )
        pins = Pins()
        for row in rows:
            if row.kind == SelectionKind.provider.value:
                pins.providers = list(row.value)
            elif row.kind == SelectionKind.model.value and row.value:
                pins.model = row.value[0]
        return pins

    async def selections(self) -> list[SelectionRow]:
        async with self.session() as s:
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
        async with self.session() as s:
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
        async with self.session() as s:
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
