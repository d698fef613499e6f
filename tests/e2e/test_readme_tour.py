"""The README's five-minute tour, as written: `office dev` with its demo, then every command of the tour's block
run by a shell with the `export` lines `office dev` printed, as a new user pastes them. Each must succeed and show
what the README says it shows. Then the getting-started page's workspace file is saved with its own commands."""

import asyncio
import os
import re
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from office.asgi import free_port

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent

# What the README says each tour command shows (a command not listed here must only succeed).
SHOWS = {
    "office runs list": ["demo-auth-fallback", "demo-model-gone", "demo-model-drift", "demo-repo-change"],
    "office runs show demo-auth-fallback": ["completed", "auth_required", "fallback", "beta"],
    "office runs show demo-model-gone": ["failed", "Change the model in agent profile legacy"],
    "office runs show demo-model-drift": ["model_selection_warning", "gpt-4-0314"],
    "office runs diff demo-repo-change --stat": ["CHANGELOG.md"],
    "office health list": ["alpha", "user_action_required"],
    "office explain-error --status 429": ["rate_limited"],
}


def fenced_block_after(document: Path, marker: str) -> str:
    """The first fenced code block after the HTML comment that starts with `marker`."""
    text = document.read_text(encoding="utf-8")
    found = re.search(rf"<!-- {re.escape(marker)}[^>]*-->\s*```\w*\n(.*?)```", text, re.DOTALL)
    assert found, f"{document.name} has no code block marked {marker}"
    return found.group(1)


def commands(block: str) -> list[str]:
    return [line.strip() for line in block.splitlines() if line.strip() and not line.strip().startswith("#")]


@pytest.fixture(scope="module")
async def office_dev(tmp_path_factory) -> AsyncIterator[dict[str, str]]:
    """`office dev` with its demo on free ports; yields the environment a second shell has after pasting the
    `export` lines it printed."""
    data = tmp_path_factory.mktemp("tour") / "data"
    ports = [str(free_port()) for _ in range(4)]
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("OFFICE_", "TEMPORAL_"))}
    proc = await asyncio.create_subprocess_exec(
        str(BIN / "office"), "dev", "--data-dir", str(data), "--temporal-port", ports[0], "--ui-port", ports[1],
        "--simulator-port", ports[2], "--codec-port", ports[3],
        env=clean | {"OFFICE_OTEL_EXPORTER": "none"}, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    exports: dict[str, str] = {}
    try:
        async with asyncio.timeout(90):
            while (line := (await proc.stdout.readline()).decode()) and line.strip() != "ready":
                if line.startswith("export "):
                    name, value = line.removeprefix("export ").strip().split("=", 1)
                    exports[name] = value
        assert line.strip() == "ready", (await proc.stderr.read()).decode()[-2000:]
        # The user's second shell: `source .venv/bin/activate` puts `office` on PATH; then the pasted exports.
        yield clean | exports | {"PATH": f"{BIN}{os.pathsep}{clean.get('PATH', '')}", "COLUMNS": "200"}
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        await asyncio.wait_for(proc.wait(), timeout=60)


async def shell(line: str, env: dict[str, str], cwd: Path) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        "bash", "-c", line, env=env, cwd=cwd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    out, _ = await asyncio.wait_for(proc.communicate(), timeout=60)
    return proc.returncode or 0, out.decode()


async def test_the_readme_tour_runs_as_written(office_dev, tmp_path):
    tour = commands(fenced_block_after(ROOT / "README.md", "readme-tour"))
    assert len(tour) >= 5 and all(line.startswith("office ") for line in tour)
    for line in tour:
        code, out = await shell(line, office_dev, tmp_path)
        assert code == 0, f"`{line}` exited {code}:\n{out[-2000:]}"
        for prefix, wanted in SHOWS.items():
            if line.startswith(prefix):
                missing = [w for w in wanted if w not in out]
                assert not missing, f"`{line}` does not show {missing}:\n{out[-2000:]}"
    assert set(SHOWS) <= {prefix for prefix in SHOWS if any(line.startswith(prefix) for line in tour)}


async def test_the_getting_started_workspace_is_saved_by_its_own_commands(office_dev, tmp_path):
    page = ROOT / "docs" / "getting-started.md"
    (tmp_path / "team.yaml").write_text(fenced_block_after(page, "getting-started-workspace"), encoding="utf-8")
    for line in commands(fenced_block_after(page, "getting-started-commands")):
        code, out = await shell(line, office_dev, tmp_path)
        assert code == 0, f"`{line}` exited {code}:\n{out[-2000:]}"
    code, out = await shell("office workspace show team --json", office_dev, tmp_path)
    assert code == 0 and "/opt/office-agents/node_modules/.bin/claude-agent-acp" in out, out
    assert '"mode": "bubblewrap"' in out and "GIT_PUSH_TOKEN" in out
    code, out = await shell("office profile show coder --json", office_dev, tmp_path)
    assert code == 0 and "claude-sonnet-4-5" in out, out
