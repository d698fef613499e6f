"""WatchdogWorkflow: run by a Temporal Schedule; clears stale automatic selection state and audits it.
It should find nothing (the failover path cannot write preferences); it is a backstop, never the fix."""

from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from contracts import stubs
    from contracts.watchdog import ClearedSelection, SweepRequest, WatchdogInput


@workflow.defn
class WatchdogWorkflow:
    @workflow.run
    async def run(self, inp: WatchdogInput) -> list[ClearedSelection]:
        cleared = await workflow.execute_activity(
            stubs.sweep_automatic_selections,
            SweepRequest(max_age_s=inp.max_age_s, watchdog_run=workflow.info().workflow_id),
            start_to_close_timeout=timedelta(minutes=2),
            summary=f"clear automatic selection state older than {inp.max_age_s:g}s",
        )
        return cleared
