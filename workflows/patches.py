"""Patch gates of the office run whose question is asked only where the behaviour differs, so a happy run's
history carries no marker for them (each marker is a history event)."""

from temporalio import workflow

# Rate and quota waits (and the pacer's backlog) stopped counting toward the run's attempt cap.
CAPACITY_UNCOUNTED = "capacity-waits-uncounted-v1"


def capacity_uncounted() -> bool:
    """Asked at a capacity failure only: runs recorded before it counted every failed attempt."""
    return workflow.patched(CAPACITY_UNCOUNTED)
