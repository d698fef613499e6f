"""`office dev` keeps its data private to its user: the data, work and key directories are 0700 and every file it
(or the Temporal dev server, SQLite, git) writes there is 0600 or tighter; the store holds prompts and answers in
plain text, the key file decrypts Temporal's payloads."""

import asyncio
import os
import signal
import stat
import sys
from pathlib import Path

from office.asgi import free_port

OFFICE = str(Path(sys.executable).parent / "office")


async def test_office_dev_creates_its_directories_0700_and_its_files_0600(tmp_path):
    data = tmp_path / "data"
    ports = [str(free_port()) for _ in range(4)]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OFFICE_", "TEMPORAL_"))}
    proc = await asyncio.create_subprocess_exec(
        OFFICE, "dev", "--no-demo", "--data-dir", str(data), "--temporal-port", ports[0], "--ui-port", ports[1],
        "--simulator-port", ports[2], "--codec-port", ports[3],
        env=env | {"OFFICE_OTEL_EXPORTER": "none"}, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )  # fmt: skip
    assert proc.stdout is not None
    try:
        async with asyncio.timeout(120):
            while (line := await proc.stdout.readline()) and line.strip() != b"ready":
                pass
        assert line.strip() == b"ready", (await proc.stderr.read()).decode()[-2000:]  # type: ignore[union-attr]
        found = modes(data)
        found["."] = stat.S_IMODE(data.stat().st_mode)
        for name in ("codec-keys", "office.db", "temporal.db"):
            assert found[name] == 0o600, (name, oct(found[name]))
        assert found["."] == 0o700 and found["work"] == 0o700
        shared = {name: oct(mode) for name, mode in found.items() if mode & 0o077}
        assert shared == {}  # nothing in the data dir is readable by the group or others
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        await asyncio.wait_for(proc.wait(), timeout=60)


def modes(data: Path) -> dict[str, int]:
    """Each path under `data` and its mode; a file SQLite removed between the listing and its stat (a rollback
    journal, a `-wal` checkpointed away) is gone, so nobody can read it."""
    found = {}
    for p in data.rglob("*"):
        try:
            found[p.relative_to(data).as_posix()] = stat.S_IMODE(p.stat().st_mode)
        except FileNotFoundError:
            continue
    return found
