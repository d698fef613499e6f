"""What `office schedule create` asks for, checked without Temporal or the store: the CLI checks a request here
before it connects (and imports the client); office.schedules checks it again before it creates anything."""

import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Literal

from contracts.queues import TASK_QUEUE
from office.run_input import SubmitError, validate_limits

Priority = Literal["interactive", "default", "batch"]
PRIORITIES: tuple[Priority, ...] = ("interactive", "default", "batch")
# When a run is due while the last one still runs (Temporal's ScheduleOverlapPolicy, in the CLI's spelling).
OVERLAP_POLICIES = ("skip", "buffer-one", "buffer-all", "cancel-other", "terminate-other", "allow-all")
# A schedule's runs are named NAME-<time>: the name leaves room for the time within a run id's 200 characters.
NAME_PATTERN = r"^[a-z0-9][a-z0-9_.-]{0,62}$"
CRON_FIELD = re.compile(r"^[0-9A-Za-z*/,?#-]+$")
INTERVAL = re.compile(r"^(\d+)(s|m|h|d)$")
UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}


def validate_name(name: str) -> None:
    if not re.match(NAME_PATTERN, name):
        raise SubmitError(
            "name",
            f"{name!r} is not a schedule name: use 1-63 lowercase letters, digits and . _ - (e.g. nightly-tests)",
        )


def cron_problem(cron: str) -> str | None:
    """What is plainly wrong with a cron string, before the server checks the rest (None: nothing seen)."""
    text = cron.strip()
    if text.startswith("@"):  # @daily, @hourly, @every 10m, … (the server knows them)
        return None
    fields = text.split()
    if len(fields) not in (5, 6, 7) or not all(CRON_FIELD.match(f) for f in fields):
        return f'{cron!r} is not a cron expression: give five fields, minute hour day month weekday, e.g. "0 3 * * *"'
    return None


def parse_interval(text: str) -> timedelta:
    """`30s`, `15m`, `2h`, `1d` → the interval; SubmitError naming --interval otherwise."""
    found = INTERVAL.match(text.strip())
    if not found or int(found.group(1)) < 1:
        raise SubmitError("interval", f"{text!r} is not an interval: give a whole number and s, m, h or d, e.g. 30m")
    return timedelta(**{UNITS[found.group(2)]: int(found.group(1))})


@dataclass
class ScheduleRequest:
    """What `office schedule create` asks for."""

    name: str
    workspace: str
    agent: str
    prompt: str
    cron: str | None = None
    every: timedelta | None = None
    overlap: str = "skip"
    priority: Priority = "batch"
    tier: str | None = None
    max_cost_usd: float | None = None
    max_tokens: int | None = None
    task_queue: str = TASK_QUEUE

    def check_offline(self) -> None:
        """What needs neither Temporal nor the store: the name, the spec, the policies and the budget."""
        validate_name(self.name)
        if (self.cron is None) == (self.every is None):
            raise SubmitError("cron", 'give exactly one of --cron "0 3 * * *" or --interval 1h')
        if self.cron is not None and (problem := cron_problem(self.cron)):
            raise SubmitError("cron", problem)
        if self.overlap not in OVERLAP_POLICIES:
            raise SubmitError("overlap", f"{self.overlap!r} is not a policy; use one of {', '.join(OVERLAP_POLICIES)}")
        if self.priority not in PRIORITIES:
            raise SubmitError("priority", f"{self.priority!r} is not a priority; use one of {', '.join(PRIORITIES)}")
        validate_limits(self.max_cost_usd, self.max_tokens)
