"""Every bad input a user can give the `office` CLI (arguments, files, environment) and a foreign Temporal client
ends in one clear line naming the field and the fix, a documented exit code (office/cli/common.py), no traceback,
and nothing started or half-saved. One row per case; the CLI runs as a subprocess, four at a time."""

import asyncio
import json
import os
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from temporalio.client import WorkflowFailureError
from temporalio.service import RPCError

from contracts import search_attributes as sa
from office.simulator.config import SimProvider
from office.temporal_server import temporal_binary
from routing.run import RunStatus
from testkit.eventually import eventually

OFFICE = str(Path(sys.executable).parent / "office")
USAGE, UNAVAILABLE, PARKED = 2, 3, 4
RANDOM_TOKEN = "Xk3pQ9vR2mT7wL5nB8cF1hJ4dG6sA0zYqW"  # shaped like a generated key, not a real one


@dataclass
class Case:
    id: str
    argv: list[str | bytes]
    exit: int
    expect: list[str]  # substrings of stderr (after filling in the placeholders)
    files: dict[str, bytes] = field(default_factory=dict)  # written under {dir}
    env: dict[str, str] = field(default_factory=dict)
    one_line: bool = True  # False: click/typer's own usage message (several lines, no traceback)


def ws_file(providers: str, extra: str = "") -> bytes:
    """A workspace file for the existing workspace {ws} (accepting it would overwrite it)."""
    return f"name: {{ws}}\nprovider_order: [{{p}}]\nproviders:\n{providers}{extra}".encode()


GOOD_PROVIDER = "  {p}: {base_url: '{url}', credential_env: OFFICE_CRED_TEST_KEY}\n"  # placeholders filled per case


def provider(settings: str) -> str:
    return "  {p}: {" + settings + "}\n"


# Nested aliases: parsed, 9^9 strings (the YAML "billion laughs"); a settings file refuses its first anchor.
BILLION_LAUGHS = '_a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"_{b}: &{b} [{','.join(['*' + a] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi", strict=True)
)
WS = ["workspace", "set", "--file", "{dir}/ws.yaml"]
WS_JSON = ["workspace", "set", "--file", "{dir}/ws.json"]
PROFILE = ["profile", "set", "--file", "{dir}/profile.yaml"]
SUBMIT = ["submit", "-w", "{ws}", "-a", "{agent}", "--run-id", "{run}"]
SECRET_FIX = "credential_env"

