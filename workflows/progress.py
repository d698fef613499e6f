"""What users see of a run while it goes: the current details the Temporal UI shows on the run (the step it is on,
then its branch) and the view's `retry_at` while a short retry waits (`office watch` counts it down). Current
details are the workflow's state, not commands: replays are unchanged by them. Deterministic: built from the
run's own state only."""

from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from routing.run import RunView


class CurrentDetails:
    def __init__(self) -> None:
        self._step, self._branch = "", ""

    def step(self, text: str) -> None:
        """The step the run is on: starting the agent, a turn, a retry's wait, parked, waiting for a person."""
        self._step = text
        self._show()

    def branch(self, text: str) -> None:
        """The run's branch after its last completed turn."""
        self._branch = text
        self._show()

    def _show(self) -> None:
        workflow.set_current_details("\n\n".join(t for t in (self._step, self._branch) if t))


async def short_retry(view: RunView, details: CurrentDetails, delay_s: float) -> None:
    """The decider's short retry on the same route: the wait, with its end in the view while it lasts."""
    provider = view.provider or "the same route"
    view.retry_at = workflow.now() + timedelta(seconds=delay_s)
    details.step(f"retrying on {provider} in {delay_s:.0f} s (at {view.retry_at:%H:%M:%S} UTC)")
    try:
        await workflow.sleep(timedelta(seconds=delay_s), summary=f"retry on {provider}")
    finally:
        view.retry_at = None
