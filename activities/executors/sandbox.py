"""The agent's sandbox: bubblewrap, with the network relayed by the worker.

Inside, the agent sees the system's programs and libraries (read-only), its own installation (read-only), its
working copy (read-write), a home and a /tmp of its own for this session, and paths the profile or workspace
names; it has its own pid namespace (no /proc of the worker; when the sandbox ends every process in it ends,
`setsid` or not), its own network namespace, no capabilities, and `--die-with-parent` (a killed worker takes its
agents along, armed by bubblewrap itself, so nothing of ours runs between fork and exec in the worker).

The network namespace has only its own loopback. `sandbox_init.py` listens there and relays each connection over
a Unix socket to this module's relay in the worker, which connects onwards only to what the run may reach:
- a provider on the worker's loopback (the simulator, a local model server) is forwarded port for port, so the
  base URL the agent was given works unchanged;
- every other allowed host (the provider's public endpoint, the vendor's default hosts, the workspace's
  `sandbox.network`) is reached through an HTTP CONNECT proxy that admits only those hosts; the agent is pointed
  at it with HTTPS_PROXY (which Claude Code, Codex and Gemini CLI honour).
The relay also sees what no agent's words say reliably: whether what it last heard of the provider in this turn was a
connection refused, reset or never resolved (`Sandbox.provider_fault`, an errno name) rather than bytes. The session
hands that to the classifier beside the agent's words (FailureSignal.relay_fault), so a blip the agent words as
"something went wrong" is still a blip.
Bubblewrap itself rather than `@anthropic-ai/sandbox-runtime` (which wraps the same bubblewrap): it starts no
Node process per session, and the relay lives in the worker where the run's allowed endpoints are known.
"""

import asyncio
import contextlib
import errno
import ipaddress
import logging
import os
import re
import shutil
import socket
import sys
import tempfile
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from activities.executors import seccomp
from activities.workdir import private_dir
from routing.sandbox import Endpoint

log = logging.getLogger(__name__)

INIT = str(Path(__file__).with_name("sandbox_init.py"))
HOME = "/home/agent"
RUN_DIR = "/run/office"
PROXY_PORT = 3128
INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap)"
# The system's part of the root, read-only: programs, libraries, and the few files in /etc a program needs to run,
# resolve names and verify TLS (never all of /etc: it holds the machine's own secrets).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_FILES = (
    "/etc/passwd", "/etc/group", "/etc/hosts", "/etc/nsswitch.conf", "/etc/resolv.conf", "/etc/localtime",
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/ssl",
    "/etc/ca-certificates", "/etc/pki", "/etc/mime.types", "/etc/gitconfig",
)  # fmt: skip
RELAY_CHUNK = 65536
CONNECT_HEAD_S = 10.0  # a proxy client that has not sent its CONNECT head by then is dropped
MAX_CONNECTIONS = 64  # relayed at once per session


class SandboxUnavailable(RuntimeError):
    """This worker cannot create an agent sandbox; the message says what to install."""


_checked: str | None = None  # "" once bubblewrap worked here; the reason it cannot otherwise


async def check_bubblewrap() -> None:
    """Raises SandboxUnavailable (once per worker process, then remembered) when bubblewrap is missing or cannot
    create its namespaces here (no user namespaces, a container without the privilege)."""
    global _checked
    if _checked is None:  # two first sessions at once may both probe: harmless, and no lock tied to one loop
        _checked = await _probe()
    if _checked:
        raise SandboxUnavailable(_checked)


