"""Usage as each executor reports it, its arithmetic, and its price: the workspace's own, else the maintained
table, else unknown (never a guess)."""

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from activities import metrics
from activities.attempts import count_usage
from activities.pricing import cost_usd
from contracts.activities import AttemptRecord
from routing.config import ExecutionProfile
from routing.run import AttemptOutcome, Candidate, RunStatus, RunView
from routing.usage import ModelPrice, Usage, add_costs, from_acp_prompt, from_openai, override_for

counts = st.integers(min_value=0, max_value=10**9)


@st.composite
def usages(draw: st.DrawFn) -> Usage:
    read, write, plain = draw(counts), draw(counts), draw(counts)
    return Usage(
        input_tokens=read + write + plain, output_tokens=draw(counts), cache_read_tokens=read, cache_write_tokens=write
    )


prices = st.builds(
    ModelPrice,
    input_per_million=st.floats(0, 100),
    output_per_million=st.floats(0, 100),
    cache_read_per_million=st.none() | st.floats(0, 100),
    cache_write_per_million=st.none() | st.floats(0, 100),
)


@pytest.mark.parametrize(
    ("reported", "expected"),
    [
        # OpenAI chat completions (the streaming usage chunk): prompt_tokens includes the cached ones
        (
            {"prompt_tokens": 1200, "completion_tokens": 30, "total_tokens": 1230,
             "prompt_tokens_details": {"cached_tokens": 1024}},
            Usage(input_tokens=1200, output_tokens=30, cache_read_tokens=1024),
        ),
        ({"prompt_tokens": 12, "completion_tokens": 3}, Usage(input_tokens=12, output_tokens=3)),  # no details
        ({"prompt_tokens": 12, "completion_tokens": 3, "prompt_tokens_details": None},
         Usage(input_tokens=12, output_tokens=3)),
        ({"prompt_tokens": "many", "completion_tokens": -1}, Usage()),  # nonsense counts count nothing
        (None, None),  # the usage: null of every chunk but the last
    ],
)  # fmt: skip
def test_openai_usage(reported: object, expected: Usage | None) -> None:
    assert from_openai(reported) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # claude-agent-acp: the session/prompt result's `usage`, Anthropic's split (input without the cache)
        (
            {"stopReason": "end_turn", "usage": {"inputTokens": 10, "outputTokens": 200, "cachedReadTokens": 3000,
                                                  "cachedWriteTokens": 500, "totalTokens": 3710}},
            Usage(input_tokens=3510, output_tokens=200, cache_read_tokens=3000, cache_write_tokens=500),
        ),
        # OpenCode: the same field; reasoning (thoughtTokens) is billed as output, absent cache counts are 0
        (
            {"stopReason": "end_turn", "usage": {"inputTokens": 40, "outputTokens": 7, "thoughtTokens": 5,
                                                  "totalTokens": 52}, "_meta": {}},
            Usage(input_tokens=40, output_tokens=12),
        ),
        # Gemini CLI: _meta.quota.token_count (promptTokenCount and candidatesTokenCount summed over the turn)
        (
            {"stopReason": "end_turn", "_meta": {"quota": {"token_count": {"input_tokens": 900, "output_tokens": 80},
                                                           "model_usage": []}}},
            Usage(input_tokens=900, output_tokens=80),
        ),
        ({"stopReason": "end_turn"}, None),  # an agent that reports nothing (codex-acp)
        ({"stopReason": "end_turn", "_meta": {"quota": "n/a"}}, None),
        ({}, None),
    ],
)  # fmt: skip
def test_acp_usage(answer: dict[str, object], expected: Usage | None) -> None:
    assert from_acp_prompt(answer) == expected


@given(usages(), usages(), usages())
def test_usages_add_up(a: Usage, b: Usage, c: Usage) -> None:
    assert (a + b) + c == a + (b + c)
    assert a + b == b + a
    assert a + Usage() == a
    assert (a + b).total_tokens == a.total_tokens + b.total_tokens
    assert (a + b).uncached_input_tokens == a.uncached_input_tokens + b.uncached_input_tokens


@given(prices, usages(), usages())
def test_a_price_is_linear_in_the_tokens(price: ModelPrice, a: Usage, b: Usage) -> None:
    assert price.cost(a + b) == pytest.approx(price.cost(a) + price.cost(b), rel=1e-9, abs=1e-9)
    assert price.cost(a) >= 0
    assert price.cost(Usage()) == 0


@given(st.floats(0, 100), st.floats(0, 100), usages())
def test_cache_prices_default_to_the_input_price(input_price: float, output_price: float, usage: Usage) -> None:
    price = ModelPrice(input_per_million=input_price, output_per_million=output_price)
    expected = (usage.input_tokens * input_price + usage.output_tokens * output_price) / 1_000_000
    assert price.cost(usage) == pytest.approx(expected, rel=1e-9, abs=1e-9)


