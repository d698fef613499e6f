"""Capacity on PostgreSQL by compare-and-set: a turn's admission (with its opening) and its close are single
asyncpg statements (store.turn_path) that write only if the provider key's row still holds what was read; the
rarer writes (failures, rates, evidence, an explicit restore) and the reads are the locking path's."""

from datetime import datetime

from routing.capacity import Admission, CallRequest, CapacityPolicy
from store import turn_path
from store.capacity import Identities
from store.capacity_locking import LockingCapacity
from store.database import Database
from store.rows import Closed, TurnClose, TurnOpening, utcnow
from store.tables import TranscriptEntryRow


class CompareAndSetCapacity(LockingCapacity):
    """store.capacity.Capacity on PostgreSQL, a turn's admission and close through asyncpg (store.turn_path)."""

    def __init__(self, database: Database, identities: Identities):
        if not database.is_postgresql:
            raise ValueError(f"compare-and-set capacity needs PostgreSQL, not {database.engine.dialect.name}")
        super().__init__(database, identities)
        self._known_rows = turn_path.KnownRows()

    async def _admit_and_open(
        self, key: str, provider: str, request: CallRequest, opening: TurnOpening | None, policy: CapacityPolicy
    ) -> tuple[Admission, list[TranscriptEntryRow] | None]:
        # This process's admissions to a key take turns before taking a connection.
        async with self._known_rows.lock(key), self.database.driver() as conn:
            known, now = self._known_rows, utcnow()
            return await turn_path.admit_and_open(conn, known, key, provider, request, opening, policy, now)

    async def _close(self, close: TurnClose, now: datetime) -> Closed:
        async with self.database.driver() as conn:
            return await turn_path.close_turn(conn, close, now)
