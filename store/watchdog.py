"""The watchdog's backstop: clears durable selection state whose source is not `user`. It should find none
(the failover path cannot write preferences); it exists for older data and bugs, and audits what it does."""

from datetime import datetime, timedelta

from sqlalchemy import delete
from sqlmodel import col, select

from routing.selection import SelectionSource
from store.repository import Store
from store.rows import as_utc, utcnow
from store.tables import SelectionEventRow, SelectionRow


async def sweep_stale_automatic_state(
    store: Store, max_age: timedelta, actor: str, now: datetime | None = None
) -> list[SelectionEventRow]:
    """Backstop: clears selection rows whose source is not `user` and that are older than `max_age`, writing
    one audit event each (what, when, why, which run wrote it). User rows are never touched."""
    now = now or utcnow()
    cutoff = now - max_age
    async with store.db() as s:
        rows = (
            (await s.execute(select(SelectionRow).where(col(SelectionRow.source) != SelectionSource.user.value)))
            .scalars()
            .all()
        )
        stale = [r for r in rows if as_utc(r.created_at) <= cutoff]
        audits = []
        for row in stale:
            await s.execute(
                delete(SelectionRow).where(col(SelectionRow.agent) == row.agent, col(SelectionRow.kind) == row.kind)
            )
            audit = SelectionEventRow(
                agent=row.agent,
                kind=row.kind,
                value=list(row.value),
                source=row.source,
                action="cleared",
                actor=actor,
                written_by_run=row.written_by_run,
                at=now,
                reason=(
                    f"watchdog: {row.source} selection older than {max_age} (written "
                    f"{as_utc(row.created_at).isoformat(timespec='seconds')} by run "
                    f"{row.written_by_run or 'unknown'}); automatic choices never persist"
                ),
            )
            s.add(audit)
            audits.append(audit)
        await s.commit()
        return audits
