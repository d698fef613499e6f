"""Capacity by row locks: every write reads the provider scope's health row locked, steps it by routing.capacity's
pure rules and writes it back in one SQLAlchemy transaction. SQLite (the embedded backend) takes this path for
everything; on PostgreSQL the locks are SELECT … FOR UPDATE, and store.capacity_cas uses it for all but a turn's
admission and close."""

import dataclasses
from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col, select

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
from routing.config import WorkspaceConfig
from routing.decider import HealthState
from routing.identity import legacy_key, provider_key
from routing.route import HealthRecord
from store.capacity import RESTORABLE, Identities, health_records
from store.database import Database, StoreInvariantError, rowcount
from store.rows import Closed, TurnClose, TurnOpening, capacity_of, health_event, save_capacity, utcnow
from store.tables import AttemptRow, HealthEventRow, ProviderHealthRow, TranscriptEntryRow
from store.transcript import open_in


class LockingCapacity:
    """store.capacity.Capacity by row locks (SQLite; PostgreSQL too)."""

    def __init__(self, database: Database, identities: Identities):
        self.database = database
        self.identities = identities

    async def _lock_health(self, s: AsyncSession, key: str, provider: str, model: str = "") -> ProviderHealthRow | None:
        """The provider scope's health row, locked until the transaction ends: SELECT … FOR UPDATE on
        PostgreSQL; on SQLite a first write takes its single writer lock before the read (the driver opens a
        transaction only at a write, so a read first could decide on a row another writer is changing)."""
        where = (col(ProviderHealthRow.provider_key) == key, col(ProviderHealthRow.model) == model)
        if self.database.is_sqlite:
            await s.execute(
                update(ProviderHealthRow)
                .where(*where)
                .values(provider_key=key)
                .execution_options(synchronize_session=False)
            )
        locked = select(ProviderHealthRow).where(*where).with_for_update()
        return (await s.execute(locked)).scalars().first()

    async def _lock_or_create(self, s: AsyncSession, key: str, provider: str, model: str = "") -> ProviderHealthRow:
        """`_lock_health`, a missing row inserted race-free (as healthy) first."""
        row = await self._lock_health(s, key, provider, model)
        if row is not None:
            return row
        await s.execute(
            self.database.insert(ProviderHealthRow)
            .values(provider_key=key, provider=provider, model=model, state=HealthState.healthy.value,
                    updated_at=utcnow())
            .on_conflict_do_nothing()
        )  # fmt: skip
        row = await self._lock_health(s, key, provider, model)
        if row is None:
            raise StoreInvariantError(f"the health row of {key!r} (model {model!r}) is missing after its insert")
        return row

    # --- admission ---------------------------------------------------------------------------------------------
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
        opening: TurnOpening | None,
        policy: CapacityPolicy = DEFAULT_POLICY,
        *,
        key: str | None = None,
    ) -> tuple[Admission, list[TranscriptEntryRow] | None]:
        """`admit_call`, and when the call may go at once, the turn's opening in the same transaction (one
        round trip for a happy turn's start). The snapshot is None when the call must wait or was refused."""
        key = key or await self.identities.key_for(provider)
        return await self._admit_and_open(key, provider, request, opening, policy)

    async def _admit_and_open(
        self, key: str, provider: str, request: CallRequest, opening: TurnOpening | None, policy: CapacityPolicy
    ) -> tuple[Admission, list[TranscriptEntryRow] | None]:
        now = utcnow()
        async with self.database.db() as s:
            row = await self._lock_or_create(s, key, provider)
            before = capacity_of(row)
            after, admission = admit(before, now, request, policy)
            if after != before:
                save_capacity(row, after)
                s.add(row)
            snapshot = None
            if opening is not None and admission.allowed and admission.wait_s <= 0:
                snapshot = await open_in(self.database, s, opening)
            await s.commit()
        return admission, snapshot

    # --- a turn's close and a success's restore ----------------------------------------------------------------
    async def close_turn(self, close: TurnClose) -> Closed:
        """One transaction: record the succeeded attempt, append the answer, and restore the provider's health
        (provider-wide and for the model that ran). Idempotent on (run, seq) for the answer and (run, attempt
        seq) for the attempt: a retry after a lost commit acknowledgement inserts nothing and restores nothing
        again. The attempt row is the fence: when (run, attempt seq) is already recorded (the workflow booked the
        attempt as lost with its worker, which then came back), the late answer is not written either. A late
        answer that got in first stays the turn's answer: `Closed.answer` is the text the transcript holds for
        the turn, which the turn returns, so the run shows what its next turn is sent.
        The health restored is the attempt's provider identity (`close.attempt["provider_key"]`, else the one the
        provider's name resolves to)."""
        key = close.attempt.get("provider_key") or await self.identities.key_for(close.provider)
        return await self._close(dataclasses.replace(close, attempt=close.attempt | {"provider_key": key}), utcnow())

    async def _close(self, close: TurnClose, now: datetime) -> Closed:
        run_id, seq, answer = close.run_id, close.seq, close.answer
        insert = self.database.insert
        async with self.database.db() as s:
            attempt = insert(AttemptRow).values(**close.attempt).on_conflict_do_nothing()
            inserted = rowcount(await s.execute(attempt))
            answered = 0  # this close's answer went in: no need to read which answer the turn holds
            if inserted:
                entry = insert(TranscriptEntryRow).values(
                    run_id=run_id, seq=seq, role="assistant", content=answer, provider=close.provider, created_at=now
                )
                answered = rowcount(await s.execute(entry.on_conflict_do_nothing()))
                rows = await self._restorable(s, close.attempt["provider_key"], close.effective_model)
                self._restore_rows(rows, s, run_id, now)
            stored = None
            if not answered:  # an answer that got in first (a lost attempt's, or this close's before a lost ack)
                stored = await s.scalar(
                    select(TranscriptEntryRow.content).where(
                        TranscriptEntryRow.run_id == run_id, TranscriptEntryRow.seq == seq
                    )
                )
            await s.commit()
        return Closed(inserted=bool(inserted), answer=answer if stored is None else stored)

    async def restore_health(self, provider: str, model: str | None, run_id: str, *, key: str | None = None) -> None:
        """A success clears the provider-wide record and the record for the model that ran."""
        key = key or await self.identities.key_for(provider)
        async with self.database.db() as s:
            self._restore_rows(await self._restorable(s, key, model), s, run_id, utcnow())
            await s.commit()

    @staticmethod
    async def _restorable(s: AsyncSession, key: str, model: str | None) -> list[ProviderHealthRow]:
        """The key's provider-wide row and the model's, when a success changes them: locked, since they are
        read, stepped and written back with no other writer in between."""
        query = (
            select(ProviderHealthRow)
            .where(
                ProviderHealthRow.provider_key == key,
                col(ProviderHealthRow.model).in_(["", model or ""]),
                RESTORABLE,
            )
            .with_for_update()
        )
        return list((await s.execute(query)).scalars().all())

    @staticmethod
    def _restore_rows(rows: Iterable[ProviderHealthRow], s: AsyncSession, run_id: str, now: datetime) -> None:
        for row in rows:
            was = row.state
            save_capacity(row, step(capacity_of(row), now, CallSucceeded(run_id=run_id)))
            s.add(row)
            if was != row.state:  # a streak that only starts over is no health change
                s.add(health_event(row, now, code=None))

    # --- failures, rates and evidence --------------------------------------------------------------------------
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
        key = key or await self.identities.key_for(provider)
        async with self.database.db() as s:
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
        key = key or await self.identities.key_for(provider)
        async with self.database.db() as s:
            row = await self._lock_or_create(s, key, provider)
            before = capacity_of(row)
            after = step(before, now, event, policy)
            if after != before:
                save_capacity(row, after)
                s.add(row)
                if after.health != before.health or after.retry_at != before.retry_at:
                    s.add(health_event(row, now, after.last_code))
            await s.commit()

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
        key = key or await self.identities.key_for(provider)
        async with self.database.db() as s:
            row = await self._lock_or_create(s, key, provider, model or "")
            before = capacity_of(row)
            after = step(before, now, HealthEvidence(state, retry_at, code, run_id, observed_at))
            if after != before:
                save_capacity(row, after)
                row.provider = provider
                s.add(row)
                s.add(health_event(row, now, code))
            await s.commit()

    # --- reads and the operator's clear -------------------------------------------------------------------------
    async def list_health(self, scope: WorkspaceConfig | list[str] | None = None) -> list[HealthRecord]:
        """Health records; with a workspace, those of its providers' identities; with provider names, those of
        every identity the names have in the stored workspaces (route resolution matches records to its own
        candidates by key, so another workspace's provider of the same name never blocks them)."""
        query = select(ProviderHealthRow)
        if isinstance(scope, WorkspaceConfig):
            keys = {provider_key(p) for p in scope.providers.values()}
            query = query.where(col(ProviderHealthRow.provider_key).in_(keys))
        elif scope is not None:
            found = await self.identities.keys_for(scope)
            keys = set().union(*found.values()) | {legacy_key(name) for name in scope}
            query = query.where(col(ProviderHealthRow.provider_key).in_(keys))
        async with self.database.db() as s:
            return await health_records(s, query)

    async def health_rows(self) -> list[ProviderHealthRow]:
        query = select(ProviderHealthRow).order_by(
            col(ProviderHealthRow.provider), col(ProviderHealthRow.provider_key), col(ProviderHealthRow.model)
        )
        async with self.database.db() as s:
            return list((await s.execute(query)).scalars().all())

    async def health_events(
        self, run_id: str | None = None, since: datetime | None = None, until: datetime | None = None
    ) -> list[HealthEventRow]:
        return await self.database.events(HealthEventRow, since, until, run_id=run_id)

    async def clear_health(self, provider: str, model: str | None = None) -> int:
        """An operator's word that a provider (or one model on it) is fixed; returns rows cleared. `provider` is
        a provider key (as `office health list --json` shows it) or a name: a name clears every identity shown
        under it."""
        async with self.database.db() as s:
            query = select(ProviderHealthRow).where(
                (col(ProviderHealthRow.provider) == provider) | (col(ProviderHealthRow.provider_key) == provider)
            )
            if model is not None:
                query = query.where(ProviderHealthRow.model == model)
            rows = (await s.execute(query)).scalars().all()
            for row in rows:
                await s.delete(row)
            await s.commit()
            return len(rows)
