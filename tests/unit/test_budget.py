"""The budget arithmetic: UTC windows, "would exceed", which limit a verdict names, the run's spend from its
attempts, and the validation of budgets and schedules (pure)."""

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from office.run_input import SubmitError, validate_limits
from office.schedule_request import ScheduleRequest, cron_problem, parse_interval
from routing.budget import (
    Budgets,
    Check,
    Estimate,
    Priced,
    RunLimits,
    Spend,
    Window,
    exhausted,
    priced,
    run_spend,
    verdict,
    window_end,
    window_start,
)
from routing.run import AttemptOutcome, AttemptView
from routing.usage import Usage

NOW = datetime(2026, 12, 31, 23, 59, 59, tzinfo=UTC)
moments = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC))
amounts = st.floats(min_value=0, max_value=1e6, allow_nan=False)


@given(moments, st.sampled_from(list(Window)))
def test_a_window_holds_now_and_resets_at_a_utc_midnight(now, window):
    start, end = window_start(now, window), window_end(now, window)
    assert start <= now < end
    assert (end.hour, end.minute, end.second, end.microsecond) == (0, 0, 0, 0)
    if window is Window.day:
        assert end - start == timedelta(days=1)
    else:
        assert start.day == 1 and end.day == 1 and 28 <= (end - start).days <= 31


def test_the_month_of_december_resets_on_the_first_of_january():
    assert window_end(NOW, Window.month) == datetime(2027, 1, 1, tzinfo=UTC)
    assert window_end(NOW, Window.day) == datetime(2027, 1, 1, tzinfo=UTC)


@given(amounts, amounts, amounts)
def test_an_attempt_starts_only_while_its_estimate_fits_and_something_is_left(limit, spent, estimate):
    if not exhausted(limit, spent, estimate):
        assert spent < limit and spent + estimate <= limit
    if exhausted(limit, spent, estimate):  # spending more never makes room
        assert exhausted(limit, spent + 1, estimate) and exhausted(limit, spent, estimate + 1)


def check(**fields) -> Check:
    values = {
        "run_id": "r1", "workspace": "ws", "now": NOW, "budgets": Budgets(), "limits": RunLimits(),
        "run": Priced(0.0, 0), "estimate": Estimate(), "model_priced": True, "model": "p/m",
    }  # fmt: skip
    return Check(**(values | fields))


@pytest.mark.parametrize(
    ("case", "fields", "setting", "resets"),
    [
        ("nothing set", {}, None, False),
        ("the first turn of a run with a budget", {"limits": RunLimits(max_cost_usd=1.0)}, None, False),
        ("the next turn would pass the run's own", {"limits": RunLimits(max_cost_usd=1.0),
         "run": Priced(0.6, 10), "estimate": Estimate(cost_usd=0.5)}, "max_cost_usd", False),
        ("the workspace's default for its runs", {"budgets": Budgets(run_max_cost_usd=1.0),
         "run": Priced(1.0, 10)}, "budgets.run_max_cost_usd of workspace 'ws'", False),
        ("the run's own beats the workspace's default", {"budgets": Budgets(run_max_cost_usd=1.0),
         "limits": RunLimits(max_cost_usd=5.0), "run": Priced(1.0, 10)}, None, False),
        ("tokens", {"limits": RunLimits(max_tokens=100), "run": Priced(0, 60), "estimate": Estimate(tokens=50)},
         "max_tokens", False),
        ("the day's", {"budgets": Budgets(daily_usd=2.0), "day": Priced(2.0, 1)}, "budgets.daily_usd", True),
        ("the month before the day", {"budgets": Budgets(daily_usd=2.0, monthly_usd=3.0), "day": Priced(2.0, 1),
         "month": Priced(3.0, 1)}, "budgets.monthly_usd", True),
        ("an unpriced model under a dollar budget", {"budgets": Budgets(monthly_usd=3.0),
         "month": Priced(0.0, 0), "model_priced": False}, "prices", False),
        ("an unpriced model under a token budget only", {"limits": RunLimits(max_tokens=100),
         "model_priced": False}, None, False),
        ("unknown spend in the window", {"budgets": Budgets(daily_usd=3.0),
         "day": Priced(0.0, 5, ("p/other",))}, "prices", False),
    ],
)  # fmt: skip
def test_the_verdict_names_the_limit_to_raise(case, fields, setting, resets):
    found = verdict(check(**fields))
    assert found.within is (setting is None), case
    assert found.setting == setting
    assert (found.resets_at is not None) is resets
    if setting is not None:
        assert found.message and "office runs resume r1" in found.message
        assert setting.split(" ")[0] in found.message


def test_a_window_verdict_says_when_it_resumes_by_itself():
    found = verdict(check(budgets=Budgets(monthly_usd=1.0), month=Priced(1.5, 1)))
    assert found.resets_at == datetime(2027, 1, 1, tzinfo=UTC)
    assert "resumes by itself at 2027-01-01 00:00 UTC" in (found.message or "")


