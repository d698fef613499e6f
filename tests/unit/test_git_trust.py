"""Git on the worker trusts neither the repository nor its own environment (activities/git/): a hostile
repository's server-side hooks see none of the worker's secrets, a repository on the worker's disk is refused
unless the worker runs for development, and the push token goes only over https to the configured host."""

import base64
import http.server
import shutil
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from activities.git import runner, workcopy
from activities.git.mirrors import Mirrors
from routing.repository import RepositoryConfig, RepositoryConfigError

SECRETS = {
    "ANTHROPIC_API_KEY": "sk-ant-hostile-provider-key",
    "OPENAI_API_KEY": "sk-hostile-openai-key",
    "OFFICE_CRED_TEAM_KEY": "team-hostile-key",
    "OFFICE_DATABASE_URL": "postgresql://office:db-hostile-password@db.internal/office",
    "TEMPORAL_API_KEY": "temporal-hostile-api-key",
    "GIT_PUSH_TOKEN": "ghp_hostilepushtoken0123456789",
}
SERVER_HOOKS = ("pre-receive", "update", "reference-transaction", "post-receive", "post-update")
TOKEN = "tok-never-over-http-0123456789"


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=Dev", "-c", "user.email=dev@example.com", *args],
        cwd=cwd, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip


def seeded_bare(tmp_path: Path, name: str) -> Path:
    seed, bare = tmp_path / f"{name}-seed", tmp_path / f"{name}.git"
    git("init", "-q", "-b", "main", str(seed))
    (seed / "README.md").write_text("# app\n")
    git("add", ".", cwd=seed)
    git("commit", "-q", "-m", "initial", cwd=seed)
    git("clone", "-q", "--bare", str(seed), str(bare))
    return bare


def hostile_repository(tmp_path: Path, marker: Path) -> Path:
    """A bare repository whose server-side hooks, and its core.alternateRefsCommand (run when it borrows objects
    from another repository), append their name and their whole environment to `marker`."""
    bare, alternate = seeded_bare(tmp_path, "hostile"), seeded_bare(tmp_path, "borrowed")
    (bare / "objects" / "info" / "alternates").write_text(f"{alternate / 'objects'}\n")
    for name in (*SERVER_HOOKS, "alternate-refs"):
        script = bare / "hooks" / name
        script.write_text(f'#!/bin/sh\n{{ echo "== {name}"; env; }} >> "{marker}"\n')
        script.chmod(0o755)
    git("config", "core.alternateRefsCommand", str(bare / "hooks" / "alternate-refs"), cwd=bare)
    return bare


async def test_a_hostile_repositorys_hooks_see_none_of_the_workers_secrets(tmp_path, monkeypatch):
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    marker = tmp_path / "hooks-saw.txt"
    bare = hostile_repository(tmp_path, marker)
    config = RepositoryConfig(url=str(bare), push_credential_env="GIT_PUSH_TOKEN")

    wc = await workcopy.prepare("run-hostile", config, None, Mirrors(tmp_path / "worker"))
    (wc.path / "change.txt").write_text("a turn's work\n")
    turn = await workcopy.commit_turn(wc, 1, "alpha", "m")  # push: every server-side hook runs
    (wc.path / "half.txt").write_text("partial\n")
    assert await workcopy.keep_failed(wc, 2)  # another push, to a side ref
    assert "change.txt" in await Mirrors(tmp_path / "cli").diff(config, wc.base_commit, turn.commit)

    seen = marker.read_text()
    ran = {line.removeprefix("== ") for line in seen.splitlines() if line.startswith("== ")}
    assert ran == {*SERVER_HOOKS, "alternate-refs"}  # each one ran as the worker …
    for name, value in SECRETS.items():  # … and saw no key, no database URL, no token
        assert value not in seen, f"{name} reached a hook of the repository"
        assert f"\n{name}=" not in seen
    homes = {line.removeprefix("HOME=") for line in seen.splitlines() if line.startswith("HOME=")}
    assert homes == {str((tmp_path / "worker").resolve() / "git-home")} or homes == {
        str((tmp_path / "cli").resolve() / "git-home"),
        str((tmp_path / "worker").resolve() / "git-home"),
    }
    names = {line.split("=", 1)[0] for line in seen.splitlines() if "=" in line and not line.startswith("== ")}
    assert not {n for n in names if n.startswith(("OFFICE_", "TEMPORAL_", "ANTHROPIC_", "OPENAI_"))}