CASES = [
    # --- workspace files: reading -----------------------------------------------------------------------
    Case("ws-missing-file", ["workspace", "set", "--file", "{dir}/nope.yaml"], USAGE, ["nope.yaml: no such file"]),
    Case("ws-directory", ["workspace", "set", "--file", "{dir}"], USAGE, ["is a directory"]),
    Case("ws-not-utf8", WS, USAGE, ["line 1 is not UTF-8 (byte 0xe9)", "save the file as UTF-8"],
         {"ws.yaml": b"name: caf\xe9\n"}),
    Case("ws-nul", WS, USAGE, ["line 2 holds a NUL byte"], {"ws.yaml": b"name: {ws}\nprovider_order: [a\x00]\n"}),
    Case("ws-yaml-syntax", WS, USAGE, ["not valid YAML at line 3"], {"ws.yaml": b"name: {ws}\nproviders: [\n"}),
    Case("ws-json-syntax", WS_JSON, USAGE, ["not valid JSON at line 1"], {"ws.json": b'{"name": "{ws}",}'}),
    Case("ws-empty", WS, USAGE, ["is empty", "mapping"], {"ws.yaml": b""}),
    Case("ws-yaml-anchor", WS, USAGE, ["line 5 uses an anchor (&name)", "anchors and aliases are not allowed"],
         {"ws.yaml": ws_file(GOOD_PROVIDER, "tiers: &t {fast: {model: m}}\n")}),
    Case("ws-billion-laughs", WS, USAGE, ["line 5 uses an anchor (&name)", "write each value out"],
         {"ws.yaml": ws_file(GOOD_PROVIDER, BILLION_LAUGHS)}),  # refused at its first anchor, before any expansion
    Case("ws-top-level-list", WS, USAGE, ["the top level is a list"], {"ws.yaml": b"- {ws}\n"}),
    # --- workspace files: keys ---------------------------------------------------------------------------
    Case("ws-sandbox-mode", WS, USAGE, ["sandbox.mode", "'bubblewrap' or 'none'"],
         {"ws.yaml": ws_file(GOOD_PROVIDER, "sandbox: firejail\n")}),
    Case("ws-sandbox-off", WS, USAGE, ["sandbox:", "write `sandbox: none`"],
         {"ws.yaml": ws_file(GOOD_PROVIDER, "sandbox: off\n")}),
    Case("ws-sandbox-network-url", WS, USAGE, ["sandbox.network", "is not a host or host:port"],
         {"ws.yaml": ws_file(GOOD_PROVIDER, "sandbox: {network: ['https://registry.npmjs.org/']}\n")}),
    Case("ws-sandbox-relative-path", WS, USAGE, ["sandbox.read_only", "is not an absolute path"],
         {"ws.yaml": ws_file(GOOD_PROVIDER, "sandbox: {read_only: ['tools/bin']}\n")}),
    Case("ws-duplicate-key", WS, USAGE, ["key 'max_attempts' appears twice", "lines 5 and 6"],
         {"ws.yaml": ws_file(GOOD_PROVIDER, "max_attempts: 3\nmax_attempts: 9\n")}),
    Case("ws-duplicate-provider", WS, USAGE, ["key '{p}' appears twice"],
         {"ws.yaml": ws_file(GOOD_PROVIDER + provider("base_url: 'http://127.0.0.1:9/v1'"))}),
    Case("ws-duplicate-json-key", WS_JSON, USAGE, ["key 'name' appears twice"],
         {"ws.json": b'{"name": "{ws}", "name": "other"}'}),
    Case("ws-unknown-top-key", WS, USAGE, ["max_attempt: is not a known setting", "max_attempts", "nothing was saved"],
         {"ws.yaml": ws_file(GOOD_PROVIDER, "max_attempt: 3\n")}),
    Case("ws-unknown-provider-key", WS, USAGE,
         ["providers.{p}.credentail_env: is not a known setting", "credential_env"],
         {"ws.yaml": ws_file(provider("base_url: 'http://127.0.0.1:9/v1', credentail_env: OFFICE_CRED_TEST_KEY"))}),
    Case("ws-unknown-tier-key", WS, USAGE, ["providers.{p}.tiers.fast.modle: is not a known setting", "model"],
         {"ws.yaml": ws_file(provider("base_url: 'http://127.0.0.1:9/v1', tiers: {fast: {modle: m}}"))}),
    Case("ws-unknown-order-key", WS, USAGE, ["provider_order.0.emergancy: is not a known setting", "emergency"],
         {"ws.yaml": b"name: {ws}\nprovider_order: [{provider: {p}, emergancy: true}]\nproviders:\n"
                     b"  {p}: {base_url: 'http://127.0.0.1:9/v1'}\n"}),
    # --- workspace files: literal secrets anywhere ---------------------------------------------------------
    Case("ws-openai-key-in-env", WS, USAGE, ["providers.{p}.env.OPENAI_BASE", "OpenAI-style API key", SECRET_FIX],
         {"ws.yaml": ws_file(provider("base_url: 'http://h/v1', env: {OPENAI_BASE: sk-proj-Ab12Cd34Ef56Gh78Ij90}"))}),
    Case("ws-anthropic-key-in-url-path", WS, USAGE, ["providers.{p}.base_url", "Anthropic API key", SECRET_FIX],
         {"ws.yaml": ws_file(provider("base_url: 'https://gw.example.com/sk-ant-api03-Ab12Cd34Ef56Gh78Ij90/v1'"))}),
    Case("ws-key-in-query-string", WS, USAGE, ["providers.{p}.base_url", "query string (key=", SECRET_FIX],
         {"ws.yaml": ws_file(provider("base_url: 'https://generativelanguage.googleapis.com/v1beta?key=abc123'"))}),
    Case("ws-password-in-url", WS, USAGE, ["password in the URL", SECRET_FIX],
         {"ws.yaml": ws_file(provider("base_url: 'https://bob:hunter2@proxy.example.com/v1'"))}),
    Case("ws-github-token-in-command", WS, USAGE, ["providers.{p}.command.2", "GitHub token", SECRET_FIX],
         {"ws.yaml": ws_file(provider("kind: acp, command: [agent, --token, ghp_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56]"))}),
    Case("ws-aws-key-in-env", WS, USAGE, ["env.AWS_ID", "AWS access key id", SECRET_FIX],
         {"ws.yaml": ws_file(provider("base_url: 'http://h/v1', env: {AWS_ID: AKIAIOSFODNN7EXAMPLE}"))}),
    Case("ws-google-key-in-env", WS, USAGE, ["env.G ", "Google API key", SECRET_FIX],
         {"ws.yaml": ws_file(provider("base_url: 'http://h/v1', env: {G: AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6}"))}),
    Case("ws-random-token-in-env", WS, USAGE, ["env.PROXY_AUTH", "random-looking token", SECRET_FIX],
         {"ws.yaml": ws_file(provider(f"base_url: 'http://h/v1', env: {{PROXY_AUTH: {RANDOM_TOKEN}}}"))}),
    Case("ws-secret-named-env", WS, USAGE, ["OPENAI_API_KEY looks like a secret", SECRET_FIX],
         {"ws.yaml": ws_file(provider("base_url: 'http://h/v1', env: {OPENAI_API_KEY: set-me}"))}),
    Case("ws-key-as-credential-env", WS, USAGE, ["providers.{p}.credential_env", SECRET_FIX],
         {"ws.yaml": ws_file(provider("base_url: 'http://h/v1', credential_env: sk-proj-Ab12Cd34Ef56Gh78Ij90"))}),
    # --- workspace files: credentials the workers may not resolve (OFFICE_CREDENTIAL_ENV_ALLOW) ----------------
    Case("ws-credential-not-allowed", WS, USAGE,
         ["providers.{p}.credential_env names AWS_SECRET_ACCESS_KEY", "add AWS_SECRET_ACCESS_KEY to "
          "OFFICE_CREDENTIAL_ENV_ALLOW", "nothing was saved"],
         {"ws.yaml": ws_file(provider("base_url: 'http://h/v1', credential_env: AWS_SECRET_ACCESS_KEY"))}),
    Case("ws-credential-office-setting", WS, USAGE,
         ["providers.{p}.credential_env names OFFICE_DATABASE_URL, an office or Temporal setting", "OFFICE_CRED_"],
         {"ws.yaml": ws_file(provider("base_url: 'http://h/v1', credential_env: OFFICE_DATABASE_URL"))},
         env={"OFFICE_CREDENTIAL_ENV_ALLOW": "OFFICE_DATABASE_URL"}),  # never, whatever the setting says
    Case("ws-push-credential-temporal-setting", WS, USAGE,
         ["repository.push_credential_env names TEMPORAL_API_KEY, an office or Temporal setting"],
         {"ws.yaml": ws_file(GOOD_PROVIDER, "repository: {url: /srv/a.git, push_credential_env: TEMPORAL_API_KEY}\n")}),
    Case("ws-credential-allow-malformed", WS, USAGE,
         ["OFFICE_CREDENTIAL_ENV_ALLOW: 'TEAM KEY' is not a variable name", "nothing was saved"],
         {"ws.yaml": ws_file(GOOD_PROVIDER)}, env={"OFFICE_CREDENTIAL_ENV_ALLOW": "TEAM KEY"}),
    # --- workspace files: values ---------------------------------------------------------------------------
    Case("ws-base-url-ftp", WS, USAGE, ["providers.{p}.base_url: must be an http(s) URL", "scheme 'ftp'"],
         {"ws.yaml": ws_file(provider("base_url: 'ftp://files.example.com/v1'"))}),
    Case("ws-base-url-no-scheme", WS, USAGE, ["providers.{p}.base_url: must be an http(s) URL", "no scheme"],
         {"ws.yaml": ws_file(provider("base_url: 'api.openai.com/v1'"))}),
    Case("ws-base-url-no-host", WS, USAGE, ["providers.{p}.base_url: must name a host"],
         {"ws.yaml": ws_file(provider("base_url: 'http://'"))}),
    Case("ws-order-without-provider", WS, USAGE, ["provider_order names ghost without an entry under providers"],
         {"ws.yaml": b"name: {ws}\nprovider_order: [{p}, ghost]\nproviders:\n  {p}: {base_url: 'http://h/v1'}\n"}),
    Case("ws-max-attempts-zero", WS, USAGE, ["max_attempts: Input should be greater than or equal to 1"],
         {"ws.yaml": ws_file(GOOD_PROVIDER, "max_attempts: 0\n")}),
    Case("ws-no-file-option", ["workspace", "set"], USAGE, ["Missing option '--file'"], one_line=False),
    # --- profile files -----------------------------------------------------------------------------------
    Case("profile-unknown-key", PROFILE, USAGE, ["modle: is not a known setting", "model, fallback_model"],
         {"profile.yaml": b"name: {agent}\nmodel: sim-small\nmodle: sim-large\n"}),
    Case("profile-duplicate-key", PROFILE, USAGE, ["key 'model' appears twice in one mapping (lines 2 and 3)"],
         {"profile.yaml": b"name: {agent}\nmodel: sim-small\nmodel: sim-large\n"}),
    Case("profile-not-utf8", PROFILE, USAGE, ["line 2 is not UTF-8"],
         {"profile.yaml": b"name: {agent}\nmodel: \xff\n"}),
    Case("profile-nul", PROFILE, USAGE, ["NUL byte"], {"profile.yaml": b"name: {agent}\x00\n"}),
    Case("profile-yaml-alias", PROFILE, USAGE, ["line 3 uses an alias (*name)", "anchors and aliases"],
         {"profile.yaml": b"name: {agent}\nmodel: sim-small\nfallback_model: *m\n"}),
    Case("profile-yaml-syntax", PROFILE, USAGE, ["not valid YAML"], {"profile.yaml": b"name: {agent}\nmodel: 'x\n"}),
    Case("profile-missing-file", ["profile", "set", "--file", "{dir}/none.json"], USAGE, ["none.json: no such file"]),
    Case("profile-bad-name", ["profile", "set", "Bad Name", "--model", "m"], USAGE, ["name: String should match"]),
    Case("profile-secret-as-model", PROFILE, USAGE, ["model contains what looks like", SECRET_FIX],
         {"profile.yaml": b"name: {agent}\nmodel: sk-proj-Ab12Cd34Ef56Gh78Ij90\n"}),
    # --- submit arguments (the text ones fail before connecting) -------------------------------------------
    Case("submit-prompt-not-utf8", [*SUBMIT, b"fix \xff"], USAGE, ["prompt: is not valid UTF-8"]),
    Case("submit-prompt-blank", [*SUBMIT, "   "], USAGE, ["prompt: is empty"]),
    Case("submit-follow-up-empty", [*SUBMIT, "task", "--follow-up", ""], USAGE, ["follow-up: #1 is empty"]),
    Case("submit-follow-up-not-utf8", [*SUBMIT, "task", "--follow-up", "ok", "--follow-up", b"\xfe"], USAGE,
         ["follow-up: #2 is not valid UTF-8"]),
    Case("submit-pin-model-empty", [*SUBMIT, "task", "--pin-model", " "], USAGE, ["pin-model: is empty"]),
    Case("submit-unknown-tier", [*SUBMIT, "task", "--tier", "turbo"], USAGE,
         ["tier: 'turbo' is not a tier of workspace", "its tiers: standard"]),
    Case("submit-unknown-workspace", ["submit", "-w", "no-such-ws", "-a", "{agent}", "--run-id", "{run}", "t"], USAGE,
         ["workspace: 'no-such-ws' does not exist", "office workspace set"]),
    Case("submit-unknown-agent", ["submit", "-w", "{ws}", "-a", "nobody", "--run-id", "{run}", "t"], USAGE,
         ["agent: 'nobody' does not exist", "office profile set"]),
    Case("submit-unknown-pin-provider", [*SUBMIT, "task", "--pin-provider", "ghost"], USAGE,
         ["pin-provider: ghost not in workspace"]),
    Case("submit-bad-run-id", ["submit", "-w", "{ws}", "-a", "{agent}", "--run-id", "bad id/1", "t"], USAGE,
         ["run-id: use 1-"]),
    Case("submit-no-workspace", ["submit", "-a", "{agent}", "task"], USAGE, ["Missing option '--workspace'"],
         one_line=False),
    # --- runs that do not exist ----------------------------------------------------------------------------
    Case("runs-cancel-unknown", ["runs", "cancel", "{run}"], USAGE, ["not found", "{run}", "office runs list"]),
    Case("runs-resume-unknown", ["runs", "resume", "{run}"], USAGE, ["not found", "{run}", "office runs list"]),
    Case("runs-explain-unknown", ["runs", "explain", "{run}"], USAGE, ["not found", "{run}"]),
    Case("runs-show-unknown", ["runs", "show", "{run}"], USAGE, ["{run}", "not found"]),
    Case("watch-unknown", ["watch", "{run}"], USAGE, ["not found", "{run}"]),
    Case("runs-decide-unknown", ["runs", "decide", "{run}", "--retry"], USAGE, ["{run} is not awaiting a decision"]),
    # --- environment -------------------------------------------------------------------------------------
    Case("db-url-mysql", ["workspace", "list"], USAGE, ["OFFICE_DATABASE_URL 'mysql://u:***@h/db'", "postgresql://"],
         env={"OFFICE_DATABASE_URL": "mysql://u:pw@h/db"}),
    Case("db-url-garbage", ["workspace", "list"], USAGE, ["OFFICE_DATABASE_URL 'garbage'", "sqlite:///"],
         env={"OFFICE_DATABASE_URL": "garbage"}),
    Case("db-missing-database", ["workspace", "list"], UNAVAILABLE,
         ['database "office_no_such_db" does not exist', "office db upgrade"],
         env={"OFFICE_DATABASE_URL": "postgresql://127.0.0.1:5432/office_no_such_db"}),
    Case("db-closed-port", ["workspace", "list"], UNAVAILABLE, ["cannot open the database", "OFFICE_DATABASE_URL"],
         env={"OFFICE_DATABASE_URL": "postgresql://127.0.0.1:1/office"}),
    Case("db-not-migrated", ["workspace", "list"], UNAVAILABLE, ["has no office tables yet", "office db upgrade"],
         env={"OFFICE_DATABASE_URL": "sqlite:///{dir}/empty.db"}),
    Case("temporal-closed-port", ["runs", "list"], UNAVAILABLE, ["Temporal at 127.0.0.1:1 (TEMPORAL_ADDRESS)",
         "connection refused"], env={"TEMPORAL_ADDRESS": "127.0.0.1:1"}),
    Case("temporal-submit-closed-port", [*SUBMIT, "task"], UNAVAILABLE, ["TEMPORAL_ADDRESS"],
         env={"TEMPORAL_ADDRESS": "127.0.0.1:1"}),
    Case("temporal-address-not-host-port", ["runs", "list"], USAGE,
         ["TEMPORAL_ADDRESS 'host:notaport' is not host:port"],
         env={"TEMPORAL_ADDRESS": "host:notaport"}),
    Case("temporal-unknown-namespace", ["runs", "cancel", "{run}"], USAGE,
         ["TEMPORAL_NAMESPACE: namespace 'no-such-ns' does not exist", "temporal operator namespace create"],
         env={"TEMPORAL_NAMESPACE": "no-such-ns"}),
    Case("codec-keys-file-missing", ["runs", "list"], USAGE, ["OFFICE_CODEC_KEYS_FILE", "cannot read the key file"],
         env={"OFFICE_CODEC_KEYS_FILE": "{dir}/no-keys"}),
    Case("explain-error-body-file-missing", ["explain-error", "--status", "429", "--body-file", "{dir}/b.json"], USAGE,
         ["b.json: no such file", "--body-file"]),
]  # fmt: skip


