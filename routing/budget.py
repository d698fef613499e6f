"""Budgets: what a run may still spend, per run (`max_cost_usd`, `max_tokens`) and per workspace per UTC day and
month (`budgets:`). Pure: the store's sums and the run's own come in, one verdict goes out.

"Would exceed", honestly: a turn's cost is known only after it ran. Before each attempt the run estimates the next
one at what its last answer cost (a next turn resends the conversation, so it costs about as much or more, less
what the provider's prompt cache saves) and parks when the spent amount has reached the budget or the spent amount
plus that estimate would pass it. A turn that costs more than its estimate can still cross the budget, by at most
that difference; the next one then parks. The first turn has no estimate: it starts while anything is left.

Unknown cost fails closed: where a dollar budget applies, a turn starts only on a model the workspace can price
(its `prices:` or the maintained table), and an attempt that used tokens without a price (or answered without
reporting its tokens) makes the spend unknown, which parks the run naming the model and the setting to fix."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from routing.usage import Usage

if TYPE_CHECKING:  # routing.run carries these limits in its request and plan
    from routing.run import AttemptView

USD = "${:,.4f}"


class Budgets(BaseModel):
    """A workspace's spending limits, in USD over UTC windows, and the defaults of its runs' own limits."""

    model_config = ConfigDict(extra="forbid")

    daily_usd: float | None = Field(
        default=None, ge=0, description="USD the workspace's runs may spend per UTC day (resets at 00:00 UTC)."
    )
    monthly_usd: float | None = Field(
        default=None,
        ge=0,
        description="USD the workspace's runs may spend per UTC calendar month (resets on the 1st, 00:00 UTC).",
    )
    run_max_cost_usd: float | None = Field(
        default=None, ge=0, description="Default `max_cost_usd` of a run here that was submitted without one."
    )
    run_max_tokens: int | None = Field(
        default=None, ge=1, description="Default `max_tokens` of a run here that was submitted without one."
    )

    @property
    def any(self) -> bool:
        return any(
            v is not None for v in (self.daily_usd, self.monthly_usd, self.run_max_cost_usd, self.run_max_tokens)
        )


class RunLimits(BaseModel):
    """A run's own limits (from `office submit`, or raised by `office runs resume --max-cost-usd/--max-tokens`)."""

    max_cost_usd: float | None = Field(default=None, ge=0)
    max_tokens: int | None = Field(default=None, ge=1)

    @property
    def any(self) -> bool:
        return self.max_cost_usd is not None or self.max_tokens is not None

    def raised(self, other: "RunLimits") -> "RunLimits":
        """`other`'s limits where it sets them, these elsewhere."""
        return RunLimits(
            max_cost_usd=self.max_cost_usd if other.max_cost_usd is None else other.max_cost_usd,
            max_tokens=self.max_tokens if other.max_tokens is None else other.max_tokens,
        )


class ModelUsage(BaseModel):
    """Tokens spent on one model without a price when they were recorded: priced again with today's prices."""

    provider: str
    model: str | None
    usage: Usage


class Spend(BaseModel):
    """What a run, or a workspace over a window, has spent. `unpriced`: tokens recorded without a price;
    `unreported`: answers that reported no tokens at all (their cost is unknown)."""

    cost_usd: float = 0.0
    tokens: int = 0
    unpriced: list[ModelUsage] = Field(default_factory=list)
    unreported: int = 0


class Estimate(BaseModel):
    """The next attempt's expected cost: the run's last answer's."""

    cost_usd: float = 0.0
    tokens: int = 0


class Window(StrEnum):
    day = "day"
    month = "month"


def window_start(now: datetime, window: Window) -> datetime:
    """The UTC midnight the window began (today's, or the first of this month's)."""
    at = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return at if window is Window.day else at.replace(day=1)


