from office.runs import submit, wait_for_view
from office.stack import Stack
from routing.run import RunView


async def run_to_end(stack: Stack, workspace: str, agent: str, prompt: str = "Fix the failing test") -> RunView:
    handle = await submit(stack.client, stack.store, workspace, agent, prompt, task_queue=stack.task_queue)
    return await wait_for_view(stack.client, handle.id)


def calls_to(stack: Stack, provider: str) -> list[dict]:
    return [c for c in stack.simulator.sim.calls if c["provider"] == provider]
