"""The `office` CLI as a user runs it: a separate process talking to the real stack."""

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest
from temporalio.service import RPCError

from office.simulator.config import InjectedFailure, SimProvider

OFFICE = str(Path(sys.executable).parent / "office")


async def office(stack, *args: str) -> tuple[int, str, str]:
    env = {
        **os.environ,
        "TEMPORAL_ADDRESS": stack.temporal.address,
        "TEMPORAL_NAMESPACE": "default",
        "OFFICE_DATABASE_URL": stack.database_url,
        "COLUMNS": "200",
    }
    proc = await asyncio.create_subprocess_exec(
        OFFICE, *args, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=120)
    return proc.returncode, out.decode(), err.decode()


async def test_submit_wait_json_reports_the_fallback(stack):
    ws, agent, p = await stack.workspace(
        {"alpha": SimProvider(api_key="sk-wrong"), "beta": SimProvider(api_key="sk-sim-test")},
        credential_env="OFFICE_CRED_TEST_KEY",
    )
    code, out, err = await office(
        stack, "submit", "--workspace", ws, "--agent", agent, "Fix the bug", "--wait", "--json"
    )
    assert code == 0, err
    run = json.loads(out)
    assert run["status"] == "completed" and run["provider"] == p["beta"]
    assert run["requested_model"] == "sim-small" and run["effective_model"] == "sim-small"
    assert [(a["seq"], a["provider"], a["outcome"], a["error_code"]) for a in run["attempts"]] == [
        (1, p["alpha"], "failed", "auth_required"),
        (2, p["beta"], "succeeded", None),
    ]
    assert run["warnings"] == [] and run["message"] is None

    code, out, _ = await office(stack, "runs", "show", run["run_id"], "--json")
    assert code == 0 and json.loads(out)["attempts"] == run["attempts"]
    code, out, _ = await office(stack, "runs", "list", "--json", "--query", f'OfficeWorkspace = "{ws}"')
    assert code == 0 and [r["run_id"] for r in json.loads(out)] == [run["run_id"]]


async def test_failed_run_exits_non_zero_with_the_actionable_message(stack):
    gone = InjectedFailure(status=404, kind="model_not_found", models=["old-model"])
    ws, agent, _p = await stack.workspace(
        {"alpha": SimProvider(models=["old-model"], failures=[gone])}, model="old-model"
    )
    code, out, _ = await office(stack, "submit", "-w", ws, "-a", agent, "task", "--wait", "--json")
    run = json.loads(out)
    assert code == 1 and run["status"] == "failed"
    assert run["message"].startswith('Model unavailable: the configured model "old-model"')
    assert f"Change the model in agent profile {agent}" in run["message"]


@pytest.mark.parametrize(
    "args,field",
    [
        (["--workspace", "no-such-ws", "--agent", "{agent}", "task"], "workspace"),
        (["--workspace", "{ws}", "--agent", "no-such-agent", "task"], "agent"),
        (["--workspace", "{ws}", "--agent", "{agent}", "   "], "prompt"),
    ],
)
async def test_bad_input_names_the_problem_and_starts_nothing(stack, args, field):
    ws, agent, _ = await stack.workspace({"alpha": SimProvider()})
    run_id = f"bad-input-{field}-{ws}"
    argv = [a.format(ws=ws, agent=agent) for a in args]
    code, _out, err = await office(stack, "submit", *argv, "--run-id", run_id)
    assert code != 0
    assert f"{field}:" in err
    with pytest.raises(RPCError):
        await stack.client.get_workflow_handle(run_id).describe()