def window_end(now: datetime, window: Window) -> datetime:
    """When the window resets: the next UTC midnight, or the first of next month."""
    start = window_start(now, window)
    if window is Window.day:
        return start + timedelta(days=1)
    return start.replace(year=start.year + 1, month=1) if start.month == 12 else start.replace(month=start.month + 1)


@dataclass(frozen=True)
class Priced:
    """A spend with its unpriced tokens priced again: `unknown` names what still has no price."""

    cost_usd: float
    tokens: int
    unknown: tuple[str, ...] = ()


Pricer = Callable[[str, str | None, Usage], float | None]  # (provider, model, usage) → USD, None: no price


def priced(spend: Spend, price: Pricer) -> Priced:
    """`spend` with its unpriced tokens priced at today's prices; what has none stays named in `unknown`."""
    cost, unknown = spend.cost_usd, []
    for part in spend.unpriced:
        found = price(part.provider, part.model, part.usage)
        if found is None:
            unknown.append(f"{part.provider}/{part.model or '(model not reported)'}")
        else:
            cost += found
    if spend.unreported:
        unknown.append(f"{spend.unreported} answer(s) without token counts")
    return Priced(cost_usd=cost, tokens=spend.tokens, unknown=tuple(unknown))


def run_spend(attempts: Sequence["AttemptView"]) -> tuple[Spend, Estimate]:
    """The run's spend from its own attempts (failed ones too), and the next attempt's estimate: its last answer's."""
    spend, estimate = Spend(), Estimate()
    for a in attempts:
        if a.usage is None:
            spend.unreported += a.outcome == "succeeded"
            continue
        spend.tokens += a.usage.total_tokens
        if a.cost_usd is None:
            spend.unpriced.append(ModelUsage(provider=a.provider, model=a.model or a.requested_model, usage=a.usage))
        else:
            spend.cost_usd += a.cost_usd
        if a.outcome == "succeeded":
            estimate = Estimate(cost_usd=a.cost_usd or 0.0, tokens=a.usage.total_tokens)
    return spend, estimate


class Verdict(BaseModel):
    """`within`: the attempt may start. Otherwise `setting` names the limit to raise, `message` says so in full,
    and `resets_at` is when the limit's window resets (None: only a person can lift it)."""

    within: bool
    setting: str | None = None
    message: str | None = None
    resets_at: datetime | None = None


@dataclass(frozen=True)
class Check:
    """What one verdict is taken from."""

    run_id: str
    workspace: str
    now: datetime
    budgets: Budgets  # the workspace's, as the store holds them now
    limits: RunLimits  # the run's own (unset: the workspace's run defaults apply)
    run: Priced
    estimate: Estimate
    model_priced: bool  # the next attempt's model has a price
    model: str  # "provider/model" of the next attempt, for the message
    day: Priced | None = None  # the workspace's spend today (None: no daily budget)
    month: Priced | None = None  # …this month (None: no monthly budget)


def exhausted(limit: float, spent: float, estimate: float) -> bool:
    """Nothing left (spent has reached the limit) or the next attempt's estimate would pass it."""
    return spent >= limit or spent + estimate > limit


def _usd(x: float) -> str:
    return USD.format(x)


def verdict(c: Check) -> Verdict:
    """The first limit the next attempt may not pass: the run's own (only a person lifts it), then the month's, then
    the day's (the later reset first: waiting for the day alone would park again)."""
    for check in (_unknown_cost, _run_cost, _run_tokens, _window_month, _window_day):
        found = check(c)
        if found is not None:
            return found
    return Verdict(within=True)


def _run_cost_limit(c: Check) -> tuple[float | None, str]:
    if c.limits.max_cost_usd is not None:
        return c.limits.max_cost_usd, "max_cost_usd"
    return c.budgets.run_max_cost_usd, f"budgets.run_max_cost_usd of workspace {c.workspace!r}"


def _run_token_limit(c: Check) -> tuple[int | None, str]:
    if c.limits.max_tokens is not None:
        return c.limits.max_tokens, "max_tokens"
    return c.budgets.run_max_tokens, f"budgets.run_max_tokens of workspace {c.workspace!r}"