async def _probe() -> str:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return f"this worker cannot sandbox agents: bwrap is not installed; {INSTALL_HINT}"
    process = await asyncio.create_subprocess_exec(
        bwrap, *_system_binds(), "--unshare-all", "--unshare-user", "--die-with-parent", "--cap-drop", "ALL",
        "--", "true",
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, err = await process.communicate()
    if process.returncode != 0:
        reason = err.decode(errors="replace").strip().splitlines()[-1:] or ["no reason given"]
        return (
            f"this worker cannot sandbox agents: bwrap failed ({reason[0]}); allow unprivileged user namespaces "
            f"(sysctl kernel.unprivileged_userns_clone=1) or run the worker where bubblewrap works"
        )
    return ""


def _system_binds() -> list[str]:
    args: list[str] = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for path in ETC_FILES:
        args += ["--ro-bind-try", path, path]
    return args


def worker_private_dirs(work_dir: str) -> list[str]:
    """Directories of the worker no agent reads even when a read-only path holds them: its work directory (every
    run's working copy and mirror), the codec keys' directory and an embedded store's directory."""
    dirs = [work_dir]
    if keys := os.environ.get("OFFICE_CODEC_KEYS_FILE"):
        dirs.append(os.path.dirname(os.path.abspath(keys)))
    database = os.environ.get("OFFICE_DATABASE_URL", "")
    if database.startswith("sqlite:///"):
        dirs.append(os.path.dirname(os.path.abspath(database.removeprefix("sqlite:///"))))
    return [os.path.realpath(d) for d in dirs]


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _covered(path: str, roots: list[str]) -> bool:
    return any(_under(path, root) for root in roots)


def installation_roots(executable: str) -> list[str]:
    """What the agent's own installation is, read-only in the sandbox: the directory holding the outermost
    `node_modules` of an npm-installed agent (its bridge, its CLI and their dependencies), else the prefix of the
    `bin` directory it sits in (a virtualenv and the interpreter it was made from), else its directory."""
    roots: list[str] = []
    for path in dict.fromkeys((os.path.abspath(executable), os.path.realpath(executable))):
        parts = Path(path).parts
        if "node_modules" in parts:
            roots.append(str(Path(*parts[: parts.index("node_modules")])))
            continue
        parent = Path(path).parent
        root = parent.parent if parent.name == "bin" else parent
        roots.append(str(root))
        cfg = root / "pyvenv.cfg"
        if cfg.is_file():  # a virtualenv: the interpreter it links to lives under the base installation
            for line in cfg.read_text(errors="replace").splitlines():
                key, _, value = line.partition("=")
                if key.strip() == "home" and value.strip():
                    home = Path(value.strip())
                    roots.append(str(home.parent if home.name == "bin" else home))
    return [r for r in dict.fromkeys(roots) if not _covered(r, list(SYSTEM_DIRS)) and r != "/"]


@dataclass
class SandboxPlan:
    """What one agent session's sandbox holds. Built from the store's profile and workspace, never from input."""

    endpoints: list[Endpoint]
    # Which of the endpoints are the provider's own (its base URL, or the vendor's hosts): what the relay sees of
    # connections to these is evidence about a failed turn; other hosts' (a package registry's) is not.
    provider: list[Endpoint] = field(default_factory=list)
    read_only: list[str] = field(default_factory=list)
    read_write: list[str] = field(default_factory=list)
    # Files the agent's adapter puts in the session's own home before it starts (path under the home → content):
    # its own settings, which the home of a fresh session would not hold.
    home_files: dict[str, str] = field(default_factory=dict)


@dataclass
class Sandbox:
    """One session's sandbox on the worker side: its directory (home, tmp), its relays, and the command line."""

    root: Path
    net_dir: Path
    servers: list[asyncio.AbstractServer] = field(default_factory=list)
    connections: set[asyncio.Task[None]] = field(default_factory=set)
    argv: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    seccomp_fd: int | None = None  # the compiled filter, read by bubblewrap from this descriptor at its start
    provider: list[Endpoint] = field(default_factory=list)
    # What the relay last heard of the provider in this turn: None when that was a connection made or bytes read
    # (or nothing since `turn_started`), else a fault's errno name (ECONNREFUSED, ECONNRESET, ETIMEDOUT, EAI_NONAME).
    provider_fault: str | None = None
    turn: int = 0  # counted by `turn_started`: a connection opened in an earlier turn tells nothing of this one

    def pass_fds(self) -> tuple[int, ...]:
        return (self.seccomp_fd,) if self.seccomp_fd is not None else ()

    def turn_started(self) -> None:
        """A new turn: what the relay saw before it is no evidence about how this one ends."""
        self.turn += 1
        self.provider_fault = None

    def _toward_provider(self, host: str, port: int) -> bool:
        return any(e.admits(host, port) for e in self.provider)

    def _heard(self, error: OSError | None, turn: int) -> None:
        """A provider connection of turn `turn` was made or read from (None), or failed with `error`."""
        if turn == self.turn:
            self.provider_fault = None if error is None else _fault_name(error)

    def started(self) -> None:
        """Bubblewrap has its own copy of the filter's descriptor: the worker's goes."""
        if self.seccomp_fd is not None:
            os.close(self.seccomp_fd)
            self.seccomp_fd = None

    @classmethod
    async def create(
        cls, plan: SandboxPlan, command: list[str], env: dict[str, str], cwd: str, work_dir: str
    ) -> "Sandbox":
        await check_bubblewrap()
        root, net_dir = await asyncio.to_thread(_session_dirs, work_dir)
        await asyncio.to_thread(_write_home_files, root / "home", plan.home_files)
        sandbox = cls(root, net_dir, provider=list(plan.provider))
        try:
            forwards, proxy_port = await sandbox._relays(plan.endpoints)
            sandbox.env = sandbox._environment(env, cwd, proxy_port)
            private = worker_private_dirs(work_dir)
            sandbox.argv = sandbox._command_line(plan, command, cwd, forwards, private)
            if (fd := await asyncio.to_thread(_filter_fd, root)) is not None:
                sandbox.seccomp_fd = fd
                sandbox.argv[1:1] = ["--seccomp", str(fd)]
        except BaseException:
            await sandbox.close()
            raise
        return sandbox

    async def _relays(self, endpoints: list[Endpoint]) -> tuple[list[tuple[int, str]], int | None]:
        """One Unix socket per forwarded loopback port, one for the proxy (when any other host is allowed); the
        (port, socket) pairs the sandbox listens on, and the proxy's port (PROXY_PORT unless a provider has it)."""
        forwards: list[tuple[int, str]] = []
        direct = [(e.host, e.port) for e in endpoints if e.loopback and e.port is not None]
        proxied = [e for e in endpoints if not e.loopback]
        for n, (host, port) in enumerate(direct):
            if any(port == forwarded for forwarded, _ in forwards):
                continue
            path = str(self.net_dir / f"{n}.sock")
            self.servers.append(await asyncio.start_unix_server(self._forwarder(host, port), path))
            forwards.append((port, path))
        if proxied:
            port = next(p for p in range(PROXY_PORT, PROXY_PORT + 100) if all(p != f for f, _ in forwards))
            path = str(self.net_dir / "proxy.sock")
            self.servers.append(await asyncio.start_unix_server(lambda r, w: self._proxy(r, w, proxied), path))
            forwards.append((port, path))
            return forwards, port
        return forwards, None

    def _environment(self, env: dict[str, str], cwd: str, proxy_port: int | None) -> dict[str, str]:
        # PYTHONSAFEPATH: `python -m x` or a script does not import from the working directory (the repository).
        inside = {**env, "HOME": HOME, "TMPDIR": "/tmp", "PYTHONSAFEPATH": "1"}
        # Only absolute PATH entries outside the working copy: `env node` never finds a committed node_modules/.bin.
        inside["PATH"] = ":".join(
            p
            for p in env.get("PATH", "/usr/local/bin:/usr/bin:/bin").split(":")
            if p.startswith("/") and not _under(p, cwd)
        )
        for name in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY"):
            inside.pop(name, None)
            inside.pop(name.lower(), None)
        if proxy_port is not None:
            proxy = f"http://127.0.0.1:{proxy_port}"
            for name in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"):
                inside[name] = proxy
            inside["NO_PROXY"] = inside["no_proxy"] = "localhost,127.0.0.1,::1"
        return inside

    def _command_line(
        self, plan: SandboxPlan, command: list[str], cwd: str, forwards: list[tuple[int, str]], private: list[str]
    ) -> list[str]:
        """Later mounts win: the system, the agent's own directories, read-only paths (with the worker's private
        directories hidden where one of them lies inside), writable paths, and last its working copy."""
        bwrap = shutil.which("bwrap") or "bwrap"
        python = os.path.realpath(sys.executable)  # runs the relay (sandbox_init.py) when there is a network
        roots = [*installation_roots(command[0]), *(installation_roots(python) if forwards else [])]
        # Real paths: a symlinked path must not slip a private directory past the check below.
        readable = [os.path.realpath(p) for p in [*roots, *plan.read_only]]
        # An installation reached through a symlink (a linked checkout, a linked tool directory) runs by the path it
        # was found at (its launcher's shebang may name it too): its real directory is shown there as well.
        aliases = {os.path.abspath(p): os.path.realpath(p) for p in roots}
        aliases = {alias: real for alias, real in aliases.items() if alias != real}
        readable = [path for path in dict.fromkeys(readable) if not _covered(path, list(SYSTEM_DIRS))]
        for path in [p for p in readable if _covered(p, private)]:  # a path inside the worker's private directories
            log.warning("sandbox: %s lies in the worker's private directories and is not given to the agent", path)
            readable.remove(path)
        caps = ["--cap-add", "CAP_NET_BIND_SERVICE"] if any(port < 1024 for port, _ in forwards) else []
        # Its own user namespace, in which the seccomp filter lets it make no further one (a nested user namespace
        # would hand it every capability there, and with them the kernel's netfilter and mount interfaces).
        argv = [bwrap, "--unshare-all", "--unshare-user", "--die-with-parent", "--new-session"]
        argv += ["--cap-drop", "ALL", *caps]
        argv += [*_system_binds(), "--proc", "/proc", "--dev", "/dev"]
        argv += ["--bind", str(self.root / "tmp"), "/tmp", "--bind", str(self.root / "home"), HOME]
        for path in readable:
            argv += ["--ro-bind-try", path, path]
        for alias, real in aliases.items():
            if real in readable and not _covered(alias, list(SYSTEM_DIRS)):
                argv += ["--ro-bind-try", real, alias]
        for path in private:  # e.g. a data directory inside a checkout the agent may read
            if _covered(path, readable) and os.path.isdir(path):
                argv += ["--tmpfs", path]
        for path in plan.read_write:
            argv += ["--bind-try", path, path]
        argv += ["--bind", cwd, cwd, "--chdir", cwd]
        if not forwards:  # no network at all: nothing to relay, the agent is the sandbox's first process
            return [*argv, "--", *command]
        inner: list[str] = []
        for n, (port, path) in enumerate(forwards):
            argv += ["--bind", path, f"{RUN_DIR}/net/{n}.sock"]
            inner.append(f"{port}={RUN_DIR}/net/{n}.sock")
        argv += ["--ro-bind", INIT, f"{RUN_DIR}/init.py"]
        return [*argv, "--", python, "-I", "-S", f"{RUN_DIR}/init.py", *inner, "--", *command]

    def _forwarder(
        self, host: str, port: int
    ) -> Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]:
        """A relay server's handler: each connection the agent opens goes on to `host:port`."""

        async def forward(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            if self._admitted(writer):
                await self._connect_and_pipe(reader, writer, host, port, self.turn)

        return forward

    def _admitted(self, writer: asyncio.StreamWriter) -> bool:
        """At most MAX_CONNECTIONS relayed at once per session: an agent cannot exhaust the worker's descriptors."""
        if len(self.connections) < MAX_CONNECTIONS:
            return True
        writer.close()
        return False

    async def _proxy(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, allowed: list[Endpoint]) -> None:
        """HTTP CONNECT to an allowed host only, at an address that is not the worker's own, link-local or
        unspecified (a name may resolve anywhere); anything else is answered 403 and closed."""
        if not self._admitted(writer):
            return
        turn = self.turn
        task = asyncio.current_task()
        if task is not None:
            self.connections.add(task)  # counted (and cancelled at close) while its head is awaited too
        try:
            try:
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), CONNECT_HEAD_S)
            except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                writer.close()
                return
            line = head.split(b"\r\n", 1)[0].decode("latin-1").split()
            host, port = _connect_target(line)
            admitted = host is not None and any(e.admits(host, port) for e in allowed)
            try:
                address = await _public_address(host, port) if host and admitted else None
            except OSError as err:  # an allowed name that did not resolve: the network's failure, not a refusal
                log.info("sandbox proxy: %r did not resolve (%s)", (host or "")[:200], _fault_name(err))
                if self._toward_provider(host or "", port):
                    self._heard(err, turn)
                writer.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                with contextlib.suppress(ConnectionError):
                    await writer.drain()
                writer.close()
                return
            if address is None:
                log.warning("sandbox proxy refused %r", " ".join(line[:2])[:200])
                writer.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                with contextlib.suppress(ConnectionError):
                    await writer.drain()
                writer.close()
                return
            await self._connect_and_pipe(reader, writer, address, port, turn, established=True, seen_as=host)
        finally:
            if task is not None:
                self.connections.discard(task)

    async def _connect_and_pipe(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        host: str,
        port: int,
        turn: int,
        established: bool = False,
        seen_as: str | None = None,
    ) -> None:
        """Connects onwards and pipes both ways; toward the provider, `_heard` is told of the connection made or failed
        and of every read from the far side (bytes, or a reset), as of the turn it was opened in. `seen_as` is the name
        the agent asked for (the proxy's target), which decides whether this is a connection toward the provider."""
        task = asyncio.current_task()
        if task is not None:
            self.connections.add(task)
        heard = (lambda err: self._heard(err, turn)) if self._toward_provider(seen_as or host, port) else None
        try:
            try:
                up_reader, up_writer = await asyncio.open_connection(host, port)
            except OSError as err:
                if heard is not None:
                    heard(err)
                if established:
                    writer.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                writer.close()
                return
            if heard is not None:
                heard(None)
            if established:
                writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            try:
                await asyncio.gather(
                    _pipe(reader, up_writer),
                    _pipe(up_reader, writer, heard),
                )
            finally:
                up_writer.close()
        finally:
            writer.close()
            if task is not None:
                self.connections.discard(task)

    async def close(self) -> None:
        self.started()
        for server in self.servers:
            server.close()
        for task in list(self.connections):
            task.cancel()
        self.servers.clear()
        await remove_tree(self.root)
        await remove_tree(self.net_dir)


