"""Office runs on the real Temporal dev server, PostgreSQL and the provider simulator."""

import pytest
from temporalio.client import WorkflowExecutionStatus, WorkflowUpdateFailedError

from contracts import search_attributes as sa
from office.runs import wait_for_view
from office.simulator.config import InjectedFailure, SimProvider
from routing.run import RunStatus
from routing.selection import UserDecision
from testkit.runs import run_to_end, submit_run
from workflows.office_run import OfficeRunWorkflow

from .helpers import calls_to, wait_for_calls, wait_for_status

pytestmark = pytest.mark.integration
KEY = "sk-sim-test"


async def test_happy_path_sends_the_run_transcript_and_stores_the_answer(stack):
    ws, agent, p = await stack.workspace({"alpha": SimProvider(api_key=KEY)}, credential_env="OFFICE_CRED_TEST_KEY")
    view = await run_to_end(stack, ws, agent, "Explain the parser")
    assert view.status is RunStatus.completed
    assert [(a.provider, a.outcome) for a in view.attempts] == [(p["alpha"], "succeeded")]
    [call] = calls_to(stack, p["alpha"])
    assert call["messages"] == [{"role": "user", "content": "Explain the parser"}]
    assert view.output == call["reply"]
    transcript = await stack.store.read_transcript(view.run_id, 10)
    assert [(e.seq, e.role) for e in transcript] == [(1, "user"), (2, "assistant")]
    assert transcript[1].content == view.output


async def test_auth_failure_on_first_provider_completes_on_the_second(stack):
    ws, agent, p = await stack.workspace(
        {"alpha": SimProvider(api_key="sk-other"), "beta": SimProvider(api_key=KEY)},
        credential_env="OFFICE_CRED_TEST_KEY",
    )
    view = await run_to_end(stack, ws, agent)
    assert view.status is RunStatus.completed
    assert [(a.provider, a.error_code, a.decision) for a in view.attempts] == [
        (p["alpha"], "auth_required", "fallback"),
        (p["beta"], None, None),
    ]
    assert view.provider == p["beta"] and view.fallback_count == 1
    desc = await stack.client.get_workflow_handle(view.run_id).describe()
    attrs = desc.typed_search_attributes
    assert attrs.get(sa.FALLBACK_COUNT) == 1
    assert attrs.get(sa.PROVIDER) == p["beta"]
    assert attrs.get(sa.STATUS) == "completed"
    assert attrs.get(sa.ERROR_CODE) == "auth_required"  # the last error the run met stays visible
    rows = await stack.store.list_attempts(view.run_id)
    assert [(r.seq, r.code, r.outcome) for r in rows] == [(1, "auth_required", "failed"), (2, None, "succeeded")]
    health = {(h.provider, h.model): h.state for h in await stack.store.list_health()}
    assert health[(p["alpha"], None)] == "user_action_required"


async def test_missing_credential_env_is_classified_without_calling_the_provider(stack, monkeypatch):
    monkeypatch.delenv("OFFICE_CRED_TEST_UNSET_KEY", raising=False)
    ws, agent, p = await stack.workspace(
        {"alpha": SimProvider(), "beta": SimProvider()}, credential_env="OFFICE_CRED_TEST_UNSET_KEY"
    )
    handle = await submit_run(stack, ws, agent, "task")
    view = await wait_for_status(stack, handle.id, RunStatus.parked)
    assert [a.error_code for a in view.attempts] == ["missing_credentials", "missing_credentials"]
    assert "OFFICE_CRED_TEST_UNSET_KEY" in (view.attempts[0].excerpt or "")
    assert calls_to(stack, p["alpha"]) == [] and calls_to(stack, p["beta"]) == []
    await handle.cancel()


async def test_model_gone_everywhere_fails_with_a_change_the_model_message(stack):
    gone = InjectedFailure(status=404, kind="model_not_found", models=["old-model"])
    ws, agent, p = await stack.workspace(
        {
            "alpha": SimProvider(models=["old-model"], failures=[gone]),
            "beta": SimProvider(
                models=["old-model"], shape="anthropic", failures=[gone.model_copy(update={"shape": "anthropic"})]
            ),
        },
        model="old-model",
    )
    view = await run_to_end(stack, ws, agent)
    assert view.status is RunStatus.failed
    assert [a.error_code for a in view.attempts] == ["model_unavailable", "model_unavailable"]
    assert view.message.startswith(
        f'Model unavailable: the configured model "old-model" is no longer available '
        f"on provider {p['beta']}. Change the model in agent profile {agent}"
    )
    desc = await stack.client.get_workflow_handle(view.run_id).describe()
    assert desc.status == WorkflowExecutionStatus.FAILED  # the Temporal UI shows it as failed, with the message


