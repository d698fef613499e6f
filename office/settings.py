"""Settings from the environment: the standard Temporal variables plus OFFICE_*."""

import os
from dataclasses import dataclass

from contracts.activities import TASK_QUEUE

DEFAULT_DATA_DIR = ".office-data"


@dataclass(frozen=True)
class Settings:
    database_url: str
    task_queue: str

    @classmethod
    def from_env(cls) -> "Settings":
        return cls(
            database_url=os.environ.get("OFFICE_DATABASE_URL", f"sqlite:///{DEFAULT_DATA_DIR}/office.db"),
            task_queue=os.environ.get("OFFICE_TASK_QUEUE", TASK_QUEUE),
        )
