"""What the ACP executor derives before and at launch: environment, advertised models, the first prompt."""

import pytest

from activities.acp_session import claude_meta, prompt_text
from activities.executors.acp import models_from
from activities.executors.launcher import launch_environment
from routing.config import ExecutionProfile
from routing.run import Candidate
from routing.transcript import Entry

CLAUDE = ["npx", "@zed-industries/claude-code-acp"]


def candidate(profile: ExecutionProfile, **kw) -> Candidate:
    return Candidate(
        provider="claude", execution_profile="claude", tier="standard", profile=profile, requested_model="opus", **kw
    )


def test_claude_bridge_gets_the_start_model_without_overriding_what_the_profile_set():
    env = launch_environment(ExecutionProfile(kind="acp", command=CLAUDE), "claude", "opus")
    assert env["ANTHROPIC_MODEL"] == "opus"
    kept = launch_environment(
        ExecutionProfile(kind="acp", command=CLAUDE, env={"ANTHROPIC_MODEL": "haiku"}), "claude", "opus"
    )
    assert kept["ANTHROPIC_MODEL"] == "haiku"
    other = launch_environment(ExecutionProfile(kind="acp", command=["codex-acp"]), "codex", "opus")
    assert "ANTHROPIC_MODEL" not in other


def test_launch_environment_carries_the_credential_reference_and_no_other_worker_secret(monkeypatch):
    monkeypatch.setenv("OFFICE_CRED_TEAM_ANTHROPIC_KEY", "sk-team")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-unrelated")
    env = launch_environment(
        ExecutionProfile(kind="acp", command=CLAUDE, credential_env="OFFICE_CRED_TEAM_ANTHROPIC_KEY"), "claude", "opus"
    )
    assert env["OFFICE_CRED_TEAM_ANTHROPIC_KEY"] == "sk-team" and "OPENAI_API_KEY" not in env


def test_secrets_are_refused_in_plain_profile_env():
    with pytest.raises(ValueError, match=r"ANTHROPIC_API_KEY looks like a secret.*credential_env"):
        ExecutionProfile(kind="acp", command=CLAUDE, env={"ANTHROPIC_API_KEY": "sk-live"})


def test_explicit_fallback_reaches_the_claude_bridge_only_when_auto_fallback_is_off():
    profile = ExecutionProfile(kind="acp", command=CLAUDE)
    assert claude_meta(candidate(profile, fallback_model="sonnet")) == {
        "claudeCode": {"options": {"fallbackModel": "sonnet"}}
    }
    assert claude_meta(candidate(profile, fallback_model="sonnet", auto_fallback=True)) is None
    assert claude_meta(candidate(profile)) is None


def test_models_are_read_from_the_config_option_or_the_older_models_state():
    option = {
        "configOptions": [
            {
                "id": "mode",
                "category": "mode",
                "type": "select",
                "currentValue": "a",
                "options": [{"value": "a", "name": "A"}],
            },
            {
                "id": "model",
                "category": "model",
                "type": "select",
                "currentValue": "m1",
                "options": [
                    {"group": "g", "name": "G", "options": [{"value": "m1", "name": "1"}, {"value": "m2", "name": "2"}]}
                ],
            },
        ]
    }
    choice = models_from(option)
    assert (choice.catalog, choice.current, choice.config_id) == (["m1", "m2"], "m1", "model")
    legacy = models_from(
        {"models": {"currentModelId": "default", "availableModels": [{"modelId": "default"}, {"modelId": "sonnet"}]}}
    )
    assert (legacy.catalog, legacy.current, legacy.config_id) == (["default", "sonnet"], "default", None)
    assert models_from({"sessionId": "s"}).catalog is None  # no selection offered at all


def test_a_fresh_session_gets_this_runs_history_and_a_live_one_only_the_new_turn():
    entries = [
        Entry(seq=1, role="user", content="remember R-77", provider=None),
        Entry(seq=2, role="assistant", content="noted", provider="alpha"),
        Entry(seq=3, role="user", content="what was it?", provider=None),
    ]
    text, notes = prompt_text(entries, fresh_session=True, provider="claude", full_history=True)
    assert text.splitlines()[-1] == "what was it?" and "[user] remember R-77" in text and "[assistant] noted" in text
    assert any("continuation note" in n for n in notes)
    assert prompt_text(entries, fresh_session=False, provider="claude", full_history=True) == ("what was it?", [])
    assert prompt_text(entries[:1], fresh_session=True, provider="claude", full_history=True)[0] == "remember R-77"


