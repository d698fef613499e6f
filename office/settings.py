"""Settings from the environment: the standard Temporal variables plus OFFICE_*."""

import os
from dataclasses import dataclass
from pathlib import Path

from activities.workdir import default_work_dir
from contracts.queues import TASK_QUEUE

DEFAULT_DATA_DIR = ".office-data"
DEFAULT_UI_URL = "http://127.0.0.1:8233"  # the dev server's UI (office dev)


@dataclass(frozen=True)
class Settings:
    database_url: str
    task_queue: str
    work_dir: str  # OFFICE_WORK_DIR: the worker's repository mirrors and per-run working copies
    ui_url: str = DEFAULT_UI_URL  # OFFICE_UI_URL: the Temporal UI that notifications link a run to

    @classmethod
    def from_env(cls) -> "Settings":
        return cls(
            database_url=os.environ.get("OFFICE_DATABASE_URL", f"sqlite:///{DEFAULT_DATA_DIR}/office.db"),
            task_queue=os.environ.get("OFFICE_TASK_QUEUE", TASK_QUEUE),
            work_dir=work_dir_from_env(),
            ui_url=ui_url_from_env(),
        )


@dataclass(frozen=True)
class WorkerSizing:
    """How much one worker process takes on at once (the scale bench measures these defaults)."""

    # Turns in progress. A turn mostly waits on its provider, so a slot is a cheap coroutine; above the runs in flight
    # (as the cache is): with exactly as many slots as turns, a turn held up by a busy moment keeps the next run's
    # turn waiting for its slot, and that wait is passed on from run to run, one turn hold after another.
    max_concurrent_activities: int = 2000
    max_cached_workflows: int = 2000  # above the runs in flight, so a busy worker never replays from scratch
    max_live_agents: int | None = None  # live ACP agent processes; None: derived from the machine's memory
    db_pool_size: int = 20  # store connections kept (half as many more in a burst); all processes share the server's
    # Workflow tasks a process works on at once. A task once taken is never preempted and shares the process with
    # every other one in progress, so few keep a burst's backlog on the server, where tasks are dispatched by
    # priority and fairly between workspaces (the SDK's 100 let one workspace's flood slow another's run starts
    # most); enough that a task waiting on its local activities (the store, a gate) does not stall the rest.
    max_concurrent_workflow_tasks: int = 8

    def live_agents_limit(self) -> int:
        """The limit this worker enforces: the configured one, else what fits in its memory (0: the default)."""
        if self.max_live_agents is not None and self.max_live_agents < 0:
            raise ValueError(f"OFFICE_MAX_LIVE_AGENTS must be 1 or more, not {self.max_live_agents}")
        return self.max_live_agents or default_max_live_agents()

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
            db_pool_size=number("OFFICE_DB_POOL_SIZE", defaults.db_pool_size) or defaults.db_pool_size,
            max_concurrent_workflow_tasks=number(
                "OFFICE_MAX_CONCURRENT_WORKFLOW_TASKS", defaults.max_concurrent_workflow_tasks
            )
            or defaults.max_concurrent_workflow_tasks,
        )


# What one live Claude Code session (sandbox + claude-agent-acp bridge + CLI) needs, with room for a conversation's
# growth and the tools the agent runs (its measured size: docs/benchmarks.md).
AGENT_BUDGET_MB = 512
MEMORY_SHARE = 0.75  # of the worker's memory, for its agents: the rest for the worker itself and the OS


def memory_mb() -> int:
    """The memory this worker may use: the machine's, or its cgroup's limit (a container) when lower."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            raw = Path(path).read_text().strip()
        except OSError:
            continue
        if raw.isdigit():  # "max": no limit
            total = min(total, int(raw))
    return total // (1024 * 1024)


def default_max_live_agents(total_mb: int | None = None) -> int:
    """Live ACP agent processes per worker when OFFICE_MAX_LIVE_AGENTS is unset: what fits in its memory."""
    total_mb = memory_mb() if total_mb is None else total_mb
    return max(1, int(total_mb * MEMORY_SHARE) // AGENT_BUDGET_MB)


def work_dir_from_env() -> str:
    """OFFICE_WORK_DIR, else `work` in the user's private state directory (activities/workdir.py)."""
    return default_work_dir()


def ui_url_from_env() -> str:
    """OFFICE_UI_URL: where users open the Temporal UI (a notification links the run there)."""
    return os.environ.get("OFFICE_UI_URL", "").strip() or DEFAULT_UI_URL
