"""The sandbox itself, with real bubblewrap: what a program in it sees of the machine, and what its network
reaches (its loopback provider port for port; other hosts only through the proxy, and only those allowed)."""

import asyncio
import json
import os
import socket
import sys
from pathlib import Path

import pytest

from activities.executors.launcher import launch
from activities.executors.sandbox import PROXY_PORT, SandboxPlan, installation_roots
from routing.sandbox import Endpoint

pytestmark = pytest.mark.integration

PROBE = r"""
import json, os, socket, sys
found = {}
def attempt(name, call):
    try:
        found[name] = call()
    except OSError as err:
        found[name] = f"refused: {err.__class__.__name__}"
def read(path):
    with open(path, "rb") as f:
        return f.read(200).decode(errors="replace")
def connect_via_proxy(host, port):
    s = socket.create_connection(("127.0.0.1", int(os.environ["PROXY_PORT"])), timeout=5)
    s.sendall(f"CONNECT {host}:{port} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
    head = s.recv(200).decode().split("\r\n")[0]
    if " 200 " in head + " ":
        s.sendall(b"ping")
        return head + " / " + s.recv(20).decode()
    return head
def direct(host, port):
    socket.create_connection((host, port), timeout=5).close()
    return "connected"
attempt("shadow", lambda: read("/etc/shadow"))
attempt("worker home", lambda: sorted(os.listdir(os.environ["WORKER_HOME"])))
attempt("pid 1", lambda: read("/proc/1/cmdline"))
attempt("processes", lambda: len([p for p in os.listdir("/proc") if p.isdigit()]))
attempt("write cwd", lambda: open("made-inside.txt", "w").write("ok"))
attempt("home", lambda: os.environ["HOME"])
attempt("provider", lambda: direct("127.0.0.1", int(os.environ["PROVIDER_PORT"])))
attempt("other loopback", lambda: direct("127.0.0.1", int(os.environ["OTHER_PORT"])))
attempt("allowed host", lambda: connect_via_proxy(os.environ["HOST_IP"], int(os.environ["ALLOWED_PORT"])))
attempt("other host port", lambda: connect_via_proxy(os.environ["HOST_IP"], int(os.environ["OTHER_PORT"])))
attempt("direct to host", lambda: direct(os.environ["HOST_IP"], int(os.environ["ALLOWED_PORT"])))
print(json.dumps(found))
"""


def host_address() -> str | None:
    """This machine's own non-loopback IPv4 address (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if address.startswith("127.") else address


async def echo_server(host: str) -> tuple[asyncio.AbstractServer, int]:
    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(await reader.read(4))
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(echo, host, 0)
    return server, server.sockets[0].getsockname()[1]


async def test_a_sandboxed_program_sees_its_own_world_and_reaches_only_what_is_allowed(tmp_path):
    ip = host_address()
    if ip is None:
        assert os.environ.get("CI") != "true", "CI machines have a non-loopback address to test the proxy with"
        pytest.skip("no non-loopback address on this machine")
    provider, provider_port = await echo_server("127.0.0.1")
    allowed, allowed_port = await echo_server(ip)
    other, other_port = await echo_server("0.0.0.0")  # listens on loopback and the host address alike
    cwd = tmp_path / "work"
    cwd.mkdir()
    plan = SandboxPlan(endpoints=[Endpoint(host="127.0.0.1", port=provider_port), Endpoint(host=ip, port=allowed_port)])
    env = {
        "PATH": "/usr/bin:/bin", "WORKER_HOME": str(Path.home()), "PROVIDER_PORT": str(provider_port),
        "OTHER_PORT": str(other_port), "HOST_IP": ip, "ALLOWED_PORT": str(allowed_port), "PROXY_PORT": str(PROXY_PORT),
    }  # fmt: skip
    try:
        agent = await launch([sys.executable, "-I", "-c", PROBE], env, str(cwd), plan, str(tmp_path / "state"))
        out, err = await asyncio.wait_for(agent.communicate(), 60)
        await agent.reap()
    finally:
        for server in (provider, allowed, other):
            server.close()
    assert agent.process.returncode == 0, err.decode()
    found = json.loads(out)
    assert found["shadow"].startswith("refused")  # /etc is the few files a program needs, not the machine's
    # the worker's home is not there, only the path to the interpreter's installation if that lies under it
    leading = {
        Path(r).relative_to(Path.home()).parts[0]
        for r in installation_roots(sys.executable)
        if r.startswith(str(Path.home()))
    }
    assert isinstance(found["worker home"], str) or set(found["worker home"]) <= leading, found["worker home"]
    assert b"bwrap" in found["pid 1"].encode() and found["processes"] <= 4  # its own pid namespace
    assert found["write cwd"] == 2 and (cwd / "made-inside.txt").read_text() == "ok"
    assert found["home"] == "/home/agent"
    assert found["provider"] == "connected"  # its loopback provider, forwarded port for port
    assert found["other loopback"].startswith("refused")
    assert found["allowed host"] == "HTTP/1.1 200 Connection Established / ping"  # through the proxy
    assert found["other host port"].startswith("HTTP/1.1 403")
    assert found["direct to host"].startswith("refused")  # no route out of its network namespace
    assert not (tmp_path / "state" / "sandboxes").exists() or not any((tmp_path / "state" / "sandboxes").iterdir())


async def test_an_agent_installed_behind_a_symlink_runs_by_the_path_it_was_found_at(tmp_path):
    """A checkout or tool directory reached through a link (a worktree's `.cache` linked to another checkout's):
    the agent's launcher is found at the linked path, and its shebang may name that path too."""
    real = tmp_path / "real-tools"
    (real / "node_modules" / ".bin").mkdir(parents=True)
    tool = real / "node_modules" / ".bin" / "agent"
    tool.write_text(f"#!{tool.parent / 'interpreter'}\n")
    interpreter = real / "node_modules" / ".bin" / "interpreter"
    interpreter.write_text('#!/bin/sh\necho ran "$0"\n')
    tool.chmod(0o755)
    interpreter.chmod(0o755)
    linked = tmp_path / "checkout"
    linked.mkdir()
    (linked / "tools").symlink_to(real)
    found_at = linked / "tools" / "node_modules" / ".bin" / "agent"
    cwd = tmp_path / "work"
    cwd.mkdir()
    agent = await launch(
        [str(found_at)], {"PATH": "/usr/bin:/bin"}, str(cwd), SandboxPlan(endpoints=[]), str(tmp_path / "state")
    )
    out, err = await asyncio.wait_for(agent.communicate(), 60)
    await agent.reap()
    assert agent.process.returncode == 0, err.decode()
    assert out.decode().startswith("ran ")


