"""What the ACP executor derives before and at launch: environment, advertised models, the first prompt."""

import pytest

from activities.acp_session import claude_meta, prompt_text
from activities.executors.acp import models_from
from activities.executors.launcher import launch_environment
from routing.config import ExecutionProfile
from routing.transcript import Entry
from testkit.factories import acp_profile, candidate

CLAUDE = ["/opt/agents/node_modules/.bin/claude-agent-acp"]


def test_claude_bridge_gets_the_start_model_without_overriding_what_the_profile_set():
    env = launch_environment(acp_profile(CLAUDE), "claude", "opus")
    assert env["ANTHROPIC_MODEL"] == "opus"
    kept = launch_environment(acp_profile(CLAUDE, env={"ANTHROPIC_MODEL": "haiku"}), "claude", "opus")
    assert kept["ANTHROPIC_MODEL"] == "haiku"
    other = launch_environment(acp_profile(["codex-acp"]), "codex", "opus")
    assert "ANTHROPIC_MODEL" not in other


def test_launch_environment_carries_the_credential_reference_and_no_other_worker_secret(monkeypatch):
    monkeypatch.setenv("OFFICE_CRED_TEAM_ANTHROPIC_KEY", "sk-team")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-unrelated")
    env = launch_environment(acp_profile(CLAUDE, credential_env="OFFICE_CRED_TEAM_ANTHROPIC_KEY"), "claude", "opus")
    assert env["OFFICE_CRED_TEAM_ANTHROPIC_KEY"] == "sk-team" and "OPENAI_API_KEY" not in env


def test_secrets_are_refused_in_plain_profile_env():
    with pytest.raises(ValueError, match=r"ANTHROPIC_API_KEY looks like a secret.*credential_env"):
        acp_profile(CLAUDE, env={"ANTHROPIC_API_KEY": "sk-live"})


def test_explicit_fallback_reaches_the_claude_bridge_only_when_auto_fallback_is_off():
    profile = acp_profile(CLAUDE)
    options = claude_meta(candidate("claude", profile, fallback_model="claude-sonnet-4-6"))["claudeCode"]["options"]
    assert options["fallbackModel"] == "claude-sonnet-4-6"
    assert (
        "fallbackModel"
        not in claude_meta(candidate("claude", profile, fallback_model="sonnet", auto_fallback=True))["claudeCode"][
            "options"
        ]
    )
    assert claude_meta(candidate("claude", acp_profile(["codex-acp"]))) is None


def test_claude_code_takes_no_settings_from_the_repository_and_has_a_config_dir_of_its_own(tmp_path):
    from activities.acp_session import claude_config_dir

    work = tmp_path / "worktrees" / "run-1-ab12"
    config_dir = claude_config_dir(str(work), "run/1")
    assert config_dir.parent == work.parent and not config_dir.is_relative_to(work)  # never in the working copy
    assert claude_meta(candidate("claude", acp_profile(CLAUDE)), config_dir) == {
        "claudeCode": {
            "options": {
                "settingSources": [],  # the bridge's default is user, project, local
                "strictMcpConfig": True,  # no .mcp.json: only the client's MCP servers
                "env": {"CLAUDE_CONFIG_DIR": str(config_dir)},
            }
        }
    }


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
    assert [ws.providers[p.provider].kind.value for p in ws.provider_order] == ["acp", "acp", "acp", "openai"]
    # agents are the operator's installation, named by absolute path: never npx, never the working copy's
    commands = [ws.providers[p.provider].command for p in ws.provider_order if ws.providers[p.provider].command]
    assert all(c[0].startswith("/") and "npx" not in c for c in commands)


def test_the_adapter_is_recognised_from_the_command_or_named_by_the_profile():
    from activities.executors.launcher import adapter_of

    assert adapter_of(acp_profile(CLAUDE)).name == "claude-code"
    assert adapter_of(acp_profile(["/x/.bin/codex-acp"])).name == "codex"
    assert adapter_of(acp_profile(["gemini", "--experimental-acp"])).name == "gemini-cli"
    assert adapter_of(acp_profile(["/opt/agents/.bin/opencode", "acp"])).name == "opencode"
    assert adapter_of(acp_profile(["my-agent"])).name == "generic"
    assert adapter_of(acp_profile(["wrapper.sh"], adapter="claude-code")).name == "claude-code"
    with pytest.raises(ValueError, match="acp executor only"):
        ExecutionProfile(base_url="http://x/v1", adapter="codex")


