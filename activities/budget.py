"""Before an attempt: the run's own budget and its workspace's daily and monthly budgets against what was spent
(routing.budget decides). Local: it runs in the run's own workflow task, and its answer is recorded in the run's
history, so a replay takes the same path whatever the store holds by then."""

from temporalio import activity

from activities.boundary import local_only
from activities.pricing import cost_usd
from contracts.activities import Activity, BudgetRequest
from routing.budget import Check, Priced, Verdict, Window, priced, verdict, window_start
from routing.usage import Usage
from store.repository import Store
from store.rows import utcnow

PROBE = Usage(input_tokens=1, output_tokens=1)  # whether a model has a price at all


class BudgetActivities:
    def __init__(self, store: Store):
        self.store = store

    @activity.defn(name=Activity.check_budget)
    async def check_budget(self, req: BudgetRequest) -> Verdict:
        local_only(Activity.check_budget)
        workspace = await self.store.get_workspace(req.workspace)
        if workspace is None:  # the run's next route resolution fails naming it
            return Verdict(within=True)
        budgets, prices, now = workspace.budgets, workspace.prices, utcnow()

        def price(provider: str, model: str | None, usage: Usage) -> float | None:
            return cost_usd(provider, model, usage, prices)

        async def window(limit: float | None, which: Window) -> Priced | None:
            if limit is None:
                return None
            return priced(await self.store.budgets.workspace_spend(req.workspace, window_start(now, which)), price)

        return verdict(
            Check(
                run_id=req.run_id,
                workspace=req.workspace,
                now=now,
                budgets=budgets,
                limits=req.limits,
                run=priced(req.spent, price),
                estimate=req.estimate,
                model_priced=price(req.provider, req.model, PROBE) is not None,
                model=f"{req.provider}/{req.model}",
                day=await window(budgets.daily_usd, Window.day),
                month=await window(budgets.monthly_usd, Window.month),
            )
        )
