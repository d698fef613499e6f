"""The size limits of a working copy, measured before anything is checked out: every file of a commit within
repository.max_file_bytes and the whole checkout within repository.max_checkout_bytes."""

from pathlib import Path

from activities.git.runner import run_git
from routing.repository import MiB, RepositoryConfig, RepositoryConfigError

BLOCK = 4096  # what a file takes on disk at least, and its granularity


def _size(n: int) -> str:
    return f"{n / MiB:,.1f} MiB" if n >= MiB else f"{n:,} bytes"


async def check_bounds(config: RepositoryConfig, commit: str, where: str, mirror: Path, env: dict[str, str]) -> None:
    """Every file of `commit` within repository.max_file_bytes and the working copy (each file in whole blocks)
    within repository.max_checkout_bytes; RepositoryConfigError naming the setting otherwise. Sizes come from the
    object headers, so a 200 MB file of zeros is measured without being inflated. `where`: the branch or ref the
    commit is on, for the message."""
    out = await run_git("ls-tree", "-r", "-l", "-z", "--full-tree", commit, cwd=mirror, env=env)
    total, files, biggest, biggest_path = 0, 0, -1, ""
    for record in out.out.split("\0"):
        meta, _, path = record.partition("\t")
        parts = meta.split()
        if len(parts) != 4 or parts[1] != "blob":
            continue  # a submodule (commit) entry is never checked out
        size = int(parts[3])
        files += 1
        total += max(-(-size // BLOCK), 1) * BLOCK
        if size > biggest:
            biggest, biggest_path = size, path
    if biggest > config.max_file_bytes:
        raise RepositoryConfigError(
            "repository.max_file_bytes",
            f"{biggest_path} in {where} ({commit[:12]}) of {config.url} is {_size(biggest)}, over "
            f"repository.max_file_bytes ({_size(config.max_file_bytes)}); remove it from {where} (keep large files "
            f"out of the repository) or raise repository.max_file_bytes in the workspace settings",
        )
    if total > config.max_checkout_bytes:
        raise RepositoryConfigError(
            "repository.max_checkout_bytes",
            f"a working copy of {where} ({commit[:12]}) of {config.url} would take {_size(total)} on disk ({files:,} "
            f"files), over repository.max_checkout_bytes ({_size(config.max_checkout_bytes)}); point "
            f"repository.base_ref at a smaller tree or raise repository.max_checkout_bytes in the workspace settings",
        )
