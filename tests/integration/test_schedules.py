"""Recurring runs on a real Temporal Schedule: a schedule every second starts office runs by itself, each a normal
run named after the schedule, which `office runs list` shows with the schedule's id; a paused schedule starts
none (its `trigger` still starts one), and a bad schedule is refused naming the field."""

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta

import pytest
from temporalio.client import ScheduleHandle
from temporalio.service import RPCError
from typer.testing import CliRunner

from office.cli import app
from office.run_input import SubmitError
from office.runs import list_views, wait_for_view
from office.schedule_request import ScheduleRequest
from office.schedules import create_schedule
from office.simulator.config import SimProvider
from routing.run import RunStatus, RunView
from testkit.eventually import eventually

pytestmark = pytest.mark.integration
EVERY = timedelta(seconds=1)


async def office(stack, *args: str) -> tuple[int, str, str]:
    """`office ARGS` against the stack, in this process (in a thread: the command runs its own event loop)."""
    env = {"TEMPORAL_ADDRESS": stack.temporal.address, "TEMPORAL_NAMESPACE": "default",
           "OFFICE_DATABASE_URL": stack.database_url, "OFFICE_TASK_QUEUE": stack.task_queue}  # fmt: skip
    result = await asyncio.to_thread(CliRunner().invoke, app, list(args), env=env)
    return result.exit_code, result.stdout, result.stderr


@contextlib.asynccontextmanager
async def created(stack, req: ScheduleRequest) -> AsyncIterator[ScheduleHandle]:
    """The schedule, deleted again however the test ends (the dev server is shared with the other tests)."""
    schedule = await create_schedule(stack.client, stack.store, req)
    try:
        yield schedule
    finally:
        with contextlib.suppress(RPCError):  # deleted by the test already
            await schedule.delete()


async def test_a_schedule_starts_runs_listed_with_its_id_and_a_paused_one_starts_none(stack):
    ws, agent, p = await stack.workspace({"sim": SimProvider()}, credential_env="OFFICE_CRED_TEST_KEY")
    name = f"every-second-{ws.removeprefix('ws-')}"
    req = ScheduleRequest(name=name, workspace=ws, agent=agent, prompt="Check the build", every=EVERY,
                          overlap="allow-all", task_queue=stack.task_queue)  # fmt: skip

    async def runs() -> list[RunView]:
        return await list_views(stack.client, query=f'TemporalScheduledById = "{name}"')

    async with created(stack, req) as schedule:
        started = await eventually(
            runs, until=lambda vs: sum(v.status is RunStatus.completed for v in vs) >= 2, timeout=30, interval=0.2,
            what="two scheduled runs completed",
        )  # fmt: skip
        assert all(v.schedule_id == name and v.run_id.startswith(f"{name}-") for v in started)
        assert {(v.workspace, v.agent) for v in started} == {(ws, agent)}

        code, _, err = await office(stack, "schedule", "pause", name)
        assert code == 0, err
        before = (await schedule.describe()).info.num_actions
        # A witness run started while paused (trigger still starts one), answered slowly: while it runs, a
        # schedule that was not paused would have started several more runs.
        await stack.simulator.set_provider(p["sim"], SimProvider(latency_ms=3000))
        await schedule.trigger()
        described = await eventually(
            schedule.describe, until=lambda d: d.info.num_actions > before, timeout=30, what="the triggered run"
        )
        witness = described.info.recent_actions[-1].action.workflow_id  # type: ignore[attr-defined]
        ended = await asyncio.wait_for(wait_for_view(stack.client, witness), timeout=60)
        assert ended.status is RunStatus.completed
        memo = await (await stack.client.get_workflow_handle(witness).describe()).memo()
        assert memo == {"priority": "batch", "schedule": name}  # kept for priority scheduling, not built yet
        after = await schedule.describe()
        assert after.schedule.state.paused and after.info.num_actions == before + 1
        # every action is a run (overlap allow-all): the runs listed are the ones before the pause and the witness
        listed = await eventually(runs, until=lambda vs: len(vs) >= before + 1, timeout=10, what="the runs listed")
        assert len(listed) == before + 1 and witness in {v.run_id for v in listed}

        query = f'TemporalScheduledById = "{name}"'
        code, out, err = await office(stack, "runs", "list", "--json", "--query", query)
        assert code == 0, err
        shown_runs = json.loads(out)
        assert witness in {r["run_id"] for r in shown_runs} and {r["schedule_id"] for r in shown_runs} == {name}

        with pytest.raises(SubmitError) as refused:  # `office schedule create` prints it as one line, exit 2
            await create_schedule(stack.client, stack.store, replace(req, name=f"{name}-x", workspace="no-such-ws"))
        assert refused.value.field == "workspace" and "office workspace set" in str(refused.value)

        async def listed_schedule() -> dict:
            code, out, err = await office(stack, "schedule", "list", "--json")
            assert code == 0, err
            return next((s for s in json.loads(out) if s["name"] == name), {})

        shown = await eventually(
            listed_schedule, until=lambda s: s.get("paused"), timeout=10, what="the paused schedule in the list"
        )
        assert (shown["workspace"], shown["agent"], shown["priority"], shown["spec"]) == (
            ws,
            agent,
            "batch",
            "every 1s",
        )
        assert witness in shown["recent_runs"]
        code, _, err = await office(stack, "schedule", "delete", name)
        assert code == 0, err
        code, _, err = await office(stack, "schedule", "trigger", name)
        assert code == 2 and f"there is no schedule {name!r}" in err