def attempt(outcome: AttemptOutcome, usage: Usage | None, cost: float | None, model: str = "m") -> AttemptView:
    return AttemptView(seq=1, provider="p", model=model, outcome=outcome, usage=usage, cost_usd=cost)


def test_the_runs_spend_counts_every_attempt_and_estimates_from_its_last_answer():
    ok, failed = AttemptOutcome.succeeded, AttemptOutcome.failed
    spend, estimate = run_spend([
        attempt(ok, Usage(input_tokens=100, output_tokens=10), 0.5),
        attempt(failed, None, None),  # refused before any token: nothing spent
        attempt(failed, Usage(input_tokens=40), 0.1),  # a stopped turn's tokens count
        attempt(ok, Usage(input_tokens=200, output_tokens=20), None, model="free"),
        attempt(ok, None, None),  # answered without saying what it used
    ])  # fmt: skip
    assert (spend.cost_usd, spend.tokens, spend.unreported) == (pytest.approx(0.6), 370, 1)
    assert [(u.model, u.usage.total_tokens) for u in spend.unpriced] == [("free", 220)]
    assert estimate == Estimate(cost_usd=0.0, tokens=220)
    again = priced(spend, lambda provider, model, usage: 0.25 if model == "free" else None)
    assert again.cost_usd == pytest.approx(0.85) and again.unknown == ("1 answer(s) without token counts",)


@given(st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 10_000), st.floats(0, 10))))
def test_priced_spend_is_the_sum_of_its_parts(parts):
    views = [attempt(AttemptOutcome.succeeded, Usage(input_tokens=i, output_tokens=o), c) for i, o, c in parts]
    spend, _ = run_spend(views)
    assert spend.tokens == sum(i + o for i, o, _ in parts)
    assert spend.cost_usd == pytest.approx(sum(c for *_, c in parts))
    assert priced(spend, lambda *_: None) == Priced(spend.cost_usd, spend.tokens)
    assert spend == Spend(cost_usd=spend.cost_usd, tokens=spend.tokens)


@pytest.mark.parametrize(
    ("limits", "field"),
    [((-1.0, None), "max-cost-usd"), ((float("nan"), None), "max-cost-usd"), ((None, 0), "max-tokens")],
)
def test_a_bad_run_budget_names_its_option(limits, field):
    with pytest.raises(SubmitError) as err:
        validate_limits(*limits)
    assert err.value.field == field


@pytest.mark.parametrize("cron", ["0 3 * * *", "*/5 * * * *", "0 9 * * MON-FRI", "@daily", "@every 10m"])
def test_a_cron_expression_passes(cron):
    assert cron_problem(cron) is None


@pytest.mark.parametrize("cron", ["every day", "0 3 * *", "0 3 * * * * * *", "0 3 * * ;rm"])
def test_a_bad_cron_expression_is_named_with_an_example(cron):
    assert '"0 3 * * *"' in (cron_problem(cron) or "")


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"name": "Nightly Tests", "cron": "0 3 * * *"}, "name"),
        ({"name": "n"}, "cron"),  # neither --cron nor --interval
        ({"name": "n", "cron": "0 3 * * *", "every": timedelta(hours=1)}, "cron"),
        ({"name": "n", "cron": "soon"}, "cron"),
        ({"name": "n", "cron": "0 3 * * *", "overlap": "queue"}, "overlap"),
        ({"name": "n", "cron": "0 3 * * *", "priority": "urgent"}, "priority"),
        ({"name": "n", "cron": "0 3 * * *", "max_cost_usd": -2.0}, "max-cost-usd"),
    ],
)
def test_a_bad_schedule_names_its_field_before_anything_connects(fields, field):
    with pytest.raises(SubmitError) as err:
        ScheduleRequest(workspace="ws", agent="a", prompt="p", **fields).check_offline()
    assert err.value.field == field


def test_an_interval_is_a_whole_number_of_a_unit():
    assert parse_interval("90s") == timedelta(seconds=90) and parse_interval("2h") == timedelta(hours=2)
    for bad in ("0s", "1.5h", "soon", "10"):
        with pytest.raises(SubmitError):
            parse_interval(bad)


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["schedule", "create", "n", "Check", "-w", "ws", "-a", "a", "--cron", "every day"], "cron:"),
        (["schedule", "create", "n", "Check", "-w", "ws", "-a", "a"], "cron:"),
        (["schedule", "create", "n", "Check", "-w", "ws", "-a", "a", "--interval", "soon"], "interval:"),
        (["submit", "Fix it", "-w", "ws", "-a", "a", "--max-cost-usd", "-1"], "max-cost-usd:"),
        (["runs", "resume", "r1", "--max-tokens", "0"], "max-tokens:"),
    ],
)
def test_the_cli_refuses_a_bad_budget_or_schedule_in_one_line_with_exit_2(args, named):
    from typer.testing import CliRunner

    from office.cli import app

    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert named in result.output and "Traceback" not in result.output
    assert len([line for line in result.output.splitlines() if line.strip()]) == 1
