"""Heartbeats while an activity waits (for a provider, a pacing slot or the store): a lost worker shows up within
the heartbeat timeout, a cancellation reaches the activity promptly, and the details (counts and states, never
content) are what the Temporal UI shows on the pending activity."""

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from typing import Any

from temporalio import activity


def beat(details: Any = None) -> None:
    """One heartbeat, when there is an activity to beat for (store helpers also run outside activities, and local
    activities have no heartbeat)."""
    if activity.in_activity() and not activity.info().is_local:
        activity.heartbeat(*([details] if details else []))


def beat_interval_s(heartbeat_timeout_s: float) -> float:
    """A third of the heartbeat timeout: two beats may go missing before the server calls the worker lost. No
    shorter: the SDK sends the server at most one beat per 0.8 of the timeout anyway (its throttle), so more
    frequent beats cost worker CPU and tell the server nothing sooner."""
    return heartbeat_timeout_s / 3


@contextlib.asynccontextmanager
async def heartbeating(details: Callable[[], Any] | None = None) -> AsyncIterator[None]:
    """Heartbeats every third of the heartbeat timeout (every 5 s without one) until the block ends."""
    every_s, first_s = 5.0, 0.0
    if activity.in_activity() and (timeout := activity.info().heartbeat_timeout):
        every_s = beat_interval_s(timeout.total_seconds())
        # The activity's start tells the server it is alive: a plain beat is due a beat's interval after it, not
        # at once (a short turn then sends none, one RPC fewer per turn). A beat with details is news: at once.
        if details is None:
            age_s = (datetime.now(UTC) - activity.info().started_time).total_seconds()
            first_s = min(every_s, max(0.0, every_s - age_s))  # a worker clock behind the server's: not later

    async def loop() -> None:
        await asyncio.sleep(first_s)
        while True:
            beat(details() if details else None)
            await asyncio.sleep(every_s)

    task = asyncio.create_task(loop())
    try:
        yield
    finally:
        task.cancel()
