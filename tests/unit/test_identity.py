"""A provider's identity: the key its health, breaker, budget and pacer are stored under."""

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from routing.config import AgentProfile, ExecutionProfile, WorkspaceConfig
from routing.decider import HealthState
from routing.identity import normalise_base_url, provider_key
from routing.route import HealthRecord, resolve_route
from testkit.factories import acp_profile

NOW = datetime(2026, 11, 29, tzinfo=UTC)
hosts = st.from_regex(r"[a-z][a-z0-9-]{0,20}(\.[a-z]{2,6}){1,2}", fullmatch=True)
paths = st.from_regex(r"(/[a-z0-9]{1,8}){0,3}", fullmatch=True)
envs = st.from_regex(r"[A-Z][A-Z0-9_]{0,20}", fullmatch=True)


@given(hosts, paths, envs)
def test_spelling_of_the_same_endpoint_does_not_change_the_key(host, path, env):
    plain = ExecutionProfile(base_url=f"https://{host}{path}", credential_env=env)
    shouted = ExecutionProfile(base_url=f"HTTPS://{host.upper()}:443{path}/", credential_env=env)
    assert provider_key(plain) == provider_key(shouted)
    assert provider_key(plain) == provider_key(plain.model_copy())  # stable: a pure function of the fields


@given(hosts, hosts, envs, envs)
def test_another_endpoint_or_credential_is_another_provider(host_a, host_b, env_a, env_b):
    a = ExecutionProfile(base_url=f"https://{host_a}/v1", credential_env=env_a)
    b = ExecutionProfile(base_url=f"https://{host_b}/v1", credential_env=env_b)
    assert (provider_key(a) == provider_key(b)) == (host_a == host_b and env_a == env_b)


def test_settings_that_do_not_identify_the_provider_do_not_change_the_key():
    base = ExecutionProfile(base_url="https://api.example.com/v1", credential_env="K")
    tuned = base.model_copy(update={"timeout_s": 5, "requests_per_minute": 30, "default_model": "m"})
    assert provider_key(base) == provider_key(tuned)
    assert provider_key(base).startswith("openai-") and len(provider_key(base)) <= 63


def test_acp_agents_are_identified_by_their_command_and_credential():
    claude = acp_profile(["npx", "claude-code-acp"], credential_env="A_KEY")
    other_key = claude.model_copy(update={"credential_env": "B_KEY"})
    codex = claude.model_copy(update={"command": ["npx", "codex-acp"]})
    assert len({provider_key(claude), provider_key(other_key), provider_key(codex)}) == 3


def test_normalised_urls():
    assert normalise_base_url("HTTP://Host:80/V1/") == "http://host/V1"
    assert normalise_base_url("https://host:8443/v1") == "https://host:8443/v1"
    assert normalise_base_url(None) == ""


def test_route_resolution_ignores_health_of_another_workspaces_provider_of_the_same_name():
    mine = ExecutionProfile(base_url="https://proxy.team-a.example/v1", credential_env="OFFICE_CRED_TEAM_A_KEY")
    theirs = ExecutionProfile(base_url="https://api.anthropic.example/v1", credential_env="OFFICE_CRED_TEAM_B_KEY")
    ws = WorkspaceConfig(
        name="a",
        provider_order=["claude", "backup"],
        providers={"claude": mine, "backup": ExecutionProfile(base_url="https://b.example")},
    )
    agent = AgentProfile(name="coder", model="m1")
    their_failure = HealthRecord(
        provider="claude", provider_key=provider_key(theirs), state=HealthState.user_action_required
    )
    assert [c.provider for c in resolve_route(ws, agent, [their_failure], NOW).candidates] == ["claude", "backup"]
    my_failure = their_failure.model_copy(update={"provider_key": provider_key(mine)})
    assert [c.provider for c in resolve_route(ws, agent, [my_failure], NOW).candidates] == ["backup"]
