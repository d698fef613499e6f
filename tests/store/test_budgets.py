"""A workspace's spend over a budget window on both backends: its attempts that finished in the window, priced ones
summed, tokens without a price by model (to be priced again), answers without token counts counted; attempts of
other workspaces and before the window left out."""

from datetime import timedelta

import pytest

from routing.budget import ModelUsage, Spend
from routing.usage import Usage
from store.repository import Store
from tests.store.test_usage import T0, _record


async def test_a_workspaces_spend_is_its_attempts_in_the_window(migrated_db_url):
    store = Store(migrated_db_url)
    try:
        rows = [
            _record("r1", 1, "alpha", "m1", Usage(input_tokens=100, output_tokens=10), 0.5),
            _record("r1", 2, "alpha", "m1", Usage(input_tokens=50, output_tokens=5), 0.25, outcome="failed"),
            _record("r2", 1, "alpha", "free", Usage(input_tokens=7, output_tokens=3, cache_read_tokens=2), None),
            _record("r2", 2, "alpha", "free", Usage(input_tokens=1, output_tokens=1), None),
            _record("r3", 1, "beta", "m2", None, None),  # answered without token counts
            _record("r3", 2, "beta", "m2", None, None, outcome="failed"),  # refused: nothing spent
            _record("r4", 1, "alpha", "m1", Usage(input_tokens=999), 9.0, workspace="other"),
            _record("old", 1, "alpha", "m1", Usage(input_tokens=999), 9.0, at=T0 - timedelta(seconds=1)),
            _record("edge", 1, "alpha", "m1", Usage(input_tokens=1), 1.0, at=T0),  # the window's first instant
        ]  # fmt: skip
        for row in rows:
            assert await store.record_attempt(row)
        spend = await store.budgets.workspace_spend("team", T0)
        assert spend.cost_usd == pytest.approx(1.75)
        assert spend.model_copy(update={"cost_usd": 1.75}) == Spend(
            cost_usd=1.75,
            tokens=110 + 55 + 10 + 2 + 1,
            unreported=1,
            unpriced=[ModelUsage(provider="alpha", model="free",
                                 usage=Usage(input_tokens=8, output_tokens=4, cache_read_tokens=2))],
        )  # fmt: skip
        assert await store.budgets.workspace_spend("nobody", T0) == Spend()
    finally:
        await store.close()