async def test_models_lists_what_the_executor_advertises_and_marks_profiles(stack):
    ws, agent, p = await stack.workspace(
        {"alpha": SimProvider(models=["sim-small", "sim-large"])}, model="sim-large", fallback_model="retired"
    )
    code, out, err = await office(stack, "models", p["alpha"], "--workspace", ws, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["models"] == ["sim-small", "sim-large"]
    [mine] = [r for r in report["profiles"] if r["name"] == agent]
    assert (mine["model_status"], mine["fallback_model_status"]) == ("available", "gone")
    code, out, _ = await office(stack, "profile", "show", agent, "--workspace", ws, "--json")
    shown = json.loads(out)
    assert (shown["model"], shown["model_status"], shown["fallback_model"], shown["auto_fallback"]) == (
        "sim-large",
        "available",
        "retired",
        False,
    )


async def test_workspace_and_profile_files_are_validated_whole(stack, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: broken\nprovider_order: [a, b]\nproviders:\n  a: {base_url: 'http://x'}\n")
    code, _, err = await office(stack, "workspace", "set", "--file", str(bad))
    assert code == 2 and "without an entry under providers" in err
    assert await stack.store.get_workspace("broken") is None  # nothing half-saved

    good = tmp_path / "good.yaml"
    good.write_text(
        "name: filed\nprovider_order: [a]\nproviders:\n  a: {base_url: 'http://x', credential_env: OFFICE_CRED_A_KEY}\n"
    )
    code, _, err = await office(stack, "workspace", "set", "--file", str(good))
    assert code == 0, err
    code, out, _ = await office(stack, "workspace", "show", "filed", "--json")
    assert json.loads(out)["providers"]["a"]["credential_env"] == "OFFICE_CRED_A_KEY"

    profile = tmp_path / "profile.json"
    profile.write_text(json.dumps({"name": "Not Valid", "model": "m"}))
    code, _, err = await office(stack, "profile", "set", "--file", str(profile))
    assert code == 2 and "name" in err


async def test_pin_explain_and_decide_from_the_cli(stack):
    ws, agent, p = await stack.workspace(
        {"a": SimProvider(api_key="sk-x"), "b": SimProvider(api_key="sk-sim-test")},
        credential_env="OFFICE_CRED_TEST_KEY",
    )
    code, out, err = await office(stack, "submit", "-w", ws, "-a", agent, "task", "--wait", "--json")
    run = json.loads(out)
    code, out, err = await office(stack, "runs", "explain", run["run_id"], "--json")
    assert code == 0, err
    report = json.loads(out)
    assert [s["decision"] for s in report["selected"]] == ["fallback", None]
    assert set(report) >= {"selected", "live", "durable", "cleanup"}

    code, _, err = await office(stack, "runs", "decide", run["run_id"], "--retry")
    assert code == 2 and "not awaiting a decision" in err  # a finished run cannot be decided

    code, _, err = await office(stack, "pin", agent, "--provider", p["a"], "--actor", "carol")
    assert code == 0, err
    code, out, _ = await office(stack, "selections", "--json")
    mine = [r for r in json.loads(out) if r["agent"] == agent]
    assert [(r["kind"], r["value"], r["source"], r["actor"]) for r in mine] == [("provider", [p["a"]], "user", "carol")]
    code, _, _ = await office(stack, "unpin", agent)
    assert code == 0
    code, out, _ = await office(stack, "selections", "--json")
    assert [r for r in json.loads(out) if r["agent"] == agent] == []


async def test_a_misspelt_setting_is_refused_and_workspace_show_is_unchanged(stack, tmp_path):
    ws, _agent, p = await stack.workspace({"alpha": SimProvider()})
    code, before, err = await office(stack, "workspace", "show", ws, "--json")
    assert code == 0, err
    typo = tmp_path / "typo.yaml"
    typo.write_text(
        f"name: {ws}\nprovider_order: [{p['alpha']}]\n"
        f"providers:\n  {p['alpha']}: {{base_url: 'http://127.0.0.1:9/v1', credentail_env: A_KEY}}\n"
    )
    code, _, err = await office(stack, "workspace", "set", "--file", str(typo))
    assert code == 2 and f"providers.{p['alpha']}.credentail_env: is not a known setting" in err
    assert "credential_env" in err and "nothing was saved" in err and "Traceback" not in err
    code, after, _ = await office(stack, "workspace", "show", ws, "--json")
    assert code == 0 and json.loads(after) == json.loads(before)
