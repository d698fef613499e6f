"""The task queue office runs and their activities are on (OFFICE_TASK_QUEUE overrides it per process)."""

TASK_QUEUE = "office-runs"
