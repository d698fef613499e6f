"""The watchdog's activity: a backstop clean-up of automatic selection state (see store/watchdog.py), and the
progress events of runs long over (store/run_events.py)."""

from datetime import timedelta

from temporalio import activity

from activities.boundary import RunBoundary
from contracts.activities import Activity
from contracts.watchdog import ClearedSelection, SweepRequest
from store.repository import Store
from store.rows import utcnow
from store.run_events import RUN_EVENTS_KEPT
from store.watchdog import sweep_stale_automatic_state


class WatchdogActivities:
    def __init__(self, store: Store, boundary: RunBoundary):
        self.store, self.boundary = store, boundary

    @activity.defn(name=Activity.sweep_automatic_selections)
    async def sweep_automatic_selections(self, req: SweepRequest) -> list[ClearedSelection]:
        await self.boundary.check_caller("WatchdogWorkflow")  # it writes selections and audit records
        audits = await sweep_stale_automatic_state(
            self.store, timedelta(seconds=req.max_age_s), actor=f"watchdog:{req.watchdog_run}"
        )
        await self.store.run_events.prune(utcnow() - RUN_EVENTS_KEPT)  # `office watch` output of runs long over
        return [
            ClearedSelection(
                agent=a.agent,
                kind=a.kind,
                value=list(a.value),
                source=a.source,
                written_by_run=a.written_by_run,
                reason=a.reason,
            )
            for a in audits
        ]