async def test_short_rate_limit_retries_the_same_provider_after_retry_after(stack):
    ws, agent, p = await stack.workspace(
        {
            "alpha": SimProvider(failures=[InjectedFailure(status=429, kind="rate_limit", retry_after_s=1, times=1)]),
            "beta": SimProvider(),
        }
    )
    view = await run_to_end(stack, ws, agent)
    assert view.status is RunStatus.completed
    assert [(a.provider, a.error_code, a.decision) for a in view.attempts] == [
        (p["alpha"], "rate_limited", "short_retry"),
        (p["alpha"], None, None),
    ]
    assert view.attempts[0].retry_after_s == pytest.approx(1.0)
    first, second = calls_to(stack, p["alpha"])
    assert second["at"] - first["at"] >= 1.0  # Retry-After is a floor
    assert calls_to(stack, p["beta"]) == []


async def test_unadvertised_model_is_never_sent_and_one_warning_is_kept(stack):
    ws, agent, p = await stack.workspace(
        {"alpha": SimProvider(models=["sim-small", "sim-large"])},
        model="gpt-4-0314",
        default_models={"alpha": "sim-large"},
    )
    view = await run_to_end(stack, ws, agent)
    assert view.status is RunStatus.completed
    assert all(c["requested_model"] != "gpt-4-0314" for c in calls_to(stack, p["alpha"]))
    assert view.effective_model == "sim-large"
    [warning] = view.warnings
    assert (warning.kind, warning.reason, warning.requested_model, warning.effective_model) == (
        "model_selection_warning",
        "requested_not_advertised",
        "gpt-4-0314",
        "sim-large",
    )
    assert len(await stack.store.list_run_messages(view.run_id)) == 1


async def test_stream_cut_without_final_event_is_retried_not_accepted(stack):
    ws, agent, _p = await stack.workspace({"alpha": SimProvider(cut_after_chunks=2, cut_times=1)})
    view = await run_to_end(stack, ws, agent)
    assert view.status is RunStatus.completed
    assert [(a.error_code, a.decision) for a in view.attempts] == [("stream_truncated", "short_retry"), (None, None)]
    transcript = await stack.store.read_transcript(view.run_id, 10)
    assert len(transcript) == 2  # the cut answer never entered the transcript


WEIRD = "the flux capacitor is misaligned"  # words no rule, learned word or nearest line reads


async def test_an_unreadable_failure_parks_for_a_person_and_their_retry_completes_the_run(stack):
    weird = InjectedFailure(status=599, kind="opaque", message=WEIRD, times=1)
    ws, agent, p = await stack.workspace({"alpha": SimProvider(failures=[weird]), "beta": SimProvider()})
    handle = await submit_run(stack, ws, agent, "Do the thing")
    parked = await wait_for_status(stack, handle.id, RunStatus.parked)
    assert (parked.park_reason, parked.error_code) == ("unreadable_failure", "unknown")
    assert [(a.error_code, a.decision) for a in parked.attempts] == [("unknown", "park")]
    assert WEIRD in (parked.attempts[0].excerpt or "")  # what the person reads before deciding
    assert " UTC unless someone decides (`office runs decide " in (parked.message or "")  # and by when
    desc = await handle.describe()
    assert desc.typed_search_attributes.get(sa.STATUS) == "parked"
    await handle.execute_update(OfficeRunWorkflow.user_decision, UserDecision(action="retry", actor="alice"))
    view = await wait_for_view(stack.client, handle.id)
    assert view.status is RunStatus.completed and view.provider == p["alpha"]
    assert len(calls_to(stack, p["alpha"])) == 2 and calls_to(stack, p["beta"]) == []  # never switched by itself


async def test_a_person_may_move_a_run_with_an_unreadable_failure_to_another_provider_or_end_it(stack):
    weird = InjectedFailure(status=599, kind="opaque", message=WEIRD)
    ws, agent, p = await stack.workspace({"alpha": SimProvider(failures=[weird]), "beta": SimProvider()})
    moved = await submit_run(stack, ws, agent, "Do the thing")
    await wait_for_status(stack, moved.id, RunStatus.parked)
    assert calls_to(stack, p["beta"]) == []
    mistyped = UserDecision(action="substitute", provider=p["beta"] + "x", actor="alice")
    with pytest.raises(WorkflowUpdateFailedError):  # refused, and the run still waits: nothing ends on a typo
        await moved.execute_update(OfficeRunWorkflow.user_decision, mistyped)
    assert (await moved.query(OfficeRunWorkflow.status)).status is RunStatus.parked
    await moved.execute_update(
        OfficeRunWorkflow.user_decision, UserDecision(action="substitute", provider=p["beta"], actor="alice")
    )
    view = await wait_for_view(stack.client, moved.id)
    assert view.status is RunStatus.completed
    assert [(a.provider, a.error_code, a.decision) for a in view.attempts] == [
        (p["alpha"], "unknown", "park"),
        (p["beta"], None, None),
    ]
    ended = await submit_run(stack, ws, agent, "Do the other thing")
    await wait_for_status(stack, ended.id, RunStatus.parked)
    await ended.execute_update(OfficeRunWorkflow.user_decision, UserDecision(action="cancel", actor="alice"))
    assert (await wait_for_view(stack.client, ended.id)).status is RunStatus.cancelled