async def test_the_workers_private_directories_stay_hidden_inside_a_path_the_agent_may_read(tmp_path, monkeypatch):
    """A checkout given read-only (the demo's scripted agent) may hold the worker's data directory: its codec keys,
    its embedded store and its work directory (every run's working copy) are hidden all the same."""
    checkout = tmp_path / "checkout"
    data = checkout / ".office-data"
    (data / "work" / "sessions" / "other-run").mkdir(parents=True)
    (data / "codec-keys").write_text("k1=secret")
    (data / "work" / "sessions" / "other-run" / "notes.txt").write_text("secret")
    (checkout / "README").write_text("readable")
    monkeypatch.setenv("OFFICE_CODEC_KEYS_FILE", str(data / "codec-keys"))
    cwd = data / "work" / "sessions" / "this-run"
    cwd.mkdir()
    script = (
        f"cat {checkout / 'README'}; echo; cat {data / 'codec-keys'} || echo no-keys; "
        f"ls {data / 'work' / 'sessions'}; pwd"
    )
    plan = SandboxPlan(endpoints=[], read_only=[str(checkout)])
    agent = await launch(["/bin/sh", "-c", script], {"PATH": "/usr/bin:/bin"}, str(cwd), plan, str(data / "work"))
    out, err = await asyncio.wait_for(agent.communicate(), 30)
    await agent.reap()
    lines = out.decode().split()
    assert lines == ["readable", "no-keys", "this-run", str(cwd)], (out, err)


async def test_a_provider_on_a_low_port_is_forwarded_too(tmp_path):
    """A local model server on port 80 (`http://localhost/v1`): the relay binds that port in the sandbox's own
    network namespace, where nothing else runs, so the agent's base URL works unchanged."""
    cwd = tmp_path / "work"
    cwd.mkdir()
    plan = SandboxPlan(endpoints=[Endpoint(host="127.0.0.1", port=80)])
    probe = "import socket; socket.create_connection(('127.0.0.1', 80), timeout=5).close(); print('reached the relay')"
    agent = await launch([sys.executable, "-I", "-c", probe], {"PATH": "/usr/bin:/bin"}, str(cwd), plan, str(tmp_path))
    out, err = await asyncio.wait_for(agent.communicate(), 30)
    await agent.reap()
    assert out.decode().strip() == "reached the relay", err.decode()


TRANSPORT_PROBE = r"""
import os, socket, sys
port = int(os.environ["PROVIDER_PORT"])
kept = {}
def answer(s):
    try:
        s.sendall(b"ping")
        return s.recv(20).decode() or "closed"
    except OSError as err:
        return err.__class__.__name__
def call(host, port):
    try:
        return answer(socket.create_connection((host, port), timeout=5))
    except OSError as err:
        return err.__class__.__name__
def via_proxy(host, port):
    s = socket.create_connection(("127.0.0.1", int(os.environ["HTTPS_PROXY"].rsplit(":", 1)[1])), timeout=5)
    s.sendall(f"CONNECT {host}:{port} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    return s.recv(200).decode().split("\r\n")[0]
for step in sys.stdin:
    verb, _, name = step.strip().partition(" ")
    if verb == "provider":
        print(call("127.0.0.1", port), flush=True)
    elif verb == "other":
        print(call("127.0.0.1", int(os.environ["OTHER_PORT"])), flush=True)
    elif verb == "open":  # a connection kept open, as an HTTP client keeps one alive
        kept[name] = socket.create_connection(("127.0.0.1", port), timeout=5)
        print(answer(kept[name]), flush=True)
    elif verb == "again":
        print(answer(kept[name]), flush=True)
    else:
        print(via_proxy(verb, 443), flush=True)
"""


