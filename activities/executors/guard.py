"""The agent's guard: `python -I -S guard.py <worker pid> <command…>`. Standard library only, started fast.

It leads the agent's process group and runs the agent in it (only with `sandbox: none`: a sandboxed agent's
pid namespace does this job). Its first step arms a parent-death signal (SIGTERM) for itself, so nothing runs
between fork and exec in the worker; when the worker dies, however it dies, the guard kills the whole agent tree
(the group, plus any process that left the group but still carries this guard's mark), not just its direct child:
a Node bridge's grandchildren (the Claude Code CLI under its bridge, the Rust binary under codex-acp's launcher)
go too. When the agent exits by itself, what it left behind is killed the same way and its exit status is passed on.
"""

import contextlib
import ctypes
import os
import signal
import sys

MARK = "OFFICE_AGENT_GUARD"  # every process of this agent's tree inherits MARK=<guard pid>
PR_SET_PDEATHSIG = 1


def _tree(me: int) -> list[int]:
    """Other processes in this group, or marked as this guard's (an agent may start its own groups)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                pgrp = int(f.read().rsplit(b")", 1)[1].split()[2])
            if pgrp == me:
                found.append(int(entry))
                continue
            with open(f"/proc/{entry}/environ", "rb") as f:
                if f"{MARK}={me}".encode() in f.read().split(b"\0"):
                    found.append(int(entry))
        except (OSError, ValueError, IndexError):
            continue
    return found


def _kill_tree() -> None:
    me = os.getpid()
    for _ in range(3):  # a dying parent may still be forking: sweep until nothing is left
        pids = _tree(me)
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def main(argv: list[str]) -> int:
    worker, command = int(argv[1]), argv[2:]
    os.environ[MARK] = str(os.getpid())

    def stop(*_: object) -> None:
        _kill_tree()
        os._exit(143)

    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, stop)
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)  # the worker's death reaches us
    if os.getppid() != worker:  # the worker died before the parent-death signal was armed
        stop()
    child = os.fork()
    if child == 0:
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(sig, signal.SIG_DFL)
        try:
            os.execvp(command[0], command)
        except OSError as err:
            os.write(2, f"agent command not found: {command[0]} ({err.strerror})\n".encode())
            os._exit(127)
    null = os.open(os.devnull, os.O_RDWR)  # the agent owns stdio: the pipes close when it and its tree are gone
    os.dup2(null, 0)
    os.dup2(null, 1)
    _, status = os.waitpid(child, 0)
    _kill_tree()
    return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