async def test_a_retry_of_an_unreadable_failure_leaves_out_a_provider_that_needs_user_action(stack):
    weird = InjectedFailure(status=599, kind="opaque", message=WEIRD, times=1)
    ws, agent, p = await stack.workspace(
        {"alpha": SimProvider(api_key="sk-rotated"), "beta": SimProvider(api_key=KEY, failures=[weird])},
        credential_env="OFFICE_CRED_TEST_KEY",
    )
    handle = await submit_run(stack, ws, agent, "Do the thing")
    await wait_for_status(stack, handle.id, RunStatus.parked)
    await handle.execute_update(OfficeRunWorkflow.user_decision, UserDecision(action="retry", actor="alice"))
    view = await wait_for_view(stack.client, handle.id)
    assert [(a.provider, a.error_code, a.decision) for a in view.attempts] == [
        (p["alpha"], "auth_required", "fallback"),
        (p["beta"], "unknown", "park"),
        (p["beta"], None, None),  # the retry fixed no credentials: alpha stays out
    ]


async def test_an_unreadable_failure_nobody_decides_on_fails_closed_after_the_workspaces_wait(stack):
    weird = InjectedFailure(status=599, kind="opaque", message=WEIRD)
    ws, agent, p = await stack.workspace(
        {"alpha": SimProvider(failures=[weird]), "beta": SimProvider()}, unreadable_failure_wait=2
    )
    handle = await submit_run(stack, ws, agent, "Do the thing")
    assert (await wait_for_status(stack, handle.id, RunStatus.parked)).park_reason == "unreadable_failure"
    view = await wait_for_view(stack.client, handle.id)
    assert (view.status, view.error_code) == (RunStatus.failed, "unknown")
    assert WEIRD in (view.message or "") and "nobody decided within 2 s" in (view.message or "")
    assert view.park_reason is None  # an ended run asks nobody to decide
    assert calls_to(stack, p["beta"]) == [] and len(calls_to(stack, p["alpha"])) == 1


async def test_unknown_error_fails_closed_at_once_where_the_workspace_waits_for_nobody(stack):
    weird = InjectedFailure(status=599, kind="opaque", message=WEIRD)
    ws, agent, p = await stack.workspace(
        {"alpha": SimProvider(failures=[weird]), "beta": SimProvider()}, unreadable_failure_wait=0
    )
    view = await run_to_end(stack, ws, agent)
    assert view.status is RunStatus.failed
    assert [(a.error_code, a.decision) for a in view.attempts] == [("unknown", "fail")]
    assert calls_to(stack, p["beta"]) == []


async def test_every_provider_needing_user_action_parks_then_resumes_after_the_fix(stack):
    ws, agent, p = await stack.workspace(
        {"alpha": SimProvider(api_key="sk-rotated"), "beta": SimProvider(api_key="sk-rotated")},
        credential_env="OFFICE_CRED_TEST_KEY",
    )
    handle = await submit_run(stack, ws, agent, "Do the thing")
    view = await wait_for_status(stack, handle.id, RunStatus.parked)
    assert view.park_reason == "blocked_provider_action_required"
    assert [a.error_code for a in view.attempts] == ["auth_required", "auth_required"]
    # The user fixes beta's credentials, then resumes the run.
    stack.simulator.sim.set_provider(p["beta"], SimProvider(api_key=KEY))
    await handle.signal(OfficeRunWorkflow.resume)
    view = await wait_for_view(stack.client, handle.id)
    assert view.status is RunStatus.completed and view.provider == p["beta"]


async def test_cancel_ends_the_run_as_cancelled(stack):
    ws, agent, p = await stack.workspace({"alpha": SimProvider(latency_ms=60_000)})
    handle = await submit_run(stack, ws, agent, "slow task")
    await wait_for_calls(stack, p["alpha"], 1)
    await handle.cancel()
    view = await wait_for_view(stack.client, handle.id)
    assert view.status is RunStatus.cancelled


async def test_quota_everywhere_parks_for_capacity_and_resumes_by_itself(stack):
    quota = InjectedFailure(status=429, kind="quota", retry_after_s=2, times=1)
    ws, agent, p = await stack.workspace({"alpha": SimProvider(failures=[quota])})
    handle = await submit_run(stack, ws, agent, "task")
    parked = await wait_for_status(stack, handle.id, RunStatus.parked)
    assert parked.park_reason == "waiting_for_provider_capacity"
    assert parked.message and "quota" in parked.message
    desc = await stack.client.get_workflow_handle(handle.id).describe()
    assert desc.typed_search_attributes.get(sa.STATUS) == "parked"
    view = await wait_for_view(stack.client, handle.id)  # no signal: the durable timer resumes it
    assert view.status is RunStatus.completed
    assert [(a.provider, a.error_code, a.decision) for a in view.attempts] == [
        (p["alpha"], "quota_limited", "wait"),
        (p["alpha"], None, None),
    ]
    first, second = calls_to(stack, p["alpha"])
    assert second["at"] - first["at"] >= 2.0
