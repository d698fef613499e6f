"""Runs a Temporal Schedule starts (`office schedule`): the schedule's action carries a request without a run id,
and Temporal appends the time to the action's workflow id, so such a run takes its workflow id as its run id (the
id its transcript, attempts and branch are keyed by)."""

import re

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from routing.run import RUN_ID_MAX, RUN_ID_PATTERN, RunRequest


def named(req: RunRequest) -> RunRequest:
    """The request with its run id: its own, or (empty: a scheduled run) its workflow id."""
    if req.run_id:
        return req
    return req.model_copy(update={"run_id": workflow.info().workflow_id})


def run_id_problem(run_id: str) -> str | None:
    """Why a workflow id cannot be a run's id (a schedule made by another client may name anything), or None."""
    if len(run_id) > RUN_ID_MAX or not re.match(RUN_ID_PATTERN, run_id):
        return f"the workflow id {run_id!r} cannot be a run's id: use 1-{RUN_ID_MAX} letters, digits and . _ : -"
    return None
