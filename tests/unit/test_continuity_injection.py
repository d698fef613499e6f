"""What the scheduler reads from the continuity bench's injected failures.

The bench injects one failure per conversation on the primary: each must be one conversation's failure, not a
statement about the whole provider key. A 429 that states when to retry ("Please try again in 20s") is, rightly,
a key-wide Retry-After floor: every caller of the key waits for it and new runs are routed past it, so such a
429 would measure the floor, not failover. The simulator, run in-process here, answers the matching turn as it
does in the bench; the answer is classified as the OpenAI-compatible executor classifies it."""

from datetime import UTC, datetime

import pytest
from starlette.testclient import TestClient

from bench.continuity import FAILURE_KINDS, manifest
from office.simulator.app import Simulator, build_app
from office.simulator.config import InjectedFailure, SimConfig, SimProvider
from routing.capacity import CallRequest, CapacityState, RateLimited, Verdict, admit, step
from routing.classifier import Classification, FailureSignal, classify
from routing.codes import ErrorCode
from routing.config import AgentProfile, WorkspaceConfig
from routing.decider import RoutingContext, RunState, decide
from routing.route import HealthRecord, resolve_route

T0 = datetime(2026, 11, 30, 12, tzinfo=UTC)
TURN = "CANARY-0-0-00000000 turn 1:"


def injected_answer(kind: str) -> Classification:
    failure = InjectedFailure(match_text=TURN, **FAILURE_KINDS[kind])  # type: ignore[arg-type]
    http = TestClient(build_app(Simulator(SimConfig(providers={"primary": SimProvider(failures=[failure])}))))
    body = {"model": "sim-small", "stream": True, "messages": [{"role": "user", "content": f"{TURN} go on."}]}
    response = http.post("/p/primary/v1/chat/completions", json=body)
    assert response.status_code == FAILURE_KINDS[kind]["status"]
    signal = FailureSignal(status=response.status_code, headers=dict(response.headers), body=response.text)
    return classify(signal, T0)


@pytest.mark.parametrize("kind, code", [("429", ErrorCode.rate_limited), ("5xx", ErrorCode.provider_unavailable)])
def test_an_injected_failure_states_no_reset_and_no_limit(kind, code):
    answer = injected_answer(kind)
    assert answer.code is code
    assert (answer.retry_after_s, answer.limit_rpm) == (None, None)  # one conversation's failure, nothing key-wide


def test_an_injected_429_holds_back_no_other_conversation_and_routes_none_past_the_primary():
    answer = injected_answer("429")
    noted = step(CapacityState(), T0, RateLimited("failing", answer.retry_after_s, answer.limit_rpm))
    _, other = admit(noted, T0, CallRequest("another conversation"))
    assert other.verdict is Verdict.admitted and other.wait_s == 0
    # the failing conversation's own decision: a short retry, and no Retry-After floor as health evidence
    decision = decide(answer, RoutingContext.office, RunState(attempts=0, max_attempts=8), 0.5)
    assert decision.health is not None and decision.health.retry_after_s is None
    workspace = WorkspaceConfig.model_validate(
        {
            "name": "w",
            "provider_order": [{"provider": "primary"}, {"provider": "fallback"}],
            "providers": {"primary": {"base_url": "http://p"}, "fallback": {"base_url": "http://f"}},
        }
    )
    evidence = HealthRecord(provider="primary", state=decision.health.state, retry_at=None, last_code="rate_limited")
    plan = resolve_route(workspace, AgentProfile(name="a", model="sim-small"), [evidence], T0)
    assert [c.provider for c in plan.candidates] == ["primary", "fallback"]  # the next conversation starts there


def test_every_seed_injects_each_kind():
    kinds = {c.fail_kind for c in manifest(0, 60)}
    assert kinds == set(FAILURE_KINDS)
