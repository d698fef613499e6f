"""The Temporal UI, in headless Chromium, lists the runs this test created when filtered by the project's
search attributes. The screenshot is kept at artifacts/ui-fallback-runs.png (see README)."""

import asyncio
import os
import shutil
import tempfile
from pathlib import Path
from urllib.parse import quote

import pytest

from office.simulator.config import SimProvider
from testkit.eventually import eventually
from testkit.runs import run_to_end

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOT = ROOT / "artifacts" / "ui-fallback-runs.png"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1600,900",
    "--virtual-time-budget=20000",
]


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if found is None:
        message = "headless Chromium is not installed (Debian package `chromium`; .ci/run installs it)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return found


async def _chromium(*args: str) -> str:
    with tempfile.TemporaryDirectory() as profile:
        proc = await asyncio.create_subprocess_exec(
            chromium(),
            *CHROMIUM_FLAGS,
            f"--user-data-dir={profile}",
            *args,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        out, _ = await asyncio.wait_for(proc.communicate(), timeout=90)
    assert proc.returncode == 0
    return out.decode()


async def _listed(stack, query: str) -> list[str]:
    return [w.id async for w in stack.client.list_workflows(query)]


async def test_ui_lists_the_fallback_runs_of_a_workspace(stack):
    ws, agent, _p = await stack.workspace(
        {"a": SimProvider(api_key="sk-x"), "b": SimProvider(api_key="sk-sim-test")},
        credential_env="OFFICE_CRED_TEST_KEY",
    )
    fell_back = await run_to_end(stack, ws, agent, "first task")  # a rejects the key → b
    direct = await run_to_end(stack, ws, agent, "second task")  # a is known to need action → b directly
    assert (fell_back.fallback_count, direct.fallback_count) == (1, 0)
    query = f'OfficeWorkspace = "{ws}" AND OfficeFallbackCount > 0'
    await eventually(  # visibility is eventually consistent
        lambda: _listed(stack, query),
        until=lambda ids: ids == [fell_back.run_id],
        timeout=30,
        interval=0.2,
        what=f"visibility to list exactly {fell_back.run_id} for {query}",
    )
    url = f"{stack.temporal.ui_url}/namespaces/default/workflows?query={quote(query)}"
    SCREENSHOT.parent.mkdir(exist_ok=True)
    SCREENSHOT.unlink(missing_ok=True)  # the one this run takes, not an earlier run's
    dom = await _chromium("--dump-dom", f"--screenshot={SCREENSHOT}", url)  # one page load: the DOM and its picture
    assert fell_back.run_id in dom and "OfficeRunWorkflow" in dom
    assert direct.run_id not in dom  # the UI applied the search-attribute filter
    assert SCREENSHOT.stat().st_size > 10_000
