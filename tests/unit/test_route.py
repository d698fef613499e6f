"""Route resolution: order, pins, exclusions, health scopes, emergency routes, tiers."""

from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from routing.config import AgentProfile, ExecutionProfile, WorkspaceConfig
from routing.decider import HealthState
from routing.route import HealthRecord, resolve_route

NOW = datetime(2026, 11, 29, tzinfo=UTC)


def workspace(order, **kw) -> WorkspaceConfig:
    names = [o if isinstance(o, str) else o["provider"] for o in order]
    providers = {n: ExecutionProfile(base_url=f"http://x/{n}", tiers=kw.pop("tiers", {}).get(n, {})) for n in names}
    return WorkspaceConfig(name="ws", provider_order=order, providers=providers, **kw)


AGENT = AgentProfile(name="coder", model="m1")


def names(plan):
    return [c.provider for c in plan.candidates]


def test_order_and_exclusions():
    ws = workspace(["a", "b", "c"])
    assert names(resolve_route(ws, AGENT, [], NOW)) == ["a", "b", "c"]
    plan = resolve_route(ws, AGENT, [], NOW, excluded=frozenset({"a"}))
    assert names(plan) == ["b", "c"] and plan.ineligible[0].provider == "a"


def test_health_scopes_model_failures_to_the_model():
    ws = workspace(["a", "b"])
    gone = HealthRecord(provider="a", model="m1", state=HealthState.user_action_required, last_code="model_unavailable")
    assert names(resolve_route(ws, AGENT, [gone], NOW)) == ["b"]
    other_agent = AgentProfile(name="other", model="m2")
    assert names(resolve_route(ws, other_agent, [gone], NOW)) == ["a", "b"]


def test_degraded_until_retry_time_then_eligible_again():
    ws = workspace(["a", "b"])
    rec = HealthRecord(provider="a", state=HealthState.degraded, retry_at=NOW + timedelta(seconds=60))
    plan = resolve_route(ws, AGENT, [rec], NOW)
    assert names(plan) == ["b"] and plan.ineligible[0].retry_at == rec.retry_at
    assert names(resolve_route(ws, AGENT, [rec], NOW + timedelta(seconds=61))) == ["a", "b"]


def test_user_action_blocks_until_the_user_resumes():
    ws = workspace(["a"])
    rec = HealthRecord(provider="a", state=HealthState.user_action_required)
    assert names(resolve_route(ws, AGENT, [rec], NOW)) == []
    assert names(resolve_route(ws, AGENT, [rec], NOW, retry_blocked=True)) == ["a"]


def test_emergency_routes_only_when_nothing_normal_is_eligible():
    ws = workspace(["a", {"provider": "e", "emergency": True}, "b"])
    assert names(resolve_route(ws, AGENT, [], NOW)) == ["a", "b"]
    assert names(resolve_route(ws, AGENT, [], NOW, excluded=frozenset({"a", "b"}))) == ["e"]


def test_pins_narrow_the_order():
    pinned = AgentProfile(name="p", model="m1", pinned_providers=["b"])
    assert names(resolve_route(workspace(["a", "b"]), pinned, [], NOW)) == ["b"]


def test_tier_overrides_the_model_per_provider():
    ws = workspace(["a", "b"], tiers={"a": {"premium": {"model": "big"}}})
    plan = resolve_route(ws, AGENT, [], NOW, tier="premium")
    assert [(c.provider, c.requested_model, c.execution_profile) for c in plan.candidates] == [
        ("a", "big", "a/premium"),
        ("b", "m1", "b/premium"),
    ]


@pytest.mark.parametrize(
    "config,field",
    [
        ({"name": "ws", "provider_order": [], "providers": {}}, "provider_order is empty"),
        ({"name": "ws", "provider_order": ["a", "a"], "providers": {"a": {"base_url": "http://x"}}}, "more than once"),
        ({"name": "ws", "provider_order": ["a"], "providers": {}}, "without an entry under providers"),
        (
            {
                "name": "ws",
                "provider_order": ["a"],
                "providers": {"a": {"base_url": "http://x"}, "z": {"base_url": "http://h"}},
            },
            "does not list",
        ),
        ({"name": "Bad Name!", "provider_order": ["a"], "providers": {"a": {"base_url": "http://x"}}}, "name"),
        ({"name": "ws", "provider_order": ["a"], "providers": {"a": {}}}, "base_url is required"),
        (
            {
                "name": "ws",
                "provider_order": ["a"],
                "providers": {"a": {"base_url": "h", "credential_env": "sk-live-123"}},
            },
            "environment variable NAME",
        ),
    ],
)
def test_bad_workspace_config_names_the_problem(config, field):
    with pytest.raises(ValidationError) as err:
        WorkspaceConfig.model_validate(config)
    assert field in str(err.value)
