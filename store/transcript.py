"""The transcript aggregate: a run's conversation, append-only, one owner per run (keyed by run and seq)."""

from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col, select

from store.database import Database
from store.rows import TurnOpening, utcnow
from store.tables import TranscriptEntryRow


class TranscriptRepository:
    def __init__(self, database: Database):
        self.database = database

    async def append_transcript(
        self, run_id: str, seq: int, role: str, content: str, provider: str | None = None
    ) -> bool:
        """True when this call appended the entry (a retry never overwrites one)."""
        return await self.database.insert_ignore(
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
        async with self.database.db() as s:
            return await snapshot(s, run_id, upto_seq)

    async def copy_entries(self, source: str, target: str, upto_seq: int) -> int:
        """One transaction: `source`'s entries up to `upto_seq` become `target`'s own rows (same seq, role, content
        and provider; a retry never overwrites one). Returns how many `source` holds up to there."""
        async with self.database.db() as s:
            rows = await snapshot(s, source, upto_seq)
            for row in rows:
                await s.execute(
                    self.database.insert(TranscriptEntryRow)
                    .values(run_id=target, seq=row.seq, role=row.role, content=row.content, provider=row.provider,
                            created_at=utcnow())
                    .on_conflict_do_nothing()
                )  # fmt: skip
            await s.commit()
        return len(rows)

    async def open_turn(self, run_id: str, user_seq: int, text: str) -> list[TranscriptEntryRow]:
        """One transaction: append the turn's user message (idempotent) and read the run's snapshot up to it."""
        async with self.database.db() as s:
            rows = await open_in(self.database, s, TurnOpening(run_id, user_seq, text))
            await s.commit()
        return rows


async def snapshot(s: AsyncSession, run_id: str, upto_seq: int) -> list[TranscriptEntryRow]:
    """The run's entries up to `upto_seq`, in order."""
    query = (
        select(TranscriptEntryRow)
        .where(TranscriptEntryRow.run_id == run_id, col(TranscriptEntryRow.seq) <= upto_seq)
        .order_by(col(TranscriptEntryRow.seq))
    )
    return list((await s.execute(query)).scalars().all())


async def open_in(database: Database, s: AsyncSession, turn: TurnOpening) -> list[TranscriptEntryRow]:
    """Within the caller's transaction: the turn's user message (if absent) and the snapshot up to it."""
    await s.execute(
        database.insert(TranscriptEntryRow)
        .values(run_id=turn.run_id, seq=turn.user_seq, role="user", content=turn.text, provider=None,
                created_at=utcnow())
        .on_conflict_do_nothing()
    )  # fmt: skip
    return await snapshot(s, turn.run_id, turn.user_seq)