def fill(value: str | bytes, values: dict[str, str]) -> str | bytes:
    if isinstance(value, bytes):
        for key, v in values.items():
            value = value.replace(f"{{{key}}}".encode(), v.encode())
        return value
    for key, v in values.items():
        value = value.replace(f"{{{key}}}", v)
    return value


async def run_case(stack, case: Case, base: Path, values: dict[str, str]) -> tuple[int | None, str, str]:
    folder = base / case.id
    folder.mkdir()
    values = values | {"dir": str(folder), "run": f"bad-{case.id}-{values['tag']}"}
    for name, content in case.files.items():
        (folder / name).write_bytes(fill(content, values))  # type: ignore[arg-type]
    env = {
        **os.environ,
        "TEMPORAL_ADDRESS": stack.temporal.address,
        "TEMPORAL_NAMESPACE": "default",
        "OFFICE_DATABASE_URL": stack.database_url,
        "OFFICE_OTEL_EXPORTER": "none",
        "COLUMNS": "80",  # narrow: the error must stay on one line anyway
    } | {k: str(fill(v, values)) for k, v in case.env.items()}
    if "OFFICE_CODEC_KEYS_FILE" not in case.env:
        env.pop("OFFICE_CODEC_KEYS_FILE", None)
    argv = [fill(a, values) for a in case.argv]
    proc = await asyncio.create_subprocess_exec(
        OFFICE, *argv, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=60)
    return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def problems_of(case: Case, code: int | None, out: str, err: str, values: dict[str, str]) -> list[str]:
    run = f"bad-{case.id}-{values['tag']}"
    found = []
    if code != case.exit:
        found.append(f"exit {code}, expected {case.exit}")
    if "Traceback" in err or "Traceback" in out:
        found.append("a traceback")
    lines = [line for line in err.splitlines() if line.strip()]
    if case.one_line and len(lines) != 1:
        found.append(f"{len(lines)} lines on stderr, expected one")
    flat = " ".join(err.split())
    for text in case.expect:
        wanted = str(fill(text, values | {"run": run}))
        if wanted not in flat:
            found.append(f"missing {wanted!r}")
    return found