def test_the_readme_agent_workspace_example_is_valid():
    from pathlib import Path

    import yaml

    from routing.config import WorkspaceConfig

    example = Path(__file__).resolve().parents[2] / "examples" / "agents.yaml"
    ws = WorkspaceConfig.model_validate(yaml.safe_load(example.read_text()))
    assert [ws.providers[p.provider].kind.value for p in ws.provider_order] == ["acp", "acp", "openai"]


def test_the_adapter_is_recognised_from_the_command_or_named_by_the_profile():
    from activities.executors.launcher import adapter_of

    assert adapter_of(ExecutionProfile(kind="acp", command=CLAUDE)).name == "claude-code"
    assert adapter_of(ExecutionProfile(kind="acp", command=["/x/.bin/codex-acp"])).name == "codex"
    assert adapter_of(ExecutionProfile(kind="acp", command=["gemini", "--experimental-acp"])).name == "gemini-cli"
    assert adapter_of(ExecutionProfile(kind="acp", command=["my-agent"])).name == "generic"
    assert adapter_of(ExecutionProfile(kind="acp", command=["wrapper.sh"], adapter="claude-code")).name == "claude-code"
    with pytest.raises(ValueError, match="acp executor only"):
        ExecutionProfile(base_url="http://x/v1", adapter="codex")


def test_claude_code_is_pointed_at_the_provider_with_its_own_retries_off(monkeypatch):
    monkeypatch.setenv("OFFICE_CRED_TEAM_ANTHROPIC_KEY", "sk-team")
    profile = ExecutionProfile(
        kind="acp",
        command=CLAUDE,
        base_url="http://127.0.0.1:9/p/claude/v1",
        credential_env="OFFICE_CRED_TEAM_ANTHROPIC_KEY",
        env={"CLAUDE_CODE_MAX_RETRIES": "2"},  # the user's own setting wins
    )
    env = launch_environment(profile, "claude", "sonnet")
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9/p/claude"  # the SDK appends /v1/messages itself
    assert env["ANTHROPIC_API_KEY"] == env["OFFICE_CRED_TEAM_ANTHROPIC_KEY"] == "sk-team"
    assert (env["CLAUDE_CODE_MAX_RETRIES"], env["IS_SANDBOX"], env["DISABLE_AUTOUPDATER"]) == ("2", "1", "1")
    assert env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1" and "OFFICE_AGENT_OWNER" in env


def test_codex_gets_a_responses_provider_with_request_and_stream_retries_off():
    from activities.executors.launcher import launch_command

    profile = ExecutionProfile(
        kind="acp", command=["codex-acp"], base_url="http://h/p/o/v1", credential_env="OFFICE_CRED_TEAM_OPENAI_KEY"
    )
    args = launch_command(profile)[1:]
    overrides = dict(a.split("=", 1) for a in args if a != "-c")
    assert overrides["model_provider"] == '"office"'
    assert overrides["model_providers.office.base_url"] == '"http://h/p/o/v1"'
    assert overrides["model_providers.office.wire_api"] == '"responses"'
    assert overrides["model_providers.office.env_key"] == '"OFFICE_CRED_TEAM_OPENAI_KEY"'  # the key is read by name
    assert overrides["model_providers.office.request_max_retries"] == "0"
    assert overrides["model_providers.office.stream_max_retries"] == "0"
    assert launch_command(ExecutionProfile(kind="acp", command=["codex-acp"])) == ["codex-acp"]  # its own login


@pytest.mark.parametrize(
    "adapter, text, status, code",
    [
        (
            "claude-code",
            'Internal error: API Error: 529 {"type":"error","error":{"type":"overloaded_error"}}',
            529,
            "provider_overloaded",
        ),
        (
            "claude-code",
            'Internal error: API Error: 429 {"type":"error","error":{"type":"rate_limit_error",'
            '"message":"Number of request tokens has exceeded your per-minute rate limit."}}',
            429,
            "rate_limited",
        ),
        ("claude-code", "Internal error: Invalid API key · Fix external API key", None, "auth_required"),
        ("claude-code", "Internal error: Credit balance is too low", None, "subscription_required"),
        ("codex", "Internal error: exceeded retry limit, last status: 429 Too Many Requests", 429, "rate_limited"),
        (
            "codex",
            "Internal error: unexpected status 401 Unauthorized: Incorrect API key provided",
            401,
            "auth_required",
        ),
    ],
)
def test_failures_the_agent_relays_are_read_back_into_status_and_body(adapter, text, status, code):
    from activities.executors.agents import ADAPTERS, read_relayed
    from routing.classifier import FailureSignal, classify

    signal = read_relayed(ADAPTERS[adapter], FailureSignal(jsonrpc_code=-32603, error_text=text))
    assert signal.status == status
    result = classify(signal)
    assert (result.code.value, result.retry_after_s) == (code, None)  # the relay dropped Retry-After
