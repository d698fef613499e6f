"""What an agent's sandbox lets through (pure rules), and what the launcher refuses to start."""

import os
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from activities.executors import sandbox as sandbox_module
from activities.executors.launcher import CommandRefused, resolve_command, sandbox_plan
from activities.executors.sandbox import SandboxUnavailable, installation_roots
from routing.sandbox import Endpoint, ProfileSandbox, SandboxSettings, allowed_endpoints, is_loopback
from testkit.factories import acp_profile

ANTHROPIC = ("api.anthropic.com",)


@pytest.mark.parametrize(
    ("base_url", "workspace", "profile", "expected"),
    [
        # the provider named by the base URL, and nothing else by default
        ("http://127.0.0.1:8400/p/v1", [], None, [("127.0.0.1", 8400)]),
        ("https://llm.example.com/v1", [], None, [("llm.example.com", 443)]),
        # no base URL: the agent's vendor hosts
        (None, [], None, [("api.anthropic.com", 443)]),
        # the workspace widens, in order, without duplicates
        (None, ["registry.npmjs.org", "api.anthropic.com:443"], None,
         [("api.anthropic.com", 443), ("registry.npmjs.org", None)]),
        # a profile narrows the workspace's extra hosts (never the provider)
        (None, ["registry.npmjs.org", "pypi.org"], ["pypi.org"], [("api.anthropic.com", 443), ("pypi.org", None)]),
        (None, ["registry.npmjs.org"], [], [("api.anthropic.com", 443)]),
        # a profile cannot add what the workspace does not allow
        (None, [], ["evil.example"], [("api.anthropic.com", 443)]),
    ],
)  # fmt: skip
def test_allowed_endpoints(base_url, workspace, profile, expected):
    narrowing = ProfileSandbox(network=profile) if profile is not None else None
    got = allowed_endpoints(base_url, ANTHROPIC, SandboxSettings(network=workspace), narrowing)
    assert [(e.host, e.port) for e in got] == expected


@pytest.mark.parametrize(
    ("entry", "host", "port", "admitted"),
    [
        ("registry.npmjs.org", "registry.npmjs.org", 443, True),
        ("registry.npmjs.org", "REGISTRY.npmjs.org.", 443, True),
        ("registry.npmjs.org", "evil-registry.npmjs.org", 443, False),
        ("registry.npmjs.org", "registry.npmjs.org.evil.example", 443, False),
        ("*.googleapis.com", "storage.googleapis.com", 443, True),
        ("*.googleapis.com", "googleapis.com.evil.example", 443, False),
        ("pypi.org:443", "pypi.org", 80, False),
    ],
)
def test_an_endpoint_admits_its_host_only(entry, host, port, admitted):
    [endpoint] = allowed_endpoints(None, (), SandboxSettings(network=[entry]), None)
    assert endpoint.admits(host, port) is admitted


@given(st.from_regex(r"[a-z]{1,10}\.[a-z]{2,5}", fullmatch=True), st.from_regex(r"[a-z]{1,10}", fullmatch=True))
def test_no_suffix_trick_reaches_an_allowed_host(allowed, prefix):
    endpoint = Endpoint(host=allowed, port=None)
    assert not endpoint.admits(f"{prefix}{allowed}", 443)  # evilexample.com is not example.com
    assert not endpoint.admits(f"{allowed}.{prefix}", 443)
    assert endpoint.admits(allowed, 443)


@pytest.mark.parametrize("host", ["127.0.0.1", "127.5.0.1", "localhost", "[::1]", "::1"])
def test_loopback_hosts(host):
    assert is_loopback(host)


@pytest.mark.parametrize(
    ("value", "field", "fix"),
    [
        (False, "sandbox", "write `sandbox: none`"),
        ("firejail", "sandbox.mode", "'bubblewrap' or 'none'"),
        ({"network": ["https://pypi.org/simple"]}, "sandbox.network", "not a host or host:port"),
        ({"read_only": ["tools/bin"]}, "sandbox.read_only", "not an absolute path"),
        ({"read_only": ["/opt/../etc"]}, "sandbox.read_only", "without '..'"),
        ({"wide_open": True}, "sandbox.wide_open", "Extra inputs"),
    ],
)
def test_bad_sandbox_settings_name_the_field_and_the_fix(value, field, fix):
    with pytest.raises(ValidationError) as err:
        SandboxSettings.model_validate(value)
    assert fix in str(err.value)
    assert field.removeprefix("sandbox").lstrip(".") in str(err.value)


def test_sandbox_none_is_the_only_way_off_and_leaves_no_plan():
    assert SandboxSettings.model_validate("none").off and not SandboxSettings().off
    profile = acp_profile(["/opt/agent"], base_url="http://127.0.0.1:9/v1")
    assert sandbox_plan(profile, SandboxSettings.model_validate("none")) is None
    plan = sandbox_plan(profile, SandboxSettings(read_only=["/opt/tools"]))
    assert plan is not None and plan.endpoints == [Endpoint(host="127.0.0.1", port=9)]
    assert plan.read_only == ["/opt/tools"] and plan.read_write == []


