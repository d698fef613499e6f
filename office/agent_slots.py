"""A per-worker limit on live ACP agent processes, enforced with Temporal's worker slot tuning.

`acp_start` is the only activity that creates an agent process, and it runs on its own task queue
(`contracts.activities.acp_start_queue`). The worker polling that queue gets its activity slots from `AgentSlots`,
which hands out a slot only while (live agent processes of this worker + starts in progress) < limit. A start
beyond the limit is therefore never polled: it waits in Temporal's task queue (durable, visible as a scheduled
activity, no attempt made) and no process is started. A live process keeps its place after its start's slot is
released: the place frees only when the process has exited (closed by its run, its failed turn or the idle reaper).
"""

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable

from temporalio.worker import (
    CustomSlotSupplier,
    SlotMarkUsedContext,
    SlotPermit,
    SlotReleaseContext,
    SlotReserveContext,
)

log = logging.getLogger(__name__)


class AgentSlots(CustomSlotSupplier):
    """`live()` counts this worker's agent processes (until each has exited); call `changed()` whenever it drops."""

    def __init__(self, limit: int, live: Callable[[], int]):
        if limit < 1:
            raise ValueError(f"the live agent limit must be 1 or more, not {limit}")
        self.limit, self._live = limit, live
        # release_slot and try_reserve_slot are called from the SDK core's threads, reserve_slot on the event loop.
        self._lock = threading.Lock()
        self._starts = 0  # slots reserved and not yet released: pollers waiting for a start, starts running
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake = asyncio.Event()
        self._full_logged_at = float("-inf")

    def in_use(self) -> int:
        return self._starts + self._live()

    def _take(self) -> SlotPermit | None:
        with self._lock:
            if self._starts + self._live() >= self.limit:
                return None
            self._starts += 1
            return SlotPermit()

    async def reserve_slot(self, ctx: SlotReserveContext) -> SlotPermit:
        self._loop = asyncio.get_running_loop()
        while True:
            # Check and clear with no await in between: a wake scheduled after the check runs after the clear.
            if (permit := self._take()) is not None:
                return permit
            self._wake.clear()
            if time.monotonic() - self._full_logged_at > 60:  # an operator sees it, a busy worker does not flood
                self._full_logged_at = time.monotonic()
                log.info(
                    "at the limit of %d live agent processes: agent session starts wait in the task queue", self.limit
                )
            await self._wake.wait()

    def try_reserve_slot(self, ctx: SlotReserveContext) -> SlotPermit | None:
        return self._take()

    def mark_slot_used(self, ctx: SlotMarkUsedContext) -> None:
        pass

    def release_slot(self, ctx: SlotReleaseContext) -> None:
        with self._lock:
            self._starts -= 1
        self.changed()

    def changed(self) -> None:
        """Thread-safe: wakes the waiting reservations to count again."""
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the worker's loop is gone: nobody is waiting
                loop.call_soon_threadsafe(self._wake.set)
