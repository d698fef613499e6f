"""The scripted agent in tests: its sandbox (it runs from this checkout and may write its log) and its processes."""

import json
from pathlib import Path
from typing import Any

from routing.sandbox import ProfileSandbox

ROOT = Path(__file__).resolve().parents[1]


def scripted_sandbox(log: Path | None = None) -> ProfileSandbox:
    """The checkout read-only (the agent is `python -m office.scripted_agent` from it), the log's directory
    writable (what the agent received is what a test reads back)."""
    return ProfileSandbox(read_only=[str(ROOT)], read_write=[str(log.parent)] if log is not None else [])


def running(marker: str | Path) -> list[int]:
    """Live processes (zombies excluded) whose command line carries `marker`: an agent, its sandbox, its guard."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if str(marker).encode() not in (entry / "cmdline").read_bytes():
                continue
            if "\nState:\tZ" in (entry / "status").read_text():
                continue
        except OSError:
            continue
        found.append(int(entry.name))
    return found


def received(log: Path) -> list[dict[str, Any]]:
    """Every call the scripted agent logged to `log`, in order (none before it started)."""
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