async def test_every_bad_input_is_one_line_with_a_documented_exit_and_nothing_saved_or_started(stack, tmp_path):
    assert len(CASES) >= 50 and len({c.id for c in CASES}) == len(CASES)
    ws, agent, p = await stack.workspace({"a": SimProvider()})
    values = {
        "ws": ws,
        "agent": agent,
        "p": p["a"],
        "tag": uuid.uuid4().hex[:6],
        "url": stack.simulator.provider_url(p["a"]),
    }
    workspaces_before = [w.model_dump() for w in await stack.store.list_workspaces()]
    agents_before = [a.model_dump() for a in await stack.store.list_agents()]

    gate = asyncio.Semaphore(4)

    async def one(case: Case) -> tuple[Case, int | None, str, str]:
        async with gate:
            return (case, *await run_case(stack, case, tmp_path, values))

    results = await asyncio.gather(*(one(c) for c in CASES))
    failures = []
    for case, code, out, err in results:
        if found := problems_of(case, code, out, err, values):
            failures.append(f"{case.id}: {'; '.join(found)}\n    stderr: {err.strip()[:600]}")
    assert not failures, f"{len(failures)} of {len(CASES)} cases:\n" + "\n".join(failures)

    # Nothing half-saved: every workspace and profile is as it was (the bad files named the existing ones).
    assert [w.model_dump() for w in await stack.store.list_workspaces()] == workspaces_before
    assert [a.model_dump() for a in await stack.store.list_agents()] == agents_before
    # Nothing started: no workflow exists under any case's run id.
    started = []
    for case in CASES:
        run = f"bad-{case.id}-{values['tag']}"
        try:
            await stack.client.get_workflow_handle(run).describe()
            started.append(run)
        except RPCError:
            pass
    assert started == []