def _dollar_settings(c: Check) -> list[str]:
    run_limit, run_setting = _run_cost_limit(c)
    named = [run_setting] if run_limit is not None else []
    named += [f"budgets.{k} of workspace {c.workspace!r}" for k in ("daily_usd", "monthly_usd")
              if getattr(c.budgets, k) is not None]  # fmt: skip
    return named


def _unknown_cost(c: Check) -> Verdict | None:
    settings = _dollar_settings(c)
    if not settings:
        return None
    unknown = set(c.run.unknown) | set(c.day.unknown if c.day else ()) | set(c.month.unknown if c.month else ())
    if not c.model_priced:
        unknown.add(c.model)
    if not unknown:
        return None
    what = ", ".join(sorted(unknown))
    return Verdict(
        within=False,
        setting="prices",
        message=(
            f"budget: the cost of {what} is unknown (no price, or the answer reported no tokens), so "
            f"{' and '.join(settings)} cannot be enforced and the run does not spend blind; add the model under "
            f"`prices:` of workspace {c.workspace!r} (USD per million tokens) with `office workspace set`, or "
            f"remove the dollar budget, then `office runs resume {c.run_id}`"
        ),
    )


def _run_cost(c: Check) -> Verdict | None:
    limit, setting = _run_cost_limit(c)
    if limit is None or not exhausted(limit, c.run.cost_usd, c.estimate.cost_usd):
        return None
    return Verdict(
        within=False,
        setting=setting,
        message=(
            f"budget: run {c.run_id} has spent {_usd(c.run.cost_usd)} of its {setting} {_usd(limit)} and its next "
            f"turn is estimated at {_usd(c.estimate.cost_usd)} (its last answer's cost); raise it with "
            f"`office runs resume {c.run_id} --max-cost-usd AMOUNT`"
            + (" or in the workspace's budgets" if setting != "max_cost_usd" else "")
            + ", or cancel the run"
        ),
    )


def _run_tokens(c: Check) -> Verdict | None:
    limit, setting = _run_token_limit(c)
    if limit is None or not exhausted(limit, c.run.tokens, c.estimate.tokens):
        return None
    return Verdict(
        within=False,
        setting=setting,
        message=(
            f"budget: run {c.run_id} has used {c.run.tokens:,} tokens of its {setting} {limit:,} and its next turn "
            f"is estimated at {c.estimate.tokens:,} (its last answer's); raise it with "
            f"`office runs resume {c.run_id} --max-tokens COUNT`"
            + (" or in the workspace's budgets" if setting != "max_tokens" else "")
            + ", or cancel the run"
        ),
    )


def _window(c: Check, window: Window, limit: float | None, spent: Priced | None) -> Verdict | None:
    if limit is None or spent is None or not exhausted(limit, spent.cost_usd, c.estimate.cost_usd):
        return None
    key = "daily_usd" if window is Window.day else "monthly_usd"
    period = "today (UTC)" if window is Window.day else "this month (UTC)"
    resets = window_end(c.now, window)
    return Verdict(
        within=False,
        setting=f"budgets.{key}",
        resets_at=resets,
        message=(
            f"budget: workspace {c.workspace!r} has spent {_usd(spent.cost_usd)} of its budgets.{key} "
            f"{_usd(limit)} {period}, and run {c.run_id}'s next turn is estimated at {_usd(c.estimate.cost_usd)}; "
            f"raise budgets.{key} with `office workspace set` and `office runs resume {c.run_id}`, or it resumes "
            f"by itself at {resets:%Y-%m-%d %H:%M} UTC when the window resets"
        ),
    )


def _window_month(c: Check) -> Verdict | None:
    return _window(c, Window.month, c.budgets.monthly_usd, c.month)


def _window_day(c: Check) -> Verdict | None:
    return _window(c, Window.day, c.budgets.daily_usd, c.day)
