"""Attacks on the agent's sandbox (activities/executors/sandbox.py, launcher.py, sandbox_init.py) by a hostile agent
process and the repository content in its working copy. Each test asserts the SAFE behaviour: where an attack gets
through today the test is `xfail(strict=True)` with the reason, so this file passes and a fix turns it into a
plain test (remove the mark). Real bubblewrap, no Temporal: agents are started with `launch` as in test_sandbox.py."""

import asyncio
import contextlib
import ctypes
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from activities.executors.acp import AgentSession
from activities.executors.launcher import launch
from activities.executors.sandbox import SandboxPlan
from activities.git import workcopy
from activities.git.mirrors import Mirrors
from routing.repository import RepositoryConfig
from routing.sandbox import Endpoint
from testkit.agents import running
from testkit.factories import acp_profile

pytestmark = pytest.mark.integration

PATH = {"PATH": "/usr/bin:/bin"}
NO_NETWORK = SandboxPlan(endpoints=[])


async def sandboxed(
    argv: list[str], cwd: Path, work: Path, plan: SandboxPlan = NO_NETWORK, wait_s: float = 60
) -> tuple[str, str]:
    """Runs `argv` in a sandbox until it exits, reaps it, returns its stdout and stderr."""
    os.makedirs(cwd, exist_ok=True)
    agent = await launch(argv, PATH, str(cwd), plan, str(work))
    try:
        out, err = await asyncio.wait_for(agent.communicate(), wait_s)
    finally:
        await agent.reap()
    return out.decode(errors="replace"), err.decode(errors="replace")


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=Dev", "-c", "user.email=dev@example.com", *args],
        cwd=cwd, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip


# ------------------------------------------------------------------------------- escaping through the worker's git


async def test_an_agent_cannot_make_the_workers_git_run_its_command(tmp_path):
    seed, bare = tmp_path / "seed", tmp_path / "app.git"
    git("init", "-q", "-b", "main", str(seed))
    (seed / "README.md").write_text("# app\n")
    git("add", ".", cwd=seed)
    git("commit", "-q", "-m", "initial", cwd=seed)
    git("clone", "-q", "--bare", str(seed), str(bare))
    work = tmp_path / "worker"
    wc = await workcopy.prepare("run-git-escape", RepositoryConfig(url=str(bare), base_ref="main"), None, Mirrors(work))
    escaped = tmp_path / "ran-on-the-worker.txt"
    hostile = (
        f"rm -f .git && git init -q . && git config core.fsmonitor 'id > {escaped}; false' && echo work > change.txt"
    )
    await sandboxed(["/bin/sh", "-c", hostile], wc.path, work)
    with contextlib.suppress(Exception):  # whatever the worker makes of it, it runs nothing of the agent's
        await workcopy.commit_turn(wc, 1, "alpha", "m")
    assert not escaped.exists(), escaped.read_text()


# ------------------------------------------------------------------------------------------ kernel interfaces


async def test_the_agent_cannot_create_a_user_namespace_with_capabilities(tmp_path):
    probe = (
        "import ctypes\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "r = libc.unshare(0x10000000 | 0x40000000)\n"  # CLONE_NEWUSER | CLONE_NEWNET
        "caps = [l.split()[1] for l in open('/proc/self/status') if l.startswith('CapEff')][0]\n"
        "print(r, caps)\n"
    )
    out, err = await sandboxed([sys.executable, "-I", "-c", probe], tmp_path / "wc", tmp_path / "work")
    result, caps = out.split()
    assert result != "0" or int(caps, 16) == 0, (out, err)


KEYCTL = {"x86_64": (248, 250), "aarch64": (217, 219)}  # add_key, keyctl


