"""The usage query on both backends: attempt rows grouped by workspace, agent, provider and model over a period,
failed attempts counted, unpriced ones said, and rows before the period left out."""

from datetime import UTC, datetime, timedelta

from activities.attempts import attempt_row
from contracts.activities import AttemptRecord
from routing.config import ExecutionProfile
from routing.run import AttemptOutcome, Candidate
from routing.usage import Usage
from store.repository import Store

T0 = datetime(2026, 12, 1, 12, tzinfo=UTC)


def _record(run: str, seq: int, provider: str, model: str, usage: Usage | None, cost: float | None, **kw) -> dict:
    cand = Candidate(
        provider=provider,
        execution_profile=f"{provider}.default",
        profile=ExecutionProfile(base_url="http://127.0.0.1:1/v1"),
        tier="standard",
        requested_model=model,
    )
    rec = AttemptRecord(
        run_id=run, seq=seq, candidate=cand, effective_model=model, outcome=kw.pop("outcome", AttemptOutcome.succeeded),
        started_at=kw.get("at", T0), finished_at=kw.pop("at", T0), usage=usage, cost_usd=cost,
        workspace=kw.pop("workspace", "team"), agent=kw.pop("agent", "coder"),
    )  # fmt: skip
    return attempt_row(rec)


async def test_usage_groups_attempts_by_workspace_agent_provider_and_model(migrated_db_url):
    store = Store(migrated_db_url)
    try:
        rows = [
            _record("r1", 1, "alpha", "m1", Usage(input_tokens=100, output_tokens=10, cache_read_tokens=40), 0.5),
            _record("r1", 2, "alpha", "m1", Usage(input_tokens=50, output_tokens=5), 0.25, outcome="failed"),
            _record("r2", 1, "alpha", "m1", Usage(input_tokens=7, output_tokens=3, cache_write_tokens=2), None),
            _record("r3", 1, "beta", "m2", None, None, workspace="other", agent="reviewer"),  # reported nothing
            _record("old", 1, "alpha", "m1", Usage(input_tokens=999, output_tokens=999), 9.0, at=T0 - timedelta(2)),
        ]  # fmt: skip
        for row in rows:
            assert await store.record_attempt(row)
        groups = {(g.workspace, g.agent, g.provider, g.model): g for g in await store.usage_since(T0 - timedelta(1))}
        assert set(groups) == {("team", "coder", "alpha", "m1"), ("other", "reviewer", "beta", "m2")}
        alpha = groups["team", "coder", "alpha", "m1"]
        assert (alpha.attempts, alpha.input_tokens, alpha.output_tokens) == (3, 157, 18)
        assert (alpha.cache_read_tokens, alpha.cache_write_tokens) == (40, 2)
        assert alpha.cost_usd == 0.75 and alpha.unpriced == 1  # r2's tokens have no price: said, not guessed
        beta = groups["other", "reviewer", "beta", "m2"]
        assert (beta.attempts, beta.input_tokens, beta.cost_usd, beta.unpriced) == (1, 0, None, 0)
        everything = await store.usage_since(T0 - timedelta(days=3))
        assert sum(g.input_tokens for g in everything) == 157 + 999
        [other] = await store.usage_since(T0 - timedelta(days=3), workspace="other")
        assert (other.workspace, other.provider) == ("other", "beta")
    finally:
        await store.close()


async def test_an_attempt_row_keeps_its_usage_and_cost(migrated_db_url):
    store = Store(migrated_db_url)
    try:
        usage = Usage(input_tokens=1200, output_tokens=300, cache_read_tokens=800, cache_write_tokens=100)
        await store.record_attempt(_record("r1", 1, "alpha", "m1", usage, 0.0123))
        [row] = await store.list_attempts("r1")
        assert (row.input_tokens, row.output_tokens, row.cache_read_tokens, row.cache_write_tokens) == (
            1200, 300, 800, 100,
        )  # fmt: skip
        assert row.cost_usd == 0.0123 and (row.workspace, row.agent) == ("team", "coder")
    finally:
        await store.close()


async def test_unread_failures_are_the_periods_unknown_attempts_oldest_first(migrated_db_url):
    store = Store(migrated_db_url)
    try:
        unread = {"code": "unknown"}
        rows = [
            _record("r1", 1, "alpha", "m1", None, None, outcome="failed", at=T0 + timedelta(minutes=5)) | unread,
            _record("r2", 1, "alpha", "m1", None, None, outcome="failed", at=T0) | unread,
            _record("r3", 1, "alpha", "m1", None, None, outcome="failed") | {"code": "rate_limited"},  # read
            _record("r4", 1, "beta", "m2", None, None, outcome="failed", workspace="other") | unread,
            _record("old", 1, "alpha", "m1", None, None, outcome="failed", at=T0 - timedelta(2)) | unread,
        ]  # fmt: skip
        for row in rows:
            assert await store.record_attempt(row)
        assert [r.run_id for r in await store.unread_since(T0 - timedelta(1))] == ["r2", "r4", "r1"]
        assert [r.run_id for r in await store.unread_since(T0 - timedelta(1), workspace="team")] == ["r2", "r1"]
    finally:
        await store.close()