@given(st.lists(st.none() | st.floats(0, 1000), max_size=8))
def test_costs_add_up_what_is_known(costs: list[float | None]) -> None:
    total: float | None = None
    for cost in costs:
        total = add_costs(total, cost)
    known = [c for c in costs if c is not None]
    assert total == (pytest.approx(sum(known)) if known else None)


def test_a_run_sums_its_attempts_and_counts_those_without_a_price() -> None:
    view = RunView(run_id="r", status=RunStatus.running, workspace="w", agent="a")
    view.note_usage(None, None)  # an attempt that reported nothing changes nothing
    assert (view.usage, view.cost_usd) == (None, None)
    view.note_usage(Usage(input_tokens=10, output_tokens=2), 0.5)
    view.note_usage(Usage(input_tokens=5, output_tokens=1), None)
    assert view.usage == Usage(input_tokens=15, output_tokens=3)
    assert (view.cost_usd, view.unpriced_attempts) == (0.5, 1)


def test_the_workspace_price_wins_for_its_provider_first() -> None:
    general, alpha = (
        ModelPrice(input_per_million=1, output_per_million=2),
        ModelPrice(input_per_million=0, output_per_million=0),
    )
    table = {"m": general, "alpha/m": alpha}
    assert override_for(table, "alpha", "m") is alpha
    assert override_for(table, "beta", "m") is general
    assert override_for(table, "beta", "other") is None
    assert override_for(table, "beta", None) is None


def test_a_listed_model_is_priced_from_the_workspace() -> None:
    usage = Usage(input_tokens=2_000_000, output_tokens=1_000_000, cache_read_tokens=1_000_000)
    price = ModelPrice(input_per_million=3, output_per_million=15, cache_read_per_million=0.3)
    assert cost_usd("alpha", "negotiated", usage, {"negotiated": price}) == pytest.approx(3 + 0.3 + 15)
    # a workspace's price overrides the table's for a model the table knows too (a negotiated price)
    assert cost_usd("openai", "gpt-4o", usage, {"gpt-4o": price}) == pytest.approx(18.3)


def test_a_known_model_is_priced_from_the_maintained_table() -> None:
    """gpt-4o in genai-prices: $2.5 per million input, $1.25 cached, $10 output."""
    usage = Usage(input_tokens=1000, output_tokens=100, cache_read_tokens=200)
    expected = (800 * 2.5 + 200 * 1.25 + 100 * 10) / 1_000_000
    assert cost_usd("openai", "gpt-4o", usage, {}) == pytest.approx(expected)
    assert cost_usd("my-gateway", "gpt-4o", usage, {}) == pytest.approx(expected)  # any provider name: by the model


def test_an_unknown_model_or_no_usage_has_no_cost() -> None:
    usage = Usage(input_tokens=1000, output_tokens=100)
    assert cost_usd("alpha", "sim-model-nobody-prices", usage, {}) is None
    assert cost_usd("openai", "gpt-4o", None, {}) is None
    assert cost_usd("openai", None, usage, {}) is None


class Counted:
    """Stands in for an OpenTelemetry counter: what was added, with which attributes."""

    def __init__(self) -> None:
        self.points: list[tuple[float, dict[str, str]]] = []

    def add(self, amount: float, attributes: dict[str, str]) -> None:
        self.points.append((amount, attributes))


def _record(usage: Usage | None, cost: float | None) -> AttemptRecord:
    cand = Candidate(
        provider="alpha", execution_profile="alpha/standard", profile=ExecutionProfile(base_url="http://x/v1"),
        tier="standard",
        requested_model="m1",
    )  # fmt: skip
    at = datetime(2026, 12, 2, tzinfo=UTC)
    return AttemptRecord(
        run_id="r", seq=1, candidate=cand, effective_model="m1-2026", outcome=AttemptOutcome.succeeded,
        started_at=at, finished_at=at, usage=usage, cost_usd=cost,
    )  # fmt: skip


def test_metrics_count_tokens_by_kind_and_cost_by_provider_and_model(monkeypatch: pytest.MonkeyPatch) -> None:
    tokens, cost = Counted(), Counted()
    monkeypatch.setattr(metrics, "tokens", tokens)
    monkeypatch.setattr(metrics, "cost", cost)
    usage = Usage(input_tokens=100, output_tokens=7, cache_read_tokens=60, cache_write_tokens=10)
    count_usage(_record(usage, 0.25))
    where = {"provider": "alpha", "model": "m1-2026"}
    assert tokens.points == [
        (30, where | {"kind": "input"}),  # the uncached part of the input
        (60, where | {"kind": "cache_read"}),
        (10, where | {"kind": "cache_write"}),
        (7, where | {"kind": "output"}),
    ]
    assert cost.points == [(0.25, where)]
    count_usage(_record(Usage(input_tokens=5), None))  # no price: tokens only, never a cost of 0
    count_usage(_record(None, None))  # nothing reported: nothing counted
    assert tokens.points[-1] == (5, where | {"kind": "input"}) and len(tokens.points) == 5
    assert len(cost.points) == 1
