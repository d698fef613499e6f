"""What a run that continues an ended one reads and copies, on PostgreSQL and SQLite through the same code."""

from store.repository import Store


async def test_the_carried_turns_become_the_new_runs_own_rows(migrated_db_url):
    store = Store(migrated_db_url)
    try:
        for seq, role, text in [(1, "user", "first"), (2, "assistant", "done"), (3, "user", "second")]:
            await store.append_transcript("old", seq, role, text, "alpha" if role == "assistant" else None)
        assert await store.transcript.copy_entries("old", "new", 2) == 2
        assert await store.transcript.copy_entries("old", "new", 2) == 2  # an activity's retry: nothing doubled
        new = [(r.seq, r.role, r.content, r.provider) for r in await store.read_transcript("new", 99)]
        assert new == [(1, "user", "first", None), (2, "assistant", "done", "alpha")]
        await store.open_turn("new", 3, "second, again")  # the new run goes on in its own rows
        assert [r.content for r in await store.read_transcript("old", 99)] == ["first", "done", "second"]
        await store.register_run("wf-1", "old", "ws")
        await store.register_run("wf-2", "old", "ws")  # continued as new: one registration per workflow run
        assert await store.runs.workspaces_of("old") == {"ws"}
        assert await store.runs.workspaces_of("nobody") == set()
    finally:
        await store.close()
