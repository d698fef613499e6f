"""Budgets through the real stack: the simulator reports each answer's tokens and the workspace prices the model
(`prices:`), so every cost is exact. A run parks as budget_exhausted before the turn that would pass its
max_cost_usd, and goes on once `office runs resume --max-cost-usd` raises it; a workspace's monthly budget parks
the next run before its first attempt, naming the setting."""

import asyncio

import pytest
from typer.testing import CliRunner

from office.cli import app
from office.runs import run_view, wait_for_view
from office.simulator.config import SimProvider
from routing.budget import Budgets
from routing.decider import ParkReason
from routing.run import RunStatus
from routing.usage import ModelPrice
from testkit.runs import run_to_end, submit_run
from workflows.office_run import OfficeRunWorkflow

from .helpers import calls_to, wait_for_status

pytestmark = pytest.mark.integration
PRICE = ModelPrice(input_per_million=3.0, output_per_million=15.0, cache_read_per_million=0.3)
FOLLOW_UPS = ["And the lexer?"]


async def office(stack, *args: str) -> tuple[int, str, str]:
    """`office ARGS` against the stack, in this process (in a thread: the command runs its own event loop)."""
    env = {"TEMPORAL_ADDRESS": stack.temporal.address, "TEMPORAL_NAMESPACE": "default",
           "OFFICE_DATABASE_URL": stack.database_url, "OFFICE_TASK_QUEUE": stack.task_queue}  # fmt: skip
    result = await asyncio.to_thread(CliRunner().invoke, app, list(args), env=env)
    return result.exit_code, result.stdout, result.stderr


async def priced_workspace(stack, budgets: Budgets | None = None) -> tuple[str, str, str]:
    ws, agent, p = await stack.workspace({"sim": SimProvider()}, credential_env="OFFICE_CRED_TEST_KEY")
    config = await stack.store.get_workspace(ws)
    update = {"prices": {"sim-small": PRICE}, "budgets": budgets or Budgets()}
    await stack.store.save_workspace(config.model_copy(update=update))
    return ws, agent, p["sim"]


async def test_a_run_parks_before_the_turn_that_would_pass_its_max_cost_and_continues_when_it_is_raised(stack):
    ws, agent, provider = await priced_workspace(stack)
    free = await run_to_end(stack, ws, agent, "Explain the parser", follow_ups=FOLLOW_UPS, within_s=60)
    costs = [a.cost_usd for a in free.attempts]
    assert free.status is RunStatus.completed and len(costs) == 2 and all(costs)
    first, second = costs[0], costs[1]

    # Room for one turn and a half: the second turn would pass the budget, so the run parks before it.
    budget = first * 1.5
    assert first < budget < first + second
    calls_before = len(calls_to(stack, provider))
    handle = await submit_run(stack, ws, agent, "Explain the parser", follow_ups=FOLLOW_UPS, max_cost_usd=budget)
    parked = await wait_for_status(stack, handle.id, RunStatus.parked)
    assert parked.park_reason is ParkReason.budget_exhausted
    assert [a.cost_usd for a in parked.attempts] == [pytest.approx(first)]  # one turn, and no attempt at the second
    assert parked.cost_usd == pytest.approx(first) and parked.cost_usd < budget
    assert "max_cost_usd" in parked.message and f"office runs resume {handle.id} --max-cost-usd" in parked.message
    assert len(calls_to(stack, provider)) == calls_before + 1

    code, _, err = await office(stack, "runs", "resume", handle.id, "--max-cost-usd", str(sum(costs) * 2))
    assert code == 0, err
    done = await asyncio.wait_for(wait_for_view(stack.client, handle.id), timeout=60)
    assert done.status is RunStatus.completed and len(done.attempts) == 2
    assert done.cost_usd == pytest.approx(sum(costs))


async def test_a_workspace_monthly_budget_parks_the_next_run_before_its_first_attempt(stack):
    ws, agent, provider = await priced_workspace(stack, Budgets(monthly_usd=1e-9))
    spent = await run_to_end(stack, ws, agent, "Explain the parser", within_s=60)  # nothing spent yet: it runs
    assert spent.status is RunStatus.completed and spent.cost_usd > 1e-9

    calls = len(calls_to(stack, provider))
    handle = await submit_run(stack, ws, agent, "Explain the lexer")
    parked = await wait_for_status(stack, handle.id, RunStatus.parked)
    assert parked.park_reason is ParkReason.budget_exhausted and parked.attempts == []
    assert "budgets.monthly_usd" in parked.message and "resumes by itself at" in parked.message
    assert len(calls_to(stack, provider)) == calls

    config = await stack.store.get_workspace(ws)
    await stack.store.save_workspace(config.model_copy(update={"budgets": Budgets(monthly_usd=10.0)}))
    await stack.client.get_workflow_handle(handle.id).signal(OfficeRunWorkflow.resume)  # `office runs resume`
    done = await asyncio.wait_for(wait_for_view(stack.client, handle.id), timeout=60)
    assert done.status is RunStatus.completed and len(done.attempts) == 1
    assert (await run_view(stack.client, handle.id)).message is None