@pytest.mark.parametrize("form", ["path", "file-url", "relative"])
async def test_a_production_worker_refuses_a_repository_on_its_own_disk(tmp_path, monkeypatch, form):
    monkeypatch.delenv(runner.DEV_MODE_ENV, raising=False)
    marker = tmp_path / "hooks-saw.txt"
    bare = hostile_repository(tmp_path, marker)
    url = {"path": str(bare), "file-url": f"file://{bare}", "relative": "../hostile.git"}[form]
    config = RepositoryConfig(url=url)
    for attempt in (
        workcopy.check(config, tmp_path / "worker"),
        workcopy.prepare("run-prod", config, None, Mirrors(tmp_path / "worker")),
        Mirrors(tmp_path / "worker").diff(config, "a" * 40, "b" * 40),
    ):
        with pytest.raises(RepositoryConfigError) as err:
            await attempt
        assert err.value.setting == "repository.url"
        message = str(err.value)
        assert "\n" not in message and f"{runner.DEV_MODE_ENV}=1" in message and url in message, message
        assert "https:// or ssh URL" in message
    assert not list((tmp_path / "worker").glob("mirrors/*.git")) and not marker.exists()


def test_which_urls_are_on_the_workers_disk():
    cases = {
        "/srv/git/app.git": "file", "app.git": "file", "./app": "file", "../x.git": "file", "file:///srv/a.git": "file",
        "FILE:///srv/a.git": "file", "dir/with:colon": "file", "https://git.example.com/a.git": "https",
        "http://git.example.com/a.git": "http", "ssh://git@host/a.git": "ssh", "git@github.com:o/r.git": "ssh",
        "host:repo.git": "ssh", "git://host/a.git": "git",
    }  # fmt: skip
    assert {url: runner.transport(url) for url in cases} == cases


def test_git_runs_with_an_environment_built_from_nothing(tmp_path, monkeypatch):
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("GIT_DIR", "/somewhere/else")  # the worker's own git settings are not git's either
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'core.hooksPath'='/tmp/evil'")
    config = RepositoryConfig(url="https://git.example.com/team/app.git")
    local, net = runner.git_env(config, tmp_path), runner.git_env(config, tmp_path, network=True)
    for env in (local, net):
        assert not set(SECRETS) & set(env) and not set(SECRETS.values()) & set(env.values())
        assert "GIT_DIR" not in env and "GIT_CONFIG_PARAMETERS" not in env
        assert env["HOME"] == str(tmp_path / "git-home") and env["GIT_CONFIG_NOSYSTEM"] == "1"
        assert env["GIT_CONFIG_GLOBAL"] == "/dev/null" and env["LC_ALL"] == "C"
    assert (tmp_path / "git-home").stat().st_mode & 0o777 == 0o700
    assert local["GIT_ALLOW_PROTOCOL"] == "file:git:http:https:ssh"  # this test runs for development
    monkeypatch.delenv(runner.DEV_MODE_ENV)
    assert "file" not in runner.git_env(config, tmp_path, network=True)["GIT_ALLOW_PROTOCOL"].split(":")


# ------------------------------------------------------------------------------ the token and an HTTP server


class Recorder(http.server.ThreadingHTTPServer):
    """A git server that never serves: it records every request (headers and body) and answers `behaviour`:
    ('challenge',) a 401 asking for Basic credentials, ('redirect', url) a 302 there."""

    def __init__(self, behaviour: tuple[str, ...], tls: ssl.SSLContext | None = None) -> None:
        self.behaviour = behaviour
        self.requests: list[bytes] = []
        super().__init__(("127.0.0.1", 0), _Handler)
        if tls is not None:
            self.socket = tls.wrap_socket(self.socket, server_side=True)

    def url(self, host: str = "127.0.0.1", scheme: str = "http") -> str:
        return f"{scheme}://{host}:{self.server_address[1]}"

    def saw(self, text: str) -> bool:
        return any(text.encode() in r for r in self.requests)


class _Handler(http.server.BaseHTTPRequestHandler):
    server: Recorder

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self.server.requests.append(f"{self.requestline}\r\n{self.headers}".encode() + body)
        kind, *arg = self.server.behaviour
        if kind == "redirect":
            self.send_response(302)
            self.send_header("Location", arg[0] + self.path)
        elif self.headers.get("Authorization"):
            self.send_response(403)
        else:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="git"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST = _answer

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def serve() -> Iterator:
    servers: list[Recorder] = []

    def start(*behaviour: str, tls: ssl.SSLContext | None = None) -> Recorder:
        server = Recorder(behaviour, tls)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture
def tls(tmp_path, monkeypatch) -> ssl.SSLContext:
    """A self-signed certificate for 127.0.0.1 and localhost, which git (through GIT_SSL_CAINFO) trusts."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    monkeypatch.setenv("GIT_SSL_CAINFO", str(cert))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


def basic(token: str) -> str:
    return base64.b64encode(f"x-access-token:{token}".encode()).decode()


async def attempt(config: RepositoryConfig, root: Path) -> RepositoryConfigError:
    with pytest.raises(RepositoryConfigError) as err:
        await workcopy.prepare("run-http", config, None, Mirrors(root))
    return err.value


async def test_the_token_is_never_sent_over_plain_http(tmp_path, monkeypatch, serve):
    monkeypatch.setenv("OFFICE_CRED_TEST_PUSH_TOKEN", TOKEN)
    server = serve("challenge")
    config = RepositoryConfig(url=f"{server.url()}/app.git", push_credential_env="OFFICE_CRED_TEST_PUSH_TOKEN")
    calls = (
        workcopy.check(config, tmp_path / "w"),
        workcopy.prepare("run-http", config, None, Mirrors(tmp_path / "w")),
    )
    for call in calls:
        with pytest.raises(RepositoryConfigError) as err:
            await call
        assert err.value.setting == "repository.url" and "only over https" in str(err.value)
    assert not server.saw(TOKEN) and not server.saw(basic(TOKEN)) and not server.saw("Authorization")


async def test_the_token_goes_over_https_to_the_configured_host_when_it_asks(tmp_path, monkeypatch, serve, tls):
    monkeypatch.setenv("OFFICE_CRED_TEST_PUSH_TOKEN", TOKEN)
    server = serve("challenge", tls=tls)
    config = RepositoryConfig(url=f"{server.url(scheme='https')}/app.git",
                              push_credential_env="OFFICE_CRED_TEST_PUSH_TOKEN")  # fmt: skip
    err = await attempt(config, tmp_path / "w")
    assert err.setting == "repository.push_credential_env"  # 403 with the token: a refused credential
    assert server.saw(f"Authorization: Basic {basic(TOKEN)}")  # what the other tests look for is really sent


@pytest.mark.parametrize("target", ["another host over https", "the same host over http"])
async def test_a_redirect_is_not_followed_and_its_target_never_gets_the_token(
    tmp_path, monkeypatch, serve, tls, target
):
    monkeypatch.setenv("OFFICE_CRED_TEST_PUSH_TOKEN", TOKEN)
    if target == "another host over https":
        elsewhere = serve("challenge", tls=tls)
        to = elsewhere.url(host="localhost", scheme="https")
    else:
        elsewhere = serve("challenge")
        to = elsewhere.url()
    server = serve("redirect", to, tls=tls)
    config = RepositoryConfig(url=f"{server.url(scheme='https')}/app.git",
                              push_credential_env="OFFICE_CRED_TEST_PUSH_TOKEN")  # fmt: skip
    err = await attempt(config, tmp_path / "w")
    assert err.setting == "repository.url" and "302" in str(err) and "redirects are not followed" in str(err)
    assert server.requests  # the configured server was asked, and answered with a redirect
    assert elsewhere.requests == []  # never followed
    assert not server.saw(basic(TOKEN)) and not elsewhere.saw(basic(TOKEN))


async def test_the_workers_own_git_runs_no_hooks_or_filters_whatever_its_user_configured(tmp_path, monkeypatch):
    """The worker user's ~/.gitconfig defines a filter and a hooks directory, the repository asks for the filter
    in .gitattributes, and the mirror's own hooks directory holds hooks: the office's checkout, commit and push
    run none of them."""
    bare = seeded_bare(tmp_path, "filtered")
    seed = tmp_path / "filtered-seed"
    (seed / ".gitattributes").write_text("* filter=evil\n")
    git("add", ".gitattributes", cwd=seed)
    git("commit", "-q", "-m", "attributes", cwd=seed)
    git("push", "-q", str(bare), "main", cwd=seed)

    marker, hooks, home = tmp_path / "ran.txt", tmp_path / "user-hooks", tmp_path / "worker-home"
    names = ("post-checkout", "pre-commit", "post-commit", "pre-push", "reference-transaction")
    for directory in (hooks, home):
        directory.mkdir()
    for name in names:
        (hooks / name).write_text(f'#!/bin/sh\necho "user {name}" >> {marker}\n')
        (hooks / name).chmod(0o755)
    (home / ".gitconfig").write_text(
        f'[core]\n\thooksPath = {hooks}\n[filter "evil"]\n\tclean = {hooks}/pre-commit\n'
        f"\tsmudge = {hooks}/post-checkout\n\trequired = true\n"
    )
    monkeypatch.setenv("HOME", str(home))
    config = RepositoryConfig(url=str(bare))

    worker = Mirrors(tmp_path / "worker")
    wc = await workcopy.prepare("run-nohooks", config, None, worker)
    for name in names:
        (wc.mirror / "hooks" / name).write_text(f'#!/bin/sh\necho "mirror {name}" >> {marker}\n')
        (wc.mirror / "hooks" / name).chmod(0o755)
    (wc.path / "new.txt").write_text("new\n")
    turn = await workcopy.commit_turn(wc, 1, "alpha", "m")
    await workcopy.remove(wc)
    again = await workcopy.prepare("run-nohooks", config, turn.commit, worker)
    assert (again.path / "new.txt").read_text() == "new\n"
    assert not marker.exists(), marker.read_text()
