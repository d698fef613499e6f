"""Pushes from a working copy: the run's branch with `--force-with-lease` against the value the copy last saw (a
stale worker never overwrites newer work), or a failed attempt's partial work to its side ref; and what a refused
push means: `BranchMovedError` for a stale attempt, `RepositoryConfigError` naming the setting, or
`RepositoryUnavailableError` (infrastructure)."""

import re
from pathlib import Path

from activities.git.runner import AUTH_REFUSED, GitOutput, first_line, net_args, run_git
from routing.repository import BranchMovedError, RepositoryConfig, RepositoryConfigError, RepositoryUnavailableError

_STALE = re.compile(r"stale info|\(fetch first\)|\(non-fast-forward\)", re.IGNORECASE)


async def push_branch(
    config: RepositoryConfig, branch: str, commit: str, lease: str | None, cwd: Path, env: dict[str, str]
) -> None:
    """Moves refs/heads/`branch` in the repository to `commit` only if it is still at `lease` (None: only if the
    branch does not exist there yet)."""
    out = await run_git("push", "--quiet", "--no-verify", f"--force-with-lease=refs/heads/{branch}:{lease or ''}",
                        "origin", f"{commit}:refs/heads/{branch}", cwd=cwd, env=env, check=False,
                        pre=net_args(env))  # fmt: skip
    if out.rc != 0:
        raise push_error(config, branch, out)


async def push_side_ref(config: RepositoryConfig, ref: str, commit: str, cwd: Path, env: dict[str, str]) -> None:
    """Sets `ref` in the repository to `commit`, whatever it was (a failed attempt's own ref)."""
    out = await run_git("push", "--quiet", "--no-verify", "--force", "origin", f"{commit}:{ref}", cwd=cwd, env=env,
                        check=False, pre=net_args(env))  # fmt: skip
    if out.rc != 0:
        raise push_error(config, ref, out)


def push_error(config: RepositoryConfig, ref: str, out: GitOutput) -> Exception:
    """Why pushing `ref` failed, as the error the run acts on."""
    why = first_line(out.err)
    if _STALE.search(out.err):
        return BranchMovedError(
            f"{ref} moved on in {config.url} since this working copy started ({why}): this attempt is stale and "
            f"does not overwrite the newer work"
        )
    if AUTH_REFUSED.search(out.err):
        return RepositoryConfigError(
            "repository.push_credential_env",
            f"pushing {ref} to {config.url} was refused ({why}); set repository.push_credential_env to the name of "
            f"a variable on the worker holding a token with write access",
        )
    if "remote rejected" in out.err or "hook declined" in out.err:
        return RepositoryConfigError(
            "repository.url",
            f"{config.url} refuses pushes to {ref} ({why}); allow the office to push office/* and office-failed/* "
            f"branches there",
        )
    return RepositoryUnavailableError(f"pushing {ref} to {config.url} failed: {why}")