async def test_submit_wait_on_a_run_that_parks_returns_parked_with_its_reason_and_exit_4(stack, tmp_path, monkeypatch):
    monkeypatch.delenv("OFFICE_CRED_BAD_INPUT_UNSET_KEY", raising=False)
    ws, agent, _ = await stack.workspace({"a": SimProvider()}, credential_env="OFFICE_CRED_BAD_INPUT_UNSET_KEY")
    run = f"parks-{uuid.uuid4().hex[:8]}"
    case = Case("parks", [*SUBMIT, "task", "--wait", "--json"], PARKED, [])
    code, out, err = await run_case(stack, case, tmp_path, {"ws": ws, "agent": agent, "tag": run})
    try:
        assert code == PARKED, err
        view = json.loads(out)
        assert view["status"] == "parked" and view["park_reason"]
        assert f"is parked ({view['park_reason']})" in err and "office runs resume" in err
        assert "Traceback" not in err
    finally:
        await stack.client.get_workflow_handle(f"bad-parks-{run}").cancel()


async def test_a_foreign_client_start_with_a_payload_that_does_not_validate_fails_naming_the_fields(stack):
    run = f"foreign-{uuid.uuid4().hex[:8]}"
    handle = await stack.client.start_workflow(
        "OfficeRunWorkflow", {"workspace": 7, "prompt": "task"}, id=run, task_queue=stack.task_queue
    )
    with pytest.raises(WorkflowFailureError) as err:
        await asyncio.wait_for(handle.result(), timeout=30)  # at once, not a workflow task retried without end
    message = str(err.value.cause)
    assert (
        "invalid RunRequest" in message
        and "workspace: Input should be a valid string" in message
        and "agent: Field required" in message
    )


