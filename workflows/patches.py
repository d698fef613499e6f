"""Patch gates of the office run whose question is asked only where the behaviour differs, so a happy run's
history carries no marker for them (each marker is a history event)."""

from temporalio import workflow

# Rate and quota waits (and the pacer's backlog) stopped counting toward the run's attempt cap.
CAPACITY_UNCOUNTED = "capacity-waits-uncounted-v1"


def capacity_uncounted() -> bool:
    """Asked at a capacity failure only: runs recorded before it counted every failed attempt."""
    return workflow.patched(CAPACITY_UNCOUNTED)


# An agent that keeps not answering `initialize` on a route is counted, and its third stall moves the run on.
LAUNCH_STALLS_COUNTED = "launch-stalls-counted-v1"


def launch_stalls_counted() -> bool:
    """Asked at a launch stall only: a run whose stall was decided before took every stall as a lost worker."""
    return workflow.patched(LAUNCH_STALLS_COUNTED)


# An agent that keeps not starting with no other provider eligible ends the run at once, naming its profile.
LAUNCH_STALLS_END_ALONE = "launch-stalls-end-alone-v1"


def launch_stalls_end_alone() -> bool:
    """Asked only when an agent kept not starting with nothing else eligible: a run whose stall was decided before
    retried it as a lost worker until its worker losses ran out."""
    return workflow.patched(LAUNCH_STALLS_END_ALONE)


# An office run whose failure nobody could read parks for a person (the workspace's `unreadable_failure_wait`).
UNREADABLE_FAILURE_PARKS = "unreadable-failure-parks-v1"


def unreadable_failure_parks() -> bool:
    """Asked only where an office run's failure could not be read: a run whose failure was decided before failed at
    once."""
    return workflow.patched(UNREADABLE_FAILURE_PARKS)
