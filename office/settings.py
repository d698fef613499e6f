"""Settings from the environment: the standard Temporal variables plus OFFICE_*."""

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from contracts.activities import TASK_QUEUE

DEFAULT_DATA_DIR = ".office-data"


@dataclass(frozen=True)
class Settings:
    database_url: str
    task_queue: str
    work_dir: str  # OFFICE_WORK_DIR: the worker's repository mirrors and per-run working copies

    @classmethod
    def from_env(cls) -> "Settings":
        return cls(
            database_url=os.environ.get("OFFICE_DATABASE_URL", f"sqlite:///{DEFAULT_DATA_DIR}/office.db"),
            task_queue=os.environ.get("OFFICE_TASK_QUEUE", TASK_QUEUE),
            work_dir=work_dir_from_env(),
        )


@dataclass(frozen=True)
class WorkerSizing:
    """How much one worker process takes on at once (the scale bench measures these defaults)."""

    max_concurrent_activities: int = 1000  # turns mostly wait on the provider: slots are cheap coroutines
    max_cached_workflows: int = 2000  # above the runs in flight, so a busy worker never replays from scratch
    max_live_agents: int | None = None  # live ACP agent processes; None: derived from the machine's memory

    @classmethod
    def from_env(cls) -> "WorkerSizing":
        def number(name: str, default: int | None) -> int | None:
            raw = os.environ.get(name)
            return int(raw) if raw else default

        defaults = cls()
        return cls(
            max_concurrent_activities=number("OFFICE_MAX_CONCURRENT_ACTIVITIES", defaults.max_concurrent_activities)
            or defaults.max_concurrent_activities,
            max_cached_workflows=number("OFFICE_MAX_CACHED_WORKFLOWS", defaults.max_cached_workflows)
            or defaults.max_cached_workflows,
            max_live_agents=number("OFFICE_MAX_LIVE_AGENTS", None),
        )


def work_dir_from_env() -> str:
    """OFFICE_WORK_DIR, else `office-work` under the system temp dir. Nothing there outlives a pushed turn's
    need: another worker continues a run from its branch."""
    return os.environ.get("OFFICE_WORK_DIR") or str(Path(tempfile.gettempdir()) / "office-work")
