"""A turn's progress events, stored while the turn runs so `office watch` can stream them: the executor feeds a
pure `ProgressLog` (routing.progress) as the agent's updates arrive, and a task here takes its ready events every
FLUSH_S and appends them to the store (store.run_events) in one write. Progress is a courtesy: a store that is
slow or down drops a batch (logged) and never slows or fails the turn. Nothing of it goes into workflow history."""

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from routing.progress import ProgressLog
from store.repository import Store
from store.rows import utcnow

log = logging.getLogger(__name__)
FLUSH_S = 0.5  # how often a running turn's events are stored: how far `office watch` trails the agent
WRITE_TIMEOUT_S = 5.0


class RunEventWriter:
    def __init__(self, store: Store, run_id: str, attempt: int, progress: ProgressLog) -> None:
        self.store, self.run_id, self.attempt, self.progress = store, run_id, attempt, progress
        self._failures = 0

    async def flush(self, final: bool = False) -> None:
        events = self.progress.take(utcnow(), final)
        if not events:
            return
        try:
            await asyncio.wait_for(self.store.run_events.append(self.run_id, self.attempt, events), WRITE_TIMEOUT_S)
        except Exception as err:  # the store's outage is the turn's to meet, not its progress's
            self._failures += 1
            if self._failures == 1:
                log.warning("run %s: progress events not stored (%s); the turn goes on", self.run_id, err)

    async def run(self) -> None:
        while True:
            await asyncio.sleep(FLUSH_S)
            await self.flush()


@contextlib.asynccontextmanager
async def recording(store: Store, run_id: str, attempt: int) -> AsyncIterator[ProgressLog]:
    """A `ProgressLog` for the block, stored every FLUSH_S and once more (everything) when the block ends."""
    progress = ProgressLog()
    writer = RunEventWriter(store, run_id, attempt, progress)
    task = asyncio.create_task(writer.run())
    try:
        yield progress
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await asyncio.shield(writer.flush(final=True))