async def test_temporal_workflow_start_with_an_unknown_workspace_fails_as_configuration(stack):
    run = f"foreign-cli-{uuid.uuid4().hex[:8]}"
    payload = {"run_id": run, "workspace": "no-such-workspace", "agent": "nobody", "prompt": "task"}
    proc = await asyncio.create_subprocess_exec(
        temporal_binary(),
        "workflow",
        "start",
        "--address",
        stack.temporal.address,
        "--namespace",
        "default",
        "--type",
        "OfficeRunWorkflow",
        "--task-queue",
        stack.task_queue,
        "--workflow-id",
        run,
        "--input",
        json.dumps(payload),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(proc.communicate(), timeout=30)
    assert proc.returncode == 0, err.decode()
    handle = stack.client.get_workflow_handle(run)
    with pytest.raises(WorkflowFailureError) as failure:
        await asyncio.wait_for(handle.result(), timeout=30)
    assert "no-such-workspace" in str(failure.value.cause)
    attrs = await eventually(  # the status is upserted before the failure; visibility indexes it shortly after
        lambda: _attributes(handle),
        until=lambda a: a.get(sa.STATUS) == RunStatus.failed.value,
        timeout=10,
        interval=0.1,
        what=f"OfficeStatus of {run} to be failed",
    )
    assert attrs.get(sa.ERROR_CODE) == "invalid_configuration"


async def _attributes(handle):
    return (await handle.describe()).typed_search_attributes
