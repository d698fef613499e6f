"""The only writer of durable selection state. It accepts `UserSelection` (source fixed to user) and
nothing else; the failover path (workflows/, activities/) never imports this module (a test checks)."""

from routing.selection import SelectionKind, SelectionSource, UserSelection
from store.repository import Store
from store.rows import utcnow
from store.tables import SelectionEventRow, SelectionRow


class PreferenceWriter:
    def __init__(self, store: Store):
        self.store = store

    async def set_user_selection(self, selection: UserSelection) -> None:
        if not isinstance(selection, UserSelection) or selection.source is not SelectionSource.user:
            raise TypeError("durable preference accepts only explicit user selections")
        now = utcnow()
        await self.store.upsert(
            SelectionRow,
            {
                "agent": selection.agent,
                "kind": selection.kind.value,
                "value": selection.value,
                "source": SelectionSource.user.value,
                "actor": selection.actor,
                "written_by_run": None,
                "created_at": now,
            },
            ["agent", "kind"],
        )
        async with self.store.db() as s:
            s.add(
                SelectionEventRow(
                    agent=selection.agent,
                    kind=selection.kind.value,
                    value=selection.value,
                    source=SelectionSource.user.value,
                    action="set",
                    actor=selection.actor,
                    reason=selection.reason or "set by the user",
                    at=now,
                )
            )
            await s.commit()

    async def clear_user_selection(self, agent: str, kind: SelectionKind, actor: str, reason: str = "") -> bool:
        async with self.store.db() as s:
            row = await s.get(SelectionRow, (agent, kind.value))
            if row is None:
                return False
            await s.delete(row)
            s.add(
                SelectionEventRow(
                    agent=agent,
                    kind=kind.value,
                    value=list(row.value),
                    source=row.source,
                    action="cleared",
                    actor=actor,
                    reason=reason or "cleared by the user",
                    written_by_run=row.written_by_run,
                    at=utcnow(),
                )
            )
            await s.commit()
            return True