async def test_the_agent_does_not_possess_the_workers_session_keyring(tmp_path):
    if platform.machine() not in KEYCTL:
        pytest.skip("syscall numbers known for x86_64 and aarch64 only")
    add_key, keyctl = KEYCTL[platform.machine()]
    libc = ctypes.CDLL(None, use_errno=True)
    secret = f"worker-key-{uuid.uuid4().hex}".encode()
    key = libc.syscall(add_key, b"user", b"office-attack-probe", secret, len(secret), -3)  # the session keyring
    if key < 0:
        pytest.skip(f"keyctl is not available here (errno {ctypes.get_errno()})")
    probe = (
        "import ctypes, sys\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "buf = ctypes.create_string_buffer(200)\n"
        f"n = libc.syscall({keyctl}, 11, {key}, buf, 200)\n"  # KEYCTL_READ
        "print(buf.raw[:n].decode() if n > 0 else 'refused')\n"
    )
    try:
        out, _ = await sandboxed([sys.executable, "-I", "-c", probe], tmp_path / "wc", tmp_path / "work")
    finally:
        libc.syscall(keyctl, 3, key)  # KEYCTL_REVOKE
    assert secret.decode() not in out


# --------------------------------------------------------------------------------------------- what it can read


async def test_a_symlinked_read_only_path_still_hides_other_runs(tmp_path):
    checkout = tmp_path / "checkout"
    data = checkout / ".office-data"
    (data / "work" / "sessions" / "other-run").mkdir(parents=True)
    (data / "work" / "sessions" / "other-run" / "notes.txt").write_text("other run's secret")
    (tmp_path / "link").symlink_to(checkout)
    plan = SandboxPlan(endpoints=[], read_only=[str(tmp_path / "link")])
    target = tmp_path / "link" / ".office-data" / "work" / "sessions" / "other-run" / "notes.txt"
    out, _ = await sandboxed(["/bin/cat", str(target)], data / "work" / "sessions" / "this-run", data / "work", plan)
    assert "secret" not in out


async def test_a_python_m_agent_does_not_import_from_the_working_copy(tmp_path):
    cwd = tmp_path / "wc"
    (cwd / "json").mkdir(parents=True)
    (cwd / "json" / "__init__.py").write_text("print('hijacked by the repository')\nraise SystemExit(0)\n")
    out, err = await sandboxed([sys.executable, "-m", "json.tool", "--help"], cwd, tmp_path / "work")
    assert "hijacked" not in out, (out, err)


# ------------------------------------------------------------------------------------- the network confinement


async def proxy_answers(tmp_path: Path, endpoints: list[Endpoint], requests: dict[str, bytes]) -> dict[str, str]:
    """Sends each raw request to the sandbox's proxy socket from inside; returns the first bytes answered
    (and the echo when a tunnel opened)."""
    probe = r"""
import json, socket, sys
answers = {}
for name, data in json.loads(sys.argv[1]).items():
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5)
    try:
        s.connect("/run/office/net/0.sock")
        s.sendall(data.encode("latin-1"))
        got = s.recv(200)
        if b" 200 " in got:
            s.sendall(b"ping")
            got += b" / " + s.recv(10)
        answers[name] = got.decode("latin-1")
    except OSError as err:
        answers[name] = f"error: {err}"
    s.close()
print(json.dumps(answers))
"""
    argv = [sys.executable, "-I", "-c", probe, json.dumps({k: v.decode("latin-1") for k, v in requests.items()})]
    out, err = await sandboxed(argv, tmp_path / "wc", tmp_path / "work", SandboxPlan(endpoints=endpoints))
    return json.loads(out or "{}") or {"err": err}


async def echo_server() -> tuple[asyncio.AbstractServer, int]:
    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(await reader.read(4))
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


async def test_the_proxy_refuses_loopback_in_every_spelling_and_plain_http(tmp_path):
    """Got through: nothing. Loopback as an IPv4 or IPv6 literal or as `localhost`, an absolute-form GET, a head
    over the reader's limit: refused or closed."""
    server, port = await echo_server()
    try:
        answers = await proxy_answers(tmp_path, [Endpoint(host="*.example.com", port=None)], {
            "v4": f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n".encode(),
            "v6": f"CONNECT [::1]:{port} HTTP/1.1\r\n\r\n".encode(),
            "name": f"CONNECT localhost:{port} HTTP/1.1\r\n\r\n".encode(),
            "mapped": f"CONNECT [::ffff:127.0.0.1]:{port} HTTP/1.1\r\n\r\n".encode(),
            "absolute GET": f"GET http://a.example.com:{port}/ HTTP/1.1\r\nHost: a.example.com\r\n\r\n".encode(),
            "huge head": b"CONNECT a.example.com:1 HTTP/1.1\r\nX: " + b"a" * 70000 + b"\r\n\r\n",
        })  # fmt: skip
    finally:
        server.close()
    assert all(a.startswith("HTTP/1.1 403") for k, a in answers.items() if k != "huge head"), answers
    assert " 200 " not in answers["huge head"], answers