def executable(path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


@pytest.mark.parametrize(
    ("command", "fix"),
    [
        (["npx", "-y", "@zed-industries/claude-agent-acp"], "package runner"),
        (["/usr/bin/npx", "@zed-industries/claude-agent-acp"], "package runner"),
        (["npm", "exec", "claude-agent-acp"], "package runner"),
        (["pnpm", "dlx", "claude-agent-acp"], "package runner"),
        (["bunx", "claude-agent-acp"], "package runner"),
        (["uvx", "some-agent"], "package runner"),
        (["./node_modules/.bin/agent"], "relative path"),
        (["node_modules/.bin/agent"], "relative path"),
    ],
)
def test_commands_the_repository_could_decide_are_refused(command, fix, tmp_path):
    with pytest.raises(CommandRefused, match=fix):
        resolve_command(command, os.environ.get("PATH"), str(tmp_path))


def test_a_program_is_never_found_in_the_working_copy(tmp_path):
    work = tmp_path / "work"
    executable(work / "node_modules" / ".bin" / "agent")  # committed by the repository
    installed = executable(tmp_path / "opt" / "bin" / "agent")
    path = f"node_modules/.bin:{work / 'node_modules' / '.bin'}:{tmp_path / 'opt' / 'bin'}"
    assert resolve_command(["agent", "--acp"], path, str(work)) == [installed, "--acp"]
    with pytest.raises(CommandRefused, match="inside the working copy"):
        resolve_command([str(work / "node_modules" / ".bin" / "agent")], path, str(work))
    link = tmp_path / "opt" / "bin" / "sneaky"
    link.symlink_to(work / "node_modules" / ".bin" / "agent")  # an outside path that leads back inside
    with pytest.raises(CommandRefused, match="inside the working copy"):
        resolve_command([str(link)], path, str(work))
    with pytest.raises(FileNotFoundError):
        resolve_command(["not-installed-anywhere"], path, str(work))


def test_the_installation_of_an_npm_agent_is_its_whole_install_tree(tmp_path):
    package = tmp_path / "agents" / "node_modules" / "@zed-industries" / "claude-agent-acp" / "dist" / "index.js"
    executable(package)
    link = tmp_path / "agents" / "node_modules" / ".bin" / "claude-agent-acp"
    link.parent.mkdir(parents=True)
    link.symlink_to(package)
    assert installation_roots(str(link)) == [str(tmp_path / "agents")]
    assert installation_roots(executable(tmp_path / "opt" / "codex" / "bin" / "codex")) == [
        str(tmp_path / "opt" / "codex")
    ]


async def test_a_worker_without_bubblewrap_refuses_with_what_to_install(monkeypatch):
    monkeypatch.setattr(sandbox_module, "_checked", None)
    monkeypatch.setattr(sandbox_module.shutil, "which", lambda _name: None)
    with pytest.raises(SandboxUnavailable, match="apt-get install bubblewrap"):
        await sandbox_module.check_bubblewrap()


def test_the_seccomp_filter_refuses_the_listed_calls_on_known_machines_only():
    from activities.executors import seccomp

    assert seccomp.program("riscv64") is None  # numbers unknown here: no filter rather than a wrong one
    x86 = seccomp.program("x86_64")
    arm = seccomp.program("aarch64")
    assert x86 is not None and arm is not None
    per_call, namespaces = 2 * len(seccomp.REFUSED), 2 + 3 + 3
    assert len(x86) == 8 * (4 + 2 + per_call + namespaces + 1)  # x32 refused on x86-64 only
    assert len(arm) == 8 * (4 + per_call + namespaces + 1)
    assert x86.endswith(seccomp._op(seccomp.RET_K, seccomp.RET_ALLOW))


def test_gemini_clis_system_settings_are_given_to_its_sandbox_and_exist():
    """Gemini CLI's own retries are switched off by a settings file of the office's (GEMINI_CLI_SYSTEM_SETTINGS_PATH):
    the agent must see it inside its sandbox, at the path the variable names, and it must say maxAttempts 1."""
    import json

    from activities.executors.agents import GEMINI_CLI, GEMINI_SYSTEM_SETTINGS

    profile = acp_profile(["/opt/gemini/bin/gemini", "--experimental-acp"])
    plan = sandbox_plan(profile, SandboxSettings())
    assert plan is not None and GEMINI_SYSTEM_SETTINGS in plan.read_only
    assert GEMINI_CLI.environment(None)["GEMINI_CLI_SYSTEM_SETTINGS_PATH"] == GEMINI_SYSTEM_SETTINGS
    assert json.loads(Path(GEMINI_SYSTEM_SETTINGS).read_text())["general"]["maxAttempts"] == 1
    # Gemini CLI reads system settings only when root owns them: a worker not running as root has them read as the
    # sandbox's user settings, in the session's own home.
    assert json.loads(plan.home_files[".gemini/settings.json"])["general"]["maxAttempts"] == 1
    other = sandbox_plan(acp_profile(["/opt/agent"]), SandboxSettings())
    assert other is not None and GEMINI_SYSTEM_SETTINGS not in other.read_only  # only the agent that reads it
    assert other.home_files == {}


def test_opencodes_plugin_that_stops_its_own_retries_is_configured_and_given_to_its_sandbox():
    """OpenCode's own retries cannot be switched off by a setting: the office's plugin stops them. OpenCode must be
    told to load it (its inline configuration) and see it inside its sandbox, at that path."""
    import json

    from activities.executors.agents import OPENCODE, OPENCODE_NO_OWN_RETRIES

    plan = sandbox_plan(acp_profile(["/opt/opencode/bin/opencode", "acp"]), SandboxSettings())
    assert plan is not None and OPENCODE_NO_OWN_RETRIES in plan.read_only
    config = json.loads(OPENCODE.environment("http://127.0.0.1:9/v1")["OPENCODE_CONFIG_CONTENT"])
    assert config["plugin"] == [Path(OPENCODE_NO_OWN_RETRIES).as_uri()]
    assert "session.abort" in Path(OPENCODE_NO_OWN_RETRIES).read_text()
    assert OPENCODE.retry_stopped_marker and OPENCODE.retry_stopped_marker in Path(OPENCODE_NO_OWN_RETRIES).read_text()
