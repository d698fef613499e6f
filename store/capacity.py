"""Capacity: a provider key's health, breaker, probe lease, retry budget, pacer and learned rate, shared by every
worker through its health row. One interface, two implementations that pass one contract suite
(tests/store/test_capacity_contract.py):

- `store.capacity_locking.LockingCapacity`: SQLAlchemy transactions that lock the row they step (SQLite, the
  embedded backend; it works on PostgreSQL too);
- `store.capacity_cas.CompareAndSetCapacity`: PostgreSQL; a turn's admission (with its opening) and its close
  go through asyncpg as compare-and-set statements (store.turn_path), the rarer writes as the locking path.

`store.repository.capacity_for` picks the one the database's backend takes."""

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from sqlalchemy import ColumnElement, or_
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col
from sqlmodel.sql.expression import SelectOfScalar

from routing.capacity import DEFAULT_POLICY, Admission, CallRequest, CapacityPolicy
from routing.config import WorkspaceConfig
from routing.decider import HealthState
from routing.route import HealthRecord
from store.rows import Closed, TurnClose, TurnOpening, as_utc
from store.tables import HealthEventRow, ProviderHealthRow, TranscriptEntryRow

# What a success restores: a record that is not healthy, or a healthy one counting failures in a row (the
# streak that opens the breaker counts failures with no success between them).
RESTORABLE: ColumnElement[bool] = or_(
    col(ProviderHealthRow.state) != HealthState.healthy.value,
    col(ProviderHealthRow.failure_streak) > 0,
)


class Identities(Protocol):
    """Provider names to the identities (routing.identity.provider_key) they have in the stored workspaces."""

    async def key_for(self, provider: str) -> str: ...

    async def keys_for(self, providers: list[str]) -> dict[str, set[str]]: ...


class Capacity(Protocol):
    """A provider key's capacity state, read and stepped by routing.capacity's pure rules. Every method that
    takes a provider name and an optional `key` uses the key when given, else the identity the name has in the
    stored workspaces."""

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
        """Before every provider call: retry budget, breaker and probe lease, then the wait before calling."""
        ...

    async def admit_and_open(
        self,
        provider: str,
        request: CallRequest,
        opening: TurnOpening | None,
        policy: CapacityPolicy = DEFAULT_POLICY,
        *,
        key: str | None = None,
    ) -> tuple[Admission, list[TranscriptEntryRow] | None]:
        """`admit_call`, and when the call may go at once, the turn's opening in the same write: the run's
        transcript up to the turn's user message (None when the call must wait or was refused)."""
        ...

    async def close_turn(self, close: TurnClose) -> Closed:
        """The succeeded attempt, the answer and the restored health, at once and idempotently."""
        ...

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
        """A failed call, counted at once; True when it opened the breaker."""
        ...

    async def note_rate(self, provider: str, limit_rpm: float, *, key: str | None = None) -> None:
        """An answer's rate-limit headers stated the provider's request limit."""
        ...

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
        """A run's decision about the provider, as evidence; it never closes an open breaker."""
        ...

    async def restore_health(self, provider: str, model: str | None, run_id: str, *, key: str | None = None) -> None:
        """A success: the provider-wide record and the model's are healthy again."""
        ...

    async def list_health(self, scope: WorkspaceConfig | list[str] | None = None) -> list[HealthRecord]: ...

    async def health_rows(self) -> list[ProviderHealthRow]: ...

    async def health_events(
        self, run_id: str | None = None, since: datetime | None = None, until: datetime | None = None
    ) -> list[HealthEventRow]: ...

    async def clear_health(self, provider: str, model: str | None = None) -> int:
        """An operator's word that a provider (or one model on it) is fixed; returns rows cleared."""
        ...


def health_record(
    provider: str,
    provider_key: str | None,
    model: str | None,
    state: str,
    retry_at: datetime | None,
    last_code: str | None,
) -> HealthRecord:
    return HealthRecord(
        provider=provider,
        provider_key=provider_key,
        model=model or None,
        state=HealthState(state),
        retry_at=as_utc(retry_at),
        last_code=last_code,
    )


async def health_records(s: AsyncSession, query: SelectOfScalar[ProviderHealthRow]) -> list[HealthRecord]:
    rows: Sequence[ProviderHealthRow] = (await s.execute(query)).scalars().all()
    return [health_record(r.provider, r.provider_key, r.model, r.state, r.retry_at, r.last_code) for r in rows]