async def test_an_allowed_name_that_resolves_to_the_workers_loopback_is_refused(tmp_path, monkeypatch):
    real = socket.getaddrinfo

    def rebound(host, *args, **kwargs):  # what a DNS answer of 127.0.0.1 for an allowed name looks like
        return real("127.0.0.1" if host == "rebound.example.com" else host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", rebound)
    server, port = await echo_server()
    try:
        answers = await proxy_answers(tmp_path, [Endpoint(host="*.example.com", port=None)], {
            "rebound": f"CONNECT rebound.example.com:{port} HTTP/1.1\r\n\r\n".encode(),
        })  # fmt: skip
    finally:
        server.close()
    assert "ping" not in answers["rebound"], answers


async def test_a_malformed_connect_port_is_answered_403(tmp_path):
    answers = await proxy_answers(tmp_path, [Endpoint(host="*.example.com", port=None)], {
        "superscript port": "CONNECT a.example.com:\u00b2 HTTP/1.1\r\n\r\n".encode("latin-1"),
    })  # fmt: skip
    assert answers["superscript port"].startswith("HTTP/1.1 403"), answers


HOLD = r"""
import socket, sys, time
held = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(socket.AF_UNIX)
    s.connect("/run/office/net/0.sock")  # the relay's socket, straight: sandbox_init's own limits do not apply
    held.append(s)
print(len(held), flush=True)
time.sleep(60)
"""


async def test_one_sandbox_cannot_hold_unbounded_connections_on_the_worker(tmp_path):
    connections, cap = 400, 128
    cwd = tmp_path / "wc"
    cwd.mkdir()
    before = open_fds()
    plan = SandboxPlan(endpoints=[Endpoint(host="*.example.com", port=None)])
    agent = await launch([sys.executable, "-I", "-c", HOLD, str(connections)], PATH, str(cwd), plan, str(tmp_path))
    try:
        await asyncio.wait_for(agent.process.stdout.readline(), 60)
        await asyncio.sleep(1)
        held = open_fds() - before
    finally:
        await agent.reap()
    assert held <= cap, f"one sandbox holds {held} of the worker's file descriptors"


async def test_a_proxy_connection_without_a_head_is_dropped(tmp_path):
    probe = r"""
import socket, time
s = socket.socket(socket.AF_UNIX)
s.connect("/run/office/net/0.sock")
s.sendall(b"CONNECT ")
s.settimeout(30)
start = time.monotonic()
try:
    s.recv(10)
except OSError:
    pass
print(round(time.monotonic() - start))
"""
    plan = SandboxPlan(endpoints=[Endpoint(host="*.example.com", port=None)])
    out, _ = await sandboxed([sys.executable, "-I", "-c", probe], tmp_path / "wc", tmp_path / "work", plan, 60)
    assert int(out) < 20, f"held for {out.strip()} s"


# ------------------------------------------------------------------------------ the worker's memory and disk


async def test_a_stderr_flood_keeps_a_bounded_tail(tmp_path):
    flood = "import sys\nfor _ in range(5): sys.stderr.write('x' * (2 << 20) + '\\n')\n"
    cwd = tmp_path / "wc"
    cwd.mkdir()
    profile = acp_profile([sys.executable, "-I", "-c", flood])
    session = await AgentSession.launch("run-stderr", "p", profile, PATH, str(cwd), str(tmp_path), NO_NETWORK)
    try:
        await asyncio.wait_for(session.process.wait(), 60)
        await asyncio.wait_for(session.stderr_reader, 30)  # type: ignore[arg-type]
    finally:
        await session.close()
    assert sum(map(len, session.stderr_tail)) <= 64 * 1024


def remove_deep(root: Path) -> None:
    """Removes a chain of nested directories without recursion (shutil.rmtree recurses once per level)."""
    chain = [root]
    while chain[-1].is_dir() and (children := [p for p in chain[-1].iterdir() if p.is_dir()]):
        chain.append(children[0])
    for directory in reversed(chain):
        for entry in directory.iterdir() if directory.exists() else []:
            entry.unlink() if not entry.is_dir() else None
        directory.rmdir()


async def test_a_deep_tree_in_the_agents_home_neither_breaks_the_reap_nor_stays_on_disk(tmp_path):
    deep = "import os\nos.chdir(os.environ['HOME'])\nfor _ in range(1200):\n    os.mkdir('d'); os.chdir('d')\n"
    work, cwd = tmp_path / "work", tmp_path / "wc"
    cwd.mkdir()
    agent = await launch([sys.executable, "-I", "-c", deep], PATH, str(cwd), NO_NETWORK, str(work))
    try:
        await asyncio.wait_for(agent.communicate(), 60)
        await agent.reap()  # raises today
        assert not any((work / "sandboxes").iterdir())
    finally:
        if agent.sandbox is not None:
            shutil.rmtree(agent.sandbox.net_dir, ignore_errors=True)
        for left in (work / "sandboxes").iterdir() if (work / "sandboxes").exists() else []:
            for part in ("home", "tmp"):
                if (left / part).exists():
                    remove_deep(left / part)
            left.rmdir()


@pytest.mark.xfail(
    strict=True,
    reason="the agent's home and /tmp are directories on the worker's own disk with no quota: one agent fills the "
    "disk every run, the store and the mirrors share (README bounds CPU and memory only)",
)
async def test_the_agents_tmp_and_home_are_bounded_in_size(tmp_path):
    bound = 4 << 30
    host = os.statvfs(tmp_path)
    if host.f_bavail * host.f_frsize <= bound:
        pytest.skip("the worker's own disk is smaller than the bound")
    probe = "import os\nfor p in ('/tmp', os.environ['HOME']):\n    s = os.statvfs(p); print(s.f_bavail * s.f_frsize)\n"
    out, _ = await sandboxed([sys.executable, "-I", "-c", probe], tmp_path / "wc", tmp_path / "work")
    assert all(int(free) <= bound for free in out.split()), out


# ---------------------------------------------------------------------------------------- surviving the session


async def test_nothing_the_agent_starts_outlives_its_reap(tmp_path):
    """Got through: nothing. A setsid, double-forked, nohup'ed child that ignores SIGTERM/SIGHUP, while the agent
    itself ignores SIGTERM and keeps running: all gone once the session is reaped (the pid namespace ends)."""
    tag = f"{7000 + os.getpid() % 900}"
    script = (
        f"( trap '' TERM HUP INT; setsid sh -c \"trap '' TERM HUP; ( sleep {tag}1 & ); exec sleep {tag}2\" & ); "
        f"trap '' TERM; nohup sleep {tag}3 >/dev/null 2>&1 & echo started; exec sleep {tag}4"
    )
    cwd = tmp_path / "wc"
    cwd.mkdir()
    agent = await launch(["/bin/sh", "-c", script], PATH, str(cwd), NO_NETWORK, str(tmp_path / "work"))
    try:
        assert await asyncio.wait_for(agent.process.stdout.readline(), 30) == b"started\n"  # type: ignore[union-attr]
        await asyncio.sleep(0.5)
        sleepers = [f"sleep\0{tag}{n}\0" for n in range(1, 5)]  # as /proc/<pid>/cmdline spells them
        assert all(running(s) for s in sleepers), [running(s) for s in sleepers]
    finally:
        await agent.reap()
    await asyncio.sleep(0.5)
    assert not any(running(s) for s in sleepers) and running(tag) == []
