"""The watchdog's workflow and activity contract."""

from pydantic import BaseModel

SCHEDULE_ID = "office-watchdog"


class WatchdogInput(BaseModel):
    max_age_s: float = 3600.0


class SweepRequest(BaseModel):
    max_age_s: float
    watchdog_run: str


class ClearedSelection(BaseModel):
    agent: str
    kind: str
    value: list[str]
    source: str
    written_by_run: str | None
    reason: str