async def remove_tree(path: Path) -> None:
    """Removes what an agent left, however it left it: `rm -rf` has no recursion limit (a deep tree broke
    shutil.rmtree), and modes an agent took away (a 000 directory) are given back to the owner first."""
    for argv in (["chmod", "-R", "u+rwx", str(path)], ["rm", "-rf", "--one-file-system", str(path)]):
        process = await asyncio.create_subprocess_exec(
            *argv, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL
        )
        await process.wait()


def _session_dirs(work_dir: str) -> tuple[Path, Path]:
    """The session's own directory (home, tmp) under the work directory; the relays' sockets in a private
    temporary directory (a Unix socket's path is at most 108 bytes)."""
    root = private_dir(Path(work_dir).resolve() / "sandboxes" / uuid.uuid4().hex[:16])
    (root / "home").mkdir(mode=0o700)
    (root / "tmp").mkdir(mode=0o700)
    return root, Path(tempfile.mkdtemp(prefix="office-net-"))


def _write_home_files(home: Path, files: dict[str, str]) -> None:
    for relative, content in files.items():
        path = home / relative
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        path.write_text(content)


def _filter_fd(root: Path) -> int | None:
    """The seccomp filter (activities/executors/seccomp.py) in a file of the session, opened for bubblewrap."""
    compiled = seccomp.program()
    if compiled is None:
        return None
    path = root / "seccomp.bpf"
    path.write_bytes(compiled)
    return os.open(path, os.O_RDONLY)


