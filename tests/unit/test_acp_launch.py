"""What the ACP executor derives before and at launch: environment, advertised models, the first prompt."""

import pytest

from activities.acp_session import claude_meta, prompt_text
from activities.executors.acp import launch_environment, models_from
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
    monkeypatch.setenv("TEAM_ANTHROPIC_KEY", "sk-team")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-unrelated")
    env = launch_environment(
        ExecutionProfile(kind="acp", command=CLAUDE, credential_env="TEAM_ANTHROPIC_KEY"), "claude", "opus"
    )
    assert env["TEAM_ANTHROPIC_KEY"] == "sk-team" and "OPENAI_API_KEY" not in env


def test_secrets_are_refused_in_plain_profile_env():
    with pytest.raises(ValueError, match="ANTHROPIC_API_KEY looks like a secret.*credential_env"):
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
