"""Credentials by allow-list: the pure rule (routing/credentials.py) and its use where the worker resolves a
reference (an executor's request, an agent's launch environment): a name the rule refuses fails as
`invalid_configuration` naming the setting, and nothing is sent."""

import httpx
import pytest
from temporalio.exceptions import ApplicationError

from activities.executors.launcher import launch_environment
from activities.session import SessionActivities
from routing.classifier import Classification
from routing.codes import ErrorCode
from routing.config import ExecutionProfile, WorkspaceConfig
from routing.credentials import ALLOW_SETTING, CredentialAllowList, credential_fields
from testkit.factories import acp_profile, candidate

DEFAULT = CredentialAllowList.parse(None)


@pytest.mark.parametrize(
    ("setting", "name", "allowed"),
    [
        (None, "ANTHROPIC_API_KEY", True),
        (None, "OPENAI_API_KEY", True),
        (None, "GEMINI_API_KEY", True),
        (None, "GOOGLE_API_KEY", True),
        (None, "GIT_PUSH_TOKEN", True),
        (None, "OFFICE_CRED_TEAM_KEY", True),  # the documented prefix
        (None, "AWS_SECRET_ACCESS_KEY", False),
        (None, "GIT_PUSH_TOKENS", False),  # exact names, not prefixes
        (None, "OFFICE_DATABASE_URL", False),
        (None, "OFFICE_CODEC_KEYS_FILE", False),
        (None, "TEMPORAL_API_KEY", False),
        ("", "OPENAI_API_KEY", True),  # blank: the default
        ("TEAM_KEY", "TEAM_KEY", True),
        ("TEAM_KEY", "OPENAI_API_KEY", False),  # the setting replaces the default names
        ("TEAM_KEY", "OFFICE_CRED_X", True),  # the prefix stays
        ("TEAM_*, OTHER_KEY", "TEAM_A", True),
        ("TEAM_*, OTHER_KEY", "OTHER_KEY", True),
        ("TEAM_*", "TEAMS_KEY", False),
        ("OFFICE_DATABASE_URL,TEMPORAL_*", "OFFICE_DATABASE_URL", False),  # never, whatever the setting says
        ("OFFICE_DATABASE_URL,TEMPORAL_*", "TEMPORAL_API_KEY", False),
        ("OFFICE_*", "OFFICE_WORK_DIR", False),
    ],
)
def test_the_allow_list_admits_the_adapters_names_the_prefix_and_what_the_setting_lists(setting, name, allowed):
    problem = CredentialAllowList.parse(setting).problem(name, "providers.p.credential_env")
    assert (problem is None) is allowed
    if problem is not None:
        assert problem.startswith(f"providers.p.credential_env names {name}")
        assert "OFFICE_CRED_" in problem
        if not name.startswith(("OFFICE_", "TEMPORAL_")):
            assert ALLOW_SETTING in problem


@pytest.mark.parametrize("setting", ["TEAM KEY", "*", "1ABC", "TEAM-KEY", "KÉY"])
def test_a_malformed_setting_is_refused_naming_it_and_the_entry(setting):
    with pytest.raises(ValueError, match=ALLOW_SETTING):
        CredentialAllowList.parse(setting)


def test_a_workspace_names_its_credentials_by_field():
    ws = WorkspaceConfig.model_validate(
        {
            "name": "w",
            "provider_order": ["a", "b"],
            "providers": {"a": {"base_url": "http://a/v1", "credential_env": "A_KEY"}, "b": {"base_url": "http://b"}},
            "repository": {"url": "/srv/app.git", "push_credential_env": "GIT_PUSH_TOKEN"},
        }
    )
    assert credential_fields(ws) == [
        ("providers.a.credential_env", "A_KEY"),
        ("repository.push_credential_env", "GIT_PUSH_TOKEN"),
    ]


async def test_a_forged_credential_name_is_refused_by_the_session_activity_and_nothing_is_sent(monkeypatch):
    monkeypatch.setenv("OFFICE_DATABASE_URL", "postgresql://office:hunter2@db/office")
    requests: list[httpx.Request] = []
    transport = httpx.MockTransport(lambda r: requests.append(r) or httpx.Response(200, json={"data": []}))
    forged = ExecutionProfile(base_url="http://attacker.example/v1", credential_env="OFFICE_DATABASE_URL")
    async with httpx.AsyncClient(transport=transport) as http:
        sessions = SessionActivities(store=None, http=http, boundary=None)  # type: ignore[arg-type]  # never reached
        with pytest.raises(ApplicationError) as err:
            cand = candidate("p", forged)
            await sessions.start("r", "a", cand, sessions.endpoint(cand))  # the catalog read resolves the credential
    assert requests == []  # nothing reached the endpoint
    assert err.value.non_retryable and err.value.type == "ConfigError"
    failure = Classification.model_validate(err.value.details[0])
    assert failure.code is ErrorCode.invalid_configuration
    assert "providers.p.credential_env names OFFICE_DATABASE_URL" in failure.excerpt
    assert "hunter2" not in str(err.value)


def test_an_agent_is_never_launched_with_a_refused_credential(monkeypatch):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-secret")
    forged = acp_profile(["agent"], credential_env="AWS_SECRET_ACCESS_KEY")
    with pytest.raises(ApplicationError, match=f"does not allow; add AWS_SECRET_ACCESS_KEY to {ALLOW_SETTING}"):
        launch_environment(forged, "p", None)
    monkeypatch.setenv(ALLOW_SETTING, "AWS_SECRET_ACCESS_KEY")  # the operator allows it: it is resolved
    assert launch_environment(forged, "p", None)["AWS_SECRET_ACCESS_KEY"] == "aws-secret"