def _connect_target(request_line: list[str]) -> tuple[str | None, int]:
    if len(request_line) < 2 or request_line[0].upper() != "CONNECT":
        return None, 0
    host, _, port = request_line[1].rpartition(":")
    if not re.fullmatch(r"[0-9]{1,5}", port) or not 0 < int(port) < 65536 or not host:
        return None, 0
    return host.strip("[]"), int(port)


async def _public_address(host: str, port: int) -> str | None:
    """The address to connect to for an allowed name: resolved here once (so a second answer cannot differ),
    refused (None) when it is the worker's own loopback, link-local (a cloud metadata service), unspecified or
    multicast, or no name at all; a name the resolver could not resolve raises its OSError (socket.gaierror)."""
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except UnicodeError:
        return None
    for *_, sockaddr in infos:
        address = ipaddress.ip_address(sockaddr[0])
        mapped = getattr(address, "ipv4_mapped", None) or address
        if not (mapped.is_loopback or mapped.is_link_local or mapped.is_unspecified or mapped.is_multicast):
            return str(address)
    return None


_BY_TYPE = (  # an OSError raised without its errno, by its class
    (ConnectionRefusedError, "ECONNREFUSED"),
    (ConnectionResetError, "ECONNRESET"),
    (ConnectionAbortedError, "ECONNABORTED"),
    (BrokenPipeError, "EPIPE"),
    (TimeoutError, "ETIMEDOUT"),
)


