"""Where a worker keeps repository mirrors, working copies and agent session directories: OFFICE_WORK_DIR, else a
private directory in the user's state directory (`$XDG_STATE_HOME/office/work`, `~/.local/state/office/work`),
never a shared, predictable path under /tmp that another user of the machine could create first or read.
Directories made here are owner-only (0700)."""

import os
from pathlib import Path

WORK_DIR_ENV = "OFFICE_WORK_DIR"


def state_dir() -> Path:
    return Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "office"


def default_work_dir() -> str:
    """OFFICE_WORK_DIR, else `work` in the private state directory. Nothing in it is needed once a turn is
    pushed (another worker can continue a run from its branch)."""
    return os.environ.get(WORK_DIR_ENV) or str(state_dir() / "work")


def private_dir(path: Path) -> Path:
    """`path` made (with its missing parents) owner-only; an existing directory is left as it is."""
    missing = [p for p in (path, *path.parents) if not p.exists()]
    for directory in reversed(missing):
        directory.mkdir(mode=0o700, exist_ok=True)
        os.chmod(directory, 0o700)  # mkdir's mode is masked by the umask
    return path
