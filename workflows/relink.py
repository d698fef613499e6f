"""A run that continues an ended one (RunRequest.continues: `office runs retry | continue`): before its first turn,
one activity copies the ended run's answered turns into this run's own transcript and finds the ended run's
branch head, where this run's branch office/<run-id> starts (its base stays the ended run's base)."""

from collections.abc import Callable
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from contracts import stubs
    from contracts.activities import CarryOverInput
    from contracts.failures import CONFIG_ERROR
    from routing.codes import ErrorCode
    from routing.run import RunRequest
    from workflows.turns import AgentTurns

# Runs that continue an ended one carry its turns and branch first. Asked only by such runs (none were recorded
# before it), so every other run's history carries no marker.
CARRY_OVER = "relink-carry-over-v1"
# A repository or store that is out is waited for; a refusal (a run of another workspace, turns it never answered)
# fails the run at once.
CARRY_RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_interval=timedelta(seconds=30))

Failed = Callable[[ErrorCode, str], ApplicationError]


async def carry_over(req: RunRequest, turns: AgentTurns, failed: Failed) -> int:
    """How many turns of the ended run this run carries (0 for a run that continues none): they are answered
    already, in this run's transcript; `turns` starts the branch where the ended run's work is."""
    link = req.continues
    if link is None or not workflow.patched(CARRY_OVER):
        return 0
    try:
        carried = await workflow.execute_activity(
            stubs.carry_over,
            CarryOverInput(run_id=req.run_id, continues=link, texts=[req.prompt, *req.follow_ups]),
            start_to_close_timeout=timedelta(minutes=10),
            heartbeat_timeout=timedelta(minutes=1),
            retry_policy=CARRY_RETRY,
            summary=f"carry over {link.turns} turn(s) of {link.run_id} ({link.how})",
        )
    except ActivityError as err:
        cause = err.cause
        code = ErrorCode.invalid_configuration if isinstance(cause, ApplicationError) and cause.type == CONFIG_ERROR \
            else ErrorCode.invalid_input  # fmt: skip
        raise failed(code, f"cannot continue run {link.run_id}: {getattr(cause, 'message', str(cause))}") from err
    if carried.result is not None:
        turns.continue_from(carried.result)
    return carried.turns