def _fault_name(err: OSError) -> str:
    """ECONNREFUSED, ECONNRESET, ETIMEDOUT…; a resolver's failure by its EAI_ name (EAI_NONAME, EAI_AGAIN)."""
    if isinstance(err, socket.gaierror):
        names = [n for n in dir(socket) if n.startswith("EAI_") and getattr(socket, n) == err.errno]
        return names[0] if names else "EAI_FAIL"
    if err.errno is not None and err.errno in errno.errorcode:
        return errno.errorcode[err.errno]
    # asyncio's "Multiple exceptions: [Errno 99] …, [Errno 111] …" for a name of several addresses: a refusal
    # where one address refused (the others may not exist in this network at all)
    numbers = [int(n) for n in re.findall(r"\[Errno (\d+)\]", str(err))]
    if numbers:
        return "ECONNREFUSED" if errno.ECONNREFUSED in numbers else errno.errorcode.get(numbers[0], "EIO")
    return next((name for kind, name in _BY_TYPE if isinstance(err, kind)), "EIO")


async def _pipe(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, heard: Callable[[OSError | None], None] | None = None
) -> None:
    """Copies until either side ends; `heard` is told of every read: None for bytes, the error of one that failed
    (the other end reset it)."""
    try:
        while True:
            try:
                data = await reader.read(RELAY_CHUNK)
            except OSError as err:
                if heard is not None:
                    heard(err)
                return
            if not data:
                break
            if heard is not None:
                heard(None)
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(Exception):
            if writer.can_write_eof():
                writer.write_eof()
            else:
                writer.close()
