"""A run's progress events on both backends: appended in batches, read after a cursor in order, one run's never
another's, bounded per run, pruned by age."""

from datetime import UTC, datetime, timedelta

from routing.progress import ProgressEvent
from store.repository import Store
from store.run_events import RunEventRepository

T0 = datetime(2026, 12, 2, 9, tzinfo=UTC)


def message(i: int, text: str) -> ProgressEvent:
    return ProgressEvent(T0 + timedelta(seconds=i), "message", text)


async def test_events_are_read_in_order_after_a_cursor_and_bounded_per_run(migrated_db_url):
    store = Store(migrated_db_url)
    try:
        events = RunEventRepository(store.database, keep_per_run=5)
        await events.append("r1", 1, [message(0, "a"), message(1, "b")])
        await events.append("r2", 1, [message(0, "other run")])
        tool = ProgressEvent(T0 + timedelta(seconds=2), "tool", "Edit a.py", "edit", "a.py")
        await events.append("r1", 2, [tool])
        first = await events.after("r1")
        assert [(e.attempt, e.kind, e.text, e.tool_kind, e.path) for e in first] == [
            (1, "message", "a", None, None),
            (1, "message", "b", None, None),
            (2, "tool", "Edit a.py", "edit", "a.py"),
        ]
        assert await events.after("r1", first[-1].id or 0) == []
        await events.append("r1", 2, [message(i, f"m{i}") for i in range(3, 7)])
        kept = await events.after("r1")
        assert [e.text for e in kept] == ["Edit a.py", "m3", "m4", "m5", "m6"]  # the newest five
        assert [e.text for e in await events.after("r1", kept[2].id or 0)] == ["m5", "m6"]
        assert [e.text for e in await events.after("r2")] == ["other run"]
        assert await events.prune(T0 + timedelta(seconds=1)) == 1  # r2's only event was older
        assert await events.after("r2") == [] and len(await events.after("r1")) == 5
    finally:
        await store.close()
