"""The run's budgets in the office run: before each attempt (a turn, a retry, a fallback) the run asks whether it
may still spend (a local activity: the workspace's budgets and spend from the store, the run's own spend from its
view; routing.budget decides). While it may not, the run is parked as `budget_exhausted` with a message naming the
setting to raise; it goes on when its window resets (a durable timer), when `office runs resume` is sent (the
check runs again), or when `office runs resume --max-cost-usd/--max-tokens` raises its own limits.

A run with no limit of its own, in a workspace without budgets (its route plan says), asks nothing: its history
carries no check at all."""

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from contracts import stubs
    from contracts.activities import BudgetRequest
    from routing.budget import RunLimits, Verdict, run_spend
    from routing.decider import ParkReason
    from routing.run import Candidate, RoutePlan, RunRequest, RunStatus, RunView

STATE_RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_interval=timedelta(seconds=30))
LOCAL = timedelta(seconds=30)


class RunBudget:
    def __init__(
        self, view: Callable[[], RunView], publish: Callable[[], None], on_park: Callable[[], Awaitable[None]]
    ) -> None:
        self._view, self._publish, self._on_park = view, publish, on_park
        self.limits = RunLimits()
        self._woken = False

    def start(self, req: RunRequest) -> None:
        self.limits = RunLimits(max_cost_usd=req.max_cost_usd, max_tokens=req.max_tokens)

    def wake(self) -> None:
        """`office runs resume`: a run parked on its budget checks again."""
        self._woken = True

    def raise_to(self, limits: RunLimits) -> None:
        """The user raised the run's own limits (those `limits` sets); a parked run checks again."""
        self.limits, self._woken = self.limits.raised(limits), True

    async def hold(self, req: RunRequest, plan: RoutePlan, cand: Candidate) -> None:
        """Returns when the attempt on `cand` may start; parks the run while it may not."""
        while self.limits.any or plan.budgets is not None:
            spent, estimate = run_spend(self._view().attempts)
            verdict = await workflow.execute_local_activity(
                stubs.check_budget,
                BudgetRequest(run_id=req.run_id, workspace=req.workspace, provider=cand.provider,
                              model=cand.requested_model, limits=self.limits, spent=spent, estimate=estimate),
                start_to_close_timeout=LOCAL, retry_policy=STATE_RETRY, summary="budget check",
            )  # fmt: skip
            if verdict.within:
                return
            await self._park(verdict)

    async def _park(self, verdict: Verdict) -> None:
        view = self._view()
        view.status, view.park_reason, view.message = RunStatus.parked, ParkReason.budget_exhausted, verdict.message
        self._publish()
        await self._on_park()  # a run that may not spend holds no live agent session while it waits
        self._woken = False
        timeout = None
        if verdict.resets_at is not None:
            timeout = max(verdict.resets_at - workflow.now(), timedelta(seconds=1))
        with contextlib.suppress(asyncio.TimeoutError):
            await workflow.wait_condition(
                lambda: self._woken, timeout=timeout, timeout_summary=f"parked: budget ({verdict.setting})"
            )
        view.status, view.park_reason, view.message = RunStatus.running, None, None
        self._publish()
