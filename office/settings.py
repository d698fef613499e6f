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


def work_dir_from_env() -> str:
    """OFFICE_WORK_DIR, else `office-work` under the system temp dir. Nothing there outlives a pushed turn's
    need: another worker continues a run from its branch."""
    return os.environ.get("OFFICE_WORK_DIR") or str(Path(tempfile.gettempdir()) / "office-work")
