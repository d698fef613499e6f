"""Configuration a user writes: literal secrets refused by shape wherever they are, http(s) base URLs, unknown and
duplicate keys named, files read with one clear line."""

import random
import string
from pathlib import Path

import pytest
from pydantic import ValidationError

from office.config_files import ConfigFileError, describe_validation, load_config_file
from routing.config import AgentProfile, ExecutionProfile, WorkspaceConfig
from routing.validation import http_url_problem, refuse_literal_secrets, secret_shape, text_problem

KEYS = {
    "sk-proj-Ab12Cd34Ef56Gh78Ij90": "OpenAI",
    "sk-ant-api03-Ab12Cd34Ef56Gh78Ij90": "Anthropic",
    "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q": "Google",
    "ghp_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56": "GitHub",
    "github_pat_11ABCDEFG0123456789_abcdefghij": "GitHub",
    "xoxb-123456789012-abcdefghijkl": "Slack",
    "AKIAIOSFODNN7EXAMPLE": "AWS",
    "glpat-Ab12Cd34Ef56Gh78Ij90": "GitLab",
    "Authorization: Bearer abc123def456": "bearer",
    "https://generativelanguage.googleapis.com/v1beta?key=whatever": "query string (key=",
    "https://api.example.com/v1?foo=1&access_token=zzz": "query string (access_token=",
    "https://user:hunter2@proxy.example.com/v1": "password in the URL",
    "https://x-access-token-abcdefghijkl@github.com/o/r.git": "user part",
    "prefix Xk3pQ9vR2mT7wL5nB8cF1hJ4dG6sA0zY suffix": "random-looking",
}

NOT_SECRETS = [
    "sk-sim-test",
    "task-runner",
    "OFFICE_CRED_TEST_KEY",
    "claude-3-5-Sonnet-20241022",
    "anthropic/claude-3-5-Sonnet-20241022-v2:0",
    "us.anthropic.claude-3-7-sonnet-20250219-v1:0",
    "Qwen2.5-Coder-32B-Instruct-GPTQ-Int4-AWQ",
    "meta-llama/Meta-Llama-3.1-405B-Instruct-Turbo",
    "/usr/local/lib/node_modules/@zed-industries/claude-code-acp/dist/index.js",
    "http://127.0.0.1:8080/v1/providers/alpha-1a2b3c4d",
    "https://api.openai.com/v1?api-version=2024-06-01",
    "a04159c8fa8a420afdf4d6e7e86a84d889b9a92d",  # a commit id (hex) is not a key
    "--dangerously-skip-permissions",
    "",
]


@pytest.mark.parametrize("value,kind", KEYS.items())
def test_known_credential_shapes_are_recognised(value, kind):
    assert kind in (secret_shape(value) or "")


@pytest.mark.parametrize("value", NOT_SECRETS)
def test_ordinary_settings_are_not_mistaken_for_secrets(value):
    assert secret_shape(value) is None


def test_random_tokens_are_caught_by_entropy():
    rng = random.Random(7)
    alphabet = string.ascii_letters + string.digits
    tokens = ["".join(rng.choice(alphabet) for _ in range(48)) for _ in range(200)]
    assert sum(secret_shape(t) is not None for t in tokens) >= 195


def test_the_message_names_the_setting_points_to_credential_env_and_never_repeats_the_key():
    key = "sk-proj-Ab12Cd34Ef56Gh78Ij90"
    with pytest.raises(ValueError) as err:
        refuse_literal_secrets({"providers": {"a": {"command": ["agent", "--api-key", key]}}})
    message = str(err.value)
    assert "providers.a.command.2" in message and "credential_env" in message and key not in message


@pytest.mark.parametrize(
    "profile",
    [
        {"base_url": "http://x", "env": {"OPENAI_BASE": "sk-proj-Ab12Cd34Ef56Gh78Ij90"}},
        {"base_url": "https://api.example.com/v1?key=sk-proj-Ab12Cd34Ef56Gh78Ij90"},
        {"base_url": "https://u:pw@api.example.com/v1"},
    ],
)
def test_a_workspace_with_a_literal_secret_is_refused(profile):
    with pytest.raises(ValidationError) as err:
        WorkspaceConfig.model_validate({"name": "ws", "provider_order": ["a"], "providers": {"a": profile}})
    assert "credential_env" in describe_validation(err.value, WorkspaceConfig)
    assert "sk-proj-Ab12" not in describe_validation(err.value, WorkspaceConfig)


