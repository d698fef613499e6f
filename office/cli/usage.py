"""`office usage`: tokens and cost by workspace, agent, provider and model over a period, from the attempt rows
(every attempt the office made, failed ones too when their executor reported usage)."""

import re
from dataclasses import asdict
from datetime import UTC, date, datetime, timedelta
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from office.cli.common import JsonFlag, console, fail, print_json, run_with_services

if TYPE_CHECKING:
    from routing.usage import Usage
    from store.attempts import UsageGroup

_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
SINCE_HELP = "The period's start: a duration back from now (30m, 24h, 7d, 2w) or an ISO date or time (UTC if no zone)."


def parse_since(text: str, now: datetime) -> datetime:
    """`24h`, `7d`, … back from `now`, or an ISO date (its midnight, UTC) or time; ValueError naming the forms."""
    text = text.strip()
    if match := re.fullmatch(r"(\d+)\s*([mhdw])", text):
        return now - timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            day = date.fromisoformat(text)
            return datetime(day.year, day.month, day.day, tzinfo=UTC)
        at = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(
            f"--since {text!r} is neither a duration (30m, 24h, 7d, 2w) nor an ISO date or time (2026-12-01)"
        ) from None
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def period_from(since: str) -> tuple[datetime, datetime]:
    """(start, now) of the period `--since` names; a bad value exits with one line naming the forms."""
    now = datetime.now(UTC)
    try:
        return parse_since(since, now), now
    except ValueError as err:
        fail(str(err))


def tokens_text(usage: "Usage | None") -> str:
    """`in 1,200 (cached 800) / out 300`, or `-` when the executor reported nothing."""
    if usage is None:
        return "-"
    cached = usage.cache_read_tokens + usage.cache_write_tokens
    note = f" (cached {cached:,})" if cached else ""
    return f"in {usage.input_tokens:,}{note} / out {usage.output_tokens:,}"


def cost_text(cost_usd: float | None) -> str:
    return "-" if cost_usd is None else f"${cost_usd:,.4f}"


def price_table() -> str:
    """The maintained price table this installation prices with (the workspaces' `prices:` come first)."""
    try:
        return f"genai-prices {version('genai-prices')}"
    except PackageNotFoundError:
        return "genai-prices (not installed)"


def report(groups: "list[UsageGroup]", since: datetime, until: datetime) -> dict[str, Any]:
    """The JSON `office usage --json` prints: the groups and their totals (cost: the priced attempts'; `unpriced`
    counts attempts whose tokens have no price, so the cost is a lower bound when it is not 0)."""
    keys = ("attempts", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "unpriced")
    totals: dict[str, Any] = {k: sum(getattr(g, k) for g in groups) for k in keys}
    costs = [g.cost_usd for g in groups if g.cost_usd is not None]
    totals["cost_usd"] = sum(costs) if costs else None
    return {
        "since": since.isoformat(),
        "until": until.isoformat(),
        "price_table": price_table(),
        "groups": [asdict(g) for g in groups],
        "totals": totals,
    }


def usage(
    since: Annotated[str, typer.Option(help=SINCE_HELP)] = "24h",
    workspace: Annotated[str | None, typer.Option(help="Only this workspace's attempts.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Tokens and cost by workspace, agent, provider and model since a time (every attempt, failed ones too)."""
    start, now = period_from(since)
    groups = run_with_services(lambda s: s.store.usage_since(start, workspace), store=True)
    data = report(groups, start, now)
    if as_json:
        print_json(data)
        return
    table = Table("workspace", "agent", "provider", "model", "attempts", "input", "cached", "output", "cost")
    for g in groups:
        table.add_row(
            g.workspace or "-", g.agent or "-", g.provider, g.model or "-", str(g.attempts), f"{g.input_tokens:,}",
            f"{g.cache_read_tokens + g.cache_write_tokens:,}", f"{g.output_tokens:,}", cost_text(g.cost_usd),
        )  # fmt: skip
    console.print(table)
    t = data["totals"]
    unpriced = (
        f"; {t['unpriced']} attempt(s) with tokens have no price (add it under `prices:`)" if t["unpriced"] else ""
    )
    console.print(
        f"since {start:%Y-%m-%d %H:%M} UTC: {t['attempts']} attempts, in {t['input_tokens']:,} / out "
        f"{t['output_tokens']:,} tokens, {cost_text(t['cost_usd'])}{unpriced}"
    )
    console.print(f"priced by each workspace's `prices:`, else {price_table()}")