async def serve(port: int, reply: bool, opened: list[asyncio.StreamWriter] | None = None) -> asyncio.AbstractServer:
    """A provider on `port`: it answers each message (`reply`), or resets the connection at its first."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if opened is not None:
            opened.append(writer)
        while await reader.read(4):
            if not reply:
                reset(writer)
                return
            writer.write(b"pong")
            await writer.drain()

    return await asyncio.start_server(handle, "127.0.0.1", port)


def reset(writer: asyncio.StreamWriter) -> None:
    """Close with a TCP reset, as a provider's load balancer that drops a connection does."""
    writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00" + b"\x00" * 4)
    writer.transport.abort()


async def test_the_relay_tells_what_it_last_heard_of_the_provider_in_the_turn(tmp_path):
    """The agent inside only ever sees its relay accept and then hang up; the worker's relay knows whether the
    provider refused, reset or answered, and whether its name resolved: what a failed turn is read by when the agent's
    words say nothing. Bytes from the provider on any connection clear a fault (a tool's connection reset must not
    make the provider's answer on the agent's kept-alive connection a network failure); other hosts tell nothing of
    the provider, and a connection opened in an earlier turn nothing of this one."""
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    other, other_port = await echo_server("127.0.0.1")
    provider = Endpoint(host="127.0.0.1", port=port)
    gone = Endpoint(host="provider.invalid", port=443)  # a name no resolver knows
    plan = SandboxPlan(
        endpoints=[provider, Endpoint(host="127.0.0.1", port=other_port), gone, Endpoint(host="x.invalid", port=443)],
        provider=[provider, gone],
    )
    env = {"PATH": "/usr/bin:/bin", "PROVIDER_PORT": str(port), "OTHER_PORT": str(other_port)}
    cwd = tmp_path / "work"
    cwd.mkdir()
    agent = await launch([sys.executable, "-I", "-c", TRANSPORT_PROBE], env, str(cwd), plan, str(tmp_path / "state"))
    sandbox = agent.sandbox
    assert sandbox is not None
    servers: list[asyncio.AbstractServer] = [other]
    opened: list[asyncio.StreamWriter] = []

    async def ask(step: str) -> str:
        assert agent.process.stdin is not None and agent.process.stdout is not None
        agent.process.stdin.write(f"{step}\n".encode())
        await agent.process.stdin.drain()
        return (await asyncio.wait_for(agent.process.stdout.readline(), 30)).decode().strip()

    seen: list[tuple[str, str | None]] = []
    try:
        sandbox.turn_started()
        assert await ask("provider") in ("closed", "ConnectionResetError")  # the agent sees a hang-up, no more
        seen.append(("refused", sandbox.provider_fault))
        assert await ask("other") == "ping"  # another allowed host answers: no news of the provider
        seen.append(("another host answered", sandbox.provider_fault))
        servers.append(await serve(port, reply=True, opened=opened))
        assert await ask("open agent") == "pong"  # the agent's own connection, kept alive
        seen.append(("answered", sandbox.provider_fault))
        servers.pop().close()
        servers.append(await serve(port, reply=False))
        await ask("provider")  # a tool's connection: reset
        seen.append(("reset", sandbox.provider_fault))
        assert await ask("again agent") == "pong"  # the provider answers the agent after all
        seen.append(("answered after a reset", sandbox.provider_fault))
        assert (await ask("provider.invalid")).startswith("HTTP/1.1 502")  # not a 403: nothing refused it
        seen.append(("name not resolved", sandbox.provider_fault))
        sandbox.turn_started()
        seen.append(("a new turn", sandbox.provider_fault))
        reset(opened[0])  # the earlier turn's connection is reset now
        assert await ask("again agent") in ("closed", "ConnectionResetError", "BrokenPipeError")
        seen.append(("an earlier turn's connection reset", sandbox.provider_fault))
        assert (await ask("x.invalid")).startswith("HTTP/1.1 502")  # allowed, not the provider's
        seen.append(("another host not resolved", sandbox.provider_fault))
    finally:
        for server in servers:
            server.close()
        await agent.reap()
    assert seen == [
        ("refused", "ECONNREFUSED"),
        ("another host answered", "ECONNREFUSED"),
        ("answered", None),
        ("reset", "ECONNRESET"),
        ("answered after a reset", None),
        ("name not resolved", "EAI_NONAME"),
        ("a new turn", None),
        ("an earlier turn's connection reset", None),
        ("another host not resolved", None),
    ]