@pytest.mark.parametrize(
    "url,problem",
    [
        ("ftp://files.example.com", "scheme 'ftp'"),
        ("api.openai.com/v1", "no scheme"),
        ("http://", "must name a host"),
        ("https://api.example.com /v1", "without spaces"),
        ("http://h:99999/v1", "not a valid URL"),
    ],
)
def test_base_url_must_be_http_with_a_host(url, problem):
    assert problem in (http_url_problem(url) or "")
    with pytest.raises(ValidationError, match="base_url"):
        ExecutionProfile(base_url=url)


def test_http_and_https_urls_pass():
    assert http_url_problem("https://api.openai.com/v1") is None
    assert http_url_problem("http://127.0.0.1:8080/v1") is None


def test_unknown_keys_are_named_with_the_known_ones():
    with pytest.raises(ValidationError) as err:
        WorkspaceConfig.model_validate(
            {"name": "ws", "provider_order": ["a"], "providers": {"a": {"base_url": "http://x", "credentail_env": "K"}}}
        )
    message = describe_validation(err.value, WorkspaceConfig)
    assert message.startswith("providers.a.credentail_env: is not a known setting")
    assert "credential_env" in message
    with pytest.raises(ValidationError) as err:
        AgentProfile.model_validate({"name": "p", "model": "m", "fallback": "x"})
    assert "fallback: is not a known setting (known here: name, model, fallback_model" in describe_validation(
        err.value, AgentProfile
    )


@pytest.mark.parametrize(
    "name,content,expected",
    [
        ("dup.yaml", b"name: a\nmodel: m\nname: b\n", "key 'name' appears twice in one mapping (lines 1 and 3)"),
        ("flow.yaml", b"providers: {a: 1, a: 2}\n", "key 'a' appears twice"),
        ("dup.json", b'{"name": "a", "name": "b"}', "key 'name' appears twice"),
        ("bad.yaml", b"name: [\n", "not valid YAML at line 2"),
        ("bad.json", b'{"name": }', "not valid JSON at line 1 column 10"),
        ("latin1.yaml", b"name: caf\xe9\n", "line 1 is not UTF-8 (byte 0xe9)"),
        ("nul.yaml", b"name: a\nmodel: b\x00\n", "line 2 holds a NUL byte"),
        ("empty.yaml", b"", "is empty"),
        ("list.yaml", b"- a\n- b\n", "the top level is a list"),
    ],
)
def test_files_are_refused_with_one_line(tmp_path: Path, name, content, expected):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ConfigFileError) as err:
        load_config_file(path)
    assert expected in str(err.value) and "\n" not in str(err.value)


def test_a_missing_file_and_a_directory_are_named(tmp_path: Path):
    with pytest.raises(ConfigFileError, match="no such file"):
        load_config_file(tmp_path / "nope.yaml")
    with pytest.raises(ConfigFileError, match="is a directory"):
        load_config_file(tmp_path)


def test_a_bom_still_loads_and_merge_keys_are_refused_with_aliases(tmp_path: Path):
    path = tmp_path / "ok.yaml"
    path.write_bytes("\ufeffbase: {x: 1}\nother: {y: 2}\n".encode())
    assert load_config_file(path) == {"base": {"x": 1}, "other": {"y": 2}}
    path.write_bytes(b"base: &b {x: 1}\nother:\n  <<: *b\n  y: 2\n")
    with pytest.raises(ConfigFileError, match="line 1 uses an anchor"):
        load_config_file(path)


@pytest.mark.parametrize(
    "text,problem",
    [("a\x00b", "NUL byte"), ("caf\udce9", "not valid UTF-8"), ("fine ✓", None)],
)
def test_text_problems(text, problem):
    found = text_problem(text)
    assert found is None if problem is None else problem in (found or "")
