"""Capacity without a declared quota, end to end (real dev server, store, simulator): a provider's rate is learned
from its 429s (and stated by its headers when it sends them), the calls are paced to it, no run fails and the
breaker never opens. The 100-run figure is `office bench amplification` (quota_undeclared)."""

import asyncio
from collections import Counter

import pytest

from office.simulator.config import SimProvider
from routing.run import RunStatus
from testkit.runs import run_to_end

from .helpers import calls_to

pytestmark = pytest.mark.integration

RPM = 120  # one call per 0.5 s
RUNS = 16


async def burst(stack, provider: SimProvider) -> tuple[list, list[dict], str]:
    ws, agent, names = await stack.workspace({"limited": provider})
    config = await stack.store.get_workspace(ws)
    await stack.store.save_workspace(config.model_copy(update={"max_attempts": 3}))
    views = await asyncio.gather(*[run_to_end(stack, ws, agent, f"task {i}") for i in range(RUNS)])
    return views, calls_to(stack, names["limited"]), names["limited"]


async def health_of(stack, provider: str):
    return next(r for r in await stack.store.health_rows() if r.provider == provider)


@pytest.mark.parametrize("rate_headers", [False, True], ids=["429s-only", "headers"])
async def test_an_undeclared_quota_is_learned_and_no_run_fails(stack, rate_headers):
    views, calls, provider = await burst(stack, SimProvider(rpm=RPM, burst=1, rate_headers=rate_headers))
    # More 429s than the attempt cap (3) allows failures: rate limits are waits, not failed attempts.
    assert [v.status for v in views] == [RunStatus.completed] * RUNS, [v.message for v in views]
    statuses = Counter(c["status"] for c in calls)
    # The burst sent before anything was known may meet the limit; then calls are paced: at most one 429 per run
    # on average (a retry loop without pacing makes several per run).
    assert statuses[200] == RUNS and len(calls) <= 2 * RUNS
    row = await health_of(stack, provider)
    assert row.learned_rpm is not None and RPM / 2 <= row.learned_rpm <= RPM * 1.5
    assert row.rate_stated is rate_headers
    if rate_headers:
        assert row.learned_rpm == RPM  # the headers state it exactly
    events = await stack.store.health_events()
    assert not [e for e in events if e.provider == provider and e.state == "degraded"]  # never the breaker
    answered = sorted(c["at"] for c in calls if c["status"] == 200)
    tail = answered[RUNS // 2 :]  # once learned, answers come no faster than the provider's rate
    assert (tail[-1] - tail[0]) >= (len(tail) - 1) * 60 / RPM * 0.9