def test_claude_code_is_pointed_at_the_provider_with_its_own_retries_off(monkeypatch):
    monkeypatch.setenv("OFFICE_CRED_TEAM_ANTHROPIC_KEY", "sk-team")
    profile = acp_profile(
        CLAUDE,
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

    profile = acp_profile(["codex-acp"], base_url="http://h/p/o/v1", credential_env="OFFICE_CRED_TEAM_OPENAI_KEY")
    args = launch_command(profile)[1:]
    overrides = dict(a.split("=", 1) for a in args if a != "-c")
    assert overrides["model_provider"] == '"office"'
    assert overrides["model_providers.office.base_url"] == '"http://h/p/o/v1"'
    assert overrides["model_providers.office.wire_api"] == '"responses"'
    assert overrides["model_providers.office.env_key"] == '"OFFICE_CRED_TEAM_OPENAI_KEY"'  # the key is read by name
    assert overrides["model_providers.office.request_max_retries"] == "0"
    assert overrides["model_providers.office.stream_max_retries"] == "0"
    assert launch_command(acp_profile(["codex-acp"])) == ["codex-acp"]  # its own login


def test_opencode_is_pointed_at_the_provider_and_switched_off_from_the_repository(monkeypatch):
    import json

    monkeypatch.setenv("OFFICE_CRED_TEAM_OPENAI_KEY", "sk-team")
    profile = acp_profile(
        ["opencode", "acp"],
        base_url="http://h/p/o/v1/",
        credential_env="OFFICE_CRED_TEAM_OPENAI_KEY",
    )
    env = launch_environment(profile, "o", "openai/gpt-5.4")
    config = json.loads(env["OPENCODE_CONFIG_CONTENT"])
    assert config["provider"] == {"openai": {"options": {"baseURL": "http://h/p/o/v1"}}}
    assert config["enabled_providers"] == ["openai"] and env["OPENAI_API_KEY"] == "sk-team"
    assert config["agent"]["title"] == {"disable": True}  # no second model call per session
    assert {config["permission"][k] for k in ("edit", "bash", "webfetch", "external_directory")} == {"ask"}
    assert env["OPENCODE_DISABLE_PROJECT_CONFIG"] == env["OPENCODE_DISABLE_EXTERNAL_SKILLS"] == "1"
    assert env["npm_config_offline"] == "true" and env["OPENCODE_DISABLE_MODELS_FETCH"] == "1"
    again = launch_environment(profile, "o", "openai/gpt-5.4")
    assert len(env["OPENCODE_SERVER_PASSWORD"]) >= 24
    assert again["OPENCODE_SERVER_PASSWORD"] != env["OPENCODE_SERVER_PASSWORD"]  # one per launch
    own_login = json.loads(launch_environment(acp_profile(["opencode", "acp"]), "o", None)["OPENCODE_CONFIG_CONTENT"])
    assert "provider" not in own_login and "enabled_providers" not in own_login


def test_a_working_copy_holding_what_opencode_always_loads_is_named(tmp_path):
    from activities.executors.agents import CLAUDE_CODE, OPENCODE, refused_repository_config

    (tmp_path / ".opencode").mkdir()
    (tmp_path / "opencode.jsonc").write_text("{}")
    (tmp_path / ".claude").mkdir()
    assert refused_repository_config(OPENCODE, tmp_path) == [".opencode", "opencode.jsonc"]
    assert refused_repository_config(CLAUDE_CODE, tmp_path) == []  # switched off by its session options


def test_gemini_cli_treats_the_working_copy_as_untrusted():
    env = launch_environment(acp_profile(["gemini", "--experimental-acp"]), "g", None)
    assert env["GEMINI_CLI_TRUST_WORKSPACE"] == "false"


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
