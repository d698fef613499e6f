"""What durable turns cost: seconds a turn gains from commit + push on a repository of ~2,000 files, the disk a
working copy takes, and 10 runs preparing, committing and pushing at once on one worker
(`run(concurrent=20)` for more; a checkout of 2,000 files costs ~1.5 s of system time on these VMs).

    python -m bench.repository     (a dict; 10–25 s on two shared cores)
"""

import asyncio
import json
import os
import random
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from activities.git import workcopy
from activities.git.mirrors import Mirrors
from activities.git.runner import DEV_MODE_ENV
from bench.errors import BenchFailed
from routing.repository import RepositoryConfig

_ENV = {**os.environ, "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@localhost",
        "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@localhost"}  # fmt: skip


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=_ENV, check=True, capture_output=True)


def make_repository(where: Path, files: int, seed: int = 7) -> Path:
    """A bare repository whose main branch holds `files` source-like files (1–4 KB) in nested directories."""
    rng = random.Random(seed)
    src = where / "seed"
    for i in range(files):
        d = src / f"pkg{i % 40:02d}" / f"mod{i % 7}"
        d.mkdir(parents=True, exist_ok=True)
        lines = [f"def f_{i}_{n}(x):\n    return x * {rng.randint(1, 999)}\n" for n in range(rng.randint(15, 60))]
        (d / f"file_{i:04d}.py").write_text("".join(lines))
    _git("init", "-q", "-b", "main", cwd=src)
    _git("add", ".", cwd=src)
    _git("commit", "-q", "-m", "generated", cwd=src)
    bare = where / "app.git"
    _git("clone", "-q", "--bare", str(src), str(bare), cwd=where)
    return bare


def _office_branches(bare: Path) -> list[str]:
    out = subprocess.run(["git", f"--git-dir={bare}", "for-each-ref", "--format=%(refname)", "refs/heads/office/"],
                         capture_output=True, text=True, check=True)  # fmt: skip
    return out.stdout.split()


def _blocks(path: Path) -> int:
    total = 0
    for dirpath, _, names in os.walk(path):
        for name in names:
            total += os.lstat(os.path.join(dirpath, name)).st_blocks * 512
    return total


def _edit(wc: workcopy.WorkCopy, turn: int, rng: random.Random, n: int = 3) -> None:
    tracked = sorted(p for p in wc.path.rglob("*.py"))
    for path in rng.sample(tracked, n):
        with path.open("a") as fh:
            fh.write(f"\n# turn {turn}\ndef added_{turn}(x):\n    return x + {turn}\n")
    (wc.path / f"notes_{turn}.md").write_text(f"turn {turn}\n")


async def run(files: int = 2000, turns: int = 10, concurrent: int = 10) -> dict[str, Any]:
    started = time.monotonic()
    rng = random.Random(11)
    os.environ[DEV_MODE_ENV] = "1"  # the bench's repository is a path on this machine: a development worker's
    with tempfile.TemporaryDirectory(prefix="office-bench-repo-") as tmp:
        where = Path(tmp)
        bare = await asyncio.to_thread(make_repository, where, files)
        config = RepositoryConfig(url=str(bare))
        worker = Mirrors(where / "worker")

        t = time.monotonic()
        wc = await workcopy.prepare("bench-run", config, None, worker)
        cold_prepare = time.monotonic() - t

        per_turn: list[float] = []
        for turn in range(1, turns + 1):
            _edit(wc, turn, rng)
            t = time.monotonic()
            commit = await workcopy.commit_turn(wc, turn, "alpha", "bench-model")
            per_turn.append(time.monotonic() - t)
            if not commit.changed:
                raise BenchFailed(f"turn {turn} edited files but its commit recorded no change")
        t = time.monotonic()
        await workcopy.commit_turn(wc, turns + 1, "alpha", "bench-model")
        idle_turn = time.monotonic() - t

        disk_files = workcopy.disk_bytes(wc.path)
        disk_blocks = _blocks(wc.path)
        mirror_blocks = _blocks(wc.mirror)

        t = time.monotonic()
        other = await workcopy.prepare("bench-run", config, wc.head, Mirrors(where / "worker-b"))
        fallback_prepare = time.monotonic() - t
        note = await workcopy.continuation_note(other)
        await workcopy.remove(other)
        await workcopy.remove(wc)

        phases: dict[str, list[float]] = {"prepare": [], "commit_push": [], "remove": []}

        async def one(i: int) -> float:
            t0 = time.monotonic()
            w = await workcopy.prepare(f"bench-{i:02d}", config, None, worker)
            t1 = time.monotonic()
            (w.path / f"run_{i}.txt").write_text(f"{i}\n")
            await workcopy.commit_turn(w, 1, "alpha", "bench-model")
            t2 = time.monotonic()
            await workcopy.remove(w)
            t3 = time.monotonic()
            for name, took in (("prepare", t1 - t0), ("commit_push", t2 - t1), ("remove", t3 - t2)):
                phases[name].append(took)
            return t3 - t0

        t = time.monotonic()
        each = await asyncio.gather(*(one(i) for i in range(concurrent)))
        wall = time.monotonic() - t
        branches = _office_branches(bare)

    return {
        "files": files,
        "turns": turns,
        "commit_push_s_median": round(statistics.median(per_turn), 4),
        "commit_push_s_p90": round(sorted(per_turn)[int(0.9 * (len(per_turn) - 1))], 4),
        "commit_push_s_max": round(max(per_turn), 4),
        "unchanged_turn_s": round(idle_turn, 4),
        "prepare_cold_s": round(cold_prepare, 3),
        "prepare_fallback_other_worker_s": round(fallback_prepare, 3),
        "working_copy_bytes": disk_files,
        "working_copy_disk_bytes": disk_blocks,
        "mirror_disk_bytes": mirror_blocks,
        "continuation_note_chars": len(note),
        "concurrent_runs": concurrent,
        "concurrent_wall_s": round(wall, 3),
        "concurrent_run_s_max": round(max(each), 3),
        **{f"concurrent_{k}_s_median": round(statistics.median(v), 3) for k, v in phases.items()},
        "concurrent_branches_pushed": len(branches) - 1,  # minus bench-run
        "seconds": round(time.monotonic() - started, 1),
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(run()), indent=2))
