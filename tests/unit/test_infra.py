"""infra/docker-compose.yaml is the production shape: a Compose file that Compose itself accepts, whose workers run
with the settings `office bench scale` measured, reach the cluster and the store by service name, register exactly
the project's search attributes and take credentials only from the deploying shell.

These machines have no Docker engine, so nothing here starts a container. Compose's own validation needs Debian's
`docker-compose` (`docker-compose config` parses, validates and renders the file without a daemon): under CI=true
its absence fails the test, because .ci/run installs it; elsewhere that one test skips and says how to install it.
"""

import os
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from bench.scale import WORKER_SIZING, sizing_env
from contracts import search_attributes
from contracts.queues import TASK_QUEUE
from office.temporal_server import DYNAMIC_CONFIG_VALUES

INFRA = Path(__file__).resolve().parents[2] / "infra"
COMPOSE = INFRA / "docker-compose.yaml"
REFERENCE = re.compile(r"^\$\{[A-Z][A-Z0-9_]*(:-[^}]*)?\}$")  # ${NAME} or ${NAME:-default}


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def worker_env(compose: dict) -> dict[str, str]:
    return {k: str(v) for k, v in compose["services"]["office-worker"]["environment"].items()}


def test_compose_validates_and_renders_the_workers_as_written():
    tool = shutil.which("docker-compose")
    if tool is None:
        if os.environ.get("CI") == "true":
            pytest.fail("docker-compose is missing: CI validates infra/ with Debian's docker-compose (.ci/run)")
        pytest.skip("Debian's docker-compose is not installed (apt-get install docker-compose)")
    # A clean environment: the rendering substitutes variables, and a real key must never reach a test log.
    clean = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/root")}
    done = subprocess.run(
        [tool, "--file", str(COMPOSE), "config"], cwd=INFRA, env=clean, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    rendered = yaml.safe_load(done.stdout)
    env = rendered["services"]["office-worker"]["environment"]
    assert {k: env[k] for k in sizing_env(WORKER_SIZING)} == sizing_env(WORKER_SIZING)
    assert rendered["services"]["office-worker"]["deploy"]["replicas"] >= 2
    assert env["OPENAI_API_KEY"] == ""  # unset in the deploying shell: empty, never a value from the file


def test_workers_run_with_the_sizing_the_scale_bench_measured(compose):
    env = worker_env(compose)
    assert {k: env.get(k) for k in sizing_env(WORKER_SIZING)} == sizing_env(WORKER_SIZING)
    assert env["OFFICE_TASK_QUEUE"] == TASK_QUEUE
    assert compose["services"]["office-worker"]["command"] == ["python", "worker.py"]


def test_workers_reach_the_cluster_and_the_store_by_service_name(compose):
    services, env = compose["services"], worker_env(compose)
    host, port = env["TEMPORAL_ADDRESS"].split(":")
    assert host in services and port == "7233"
    store = urlsplit(env["OFFICE_DATABASE_URL"])
    assert store.scheme == "postgresql" and store.hostname in services
    assert services[store.hostname]["environment"]["POSTGRES_DB"] == store.path.lstrip("/")
    setup = services["office-setup"]["environment"]
    assert setup["OFFICE_DATABASE_URL"] == env["OFFICE_DATABASE_URL"]  # migrated where the workers write
    assert setup["TEMPORAL_ADDRESS"] == env["TEMPORAL_ADDRESS"]


def test_workers_start_after_the_setup_has_completed(compose):
    depends = compose["services"]["office-worker"]["depends_on"]
    assert depends["office-setup"]["condition"] == "service_completed_successfully"
    for name, service in compose["services"].items():
        needed = service.get("depends_on", [])
        assert set(needed) <= set(compose["services"]), f"{name} depends on a service that is not defined"


def test_setup_registers_exactly_the_projects_search_attributes(compose):
    script = " ".join(compose["services"]["office-setup"]["command"])
    registered = set()
    for create in re.findall(r"search-attribute create ((?:--\S+ \S+\s*)+)", script):
        kind = re.search(r"--type (\S+)", create)
        assert kind is not None, create
        registered |= {(name, kind.group(1)) for name in re.findall(r"--name (\S+)", create)}
    kinds = {"KEYWORD": "Keyword", "INT": "Int"}
    assert registered == {(k.name, kinds[k.indexed_value_type.name]) for k in search_attributes.ALL}
    assert "office db upgrade" in script


def test_credentials_come_only_from_the_deploying_shell(compose):
    for name, service in compose["services"].items():
        for key, value in (service.get("environment") or {}).items():
            if re.search(r"(API_KEY|TOKEN|SECRET)$", key):
                assert REFERENCE.match(str(value)), f"{name}.{key} must be a ${{VARIABLE}} reference, not a value"
            if re.search(r"(PASSWORD|PWD)$", key):
                assert REFERENCE.match(str(value)), f"{name}.{key} must be a ${{VARIABLE:-default}} reference"


def test_every_file_the_compose_file_mounts_is_in_infra(compose):
    for service in compose["services"].values():
        for volume in service.get("volumes", []):
            source = volume.split(":", 1)[0]
            if source == "./certs":  # made by infra/gen-certs.sh, never committed
                assert volume.endswith(":ro") and "certs" in (INFRA / "gen-certs.sh").read_text()
            elif source.startswith("."):
                assert (INFRA / source).is_file(), source


def published(compose: dict) -> dict[str, list[str]]:
    return {name: [str(p) for p in service.get("ports", [])] for name, service in compose["services"].items()}


def test_the_frontend_is_published_nowhere_and_anything_published_only_on_loopback(compose):
    ports = published(compose)
    assert ports["temporal"] == []  # workers, setup and UI reach it on the compose network, with mTLS
    assert not any("7233" in p for mapped in ports.values() for p in mapped)
    for name, mapped in ports.items():
        for port in mapped:
            assert port.startswith("127.0.0.1:"), f"{name} publishes {port} beyond this host's loopback"


def test_the_frontend_requires_client_certificates_and_every_client_presents_one(compose):
    services = compose["services"]
    server = services["temporal"]["environment"]
    assert server["TEMPORAL_TLS_REQUIRE_CLIENT_AUTH"] == "true"
    assert server["TEMPORAL_TLS_FRONTEND_CERT"] and server["TEMPORAL_TLS_CLIENT1_CA_CERT"]
    issued = re.findall(r"for client in ([\w -]+);", (INFRA / "gen-certs.sh").read_text())[0].split()
    clients = {
        "office-worker": "TEMPORAL_TLS_CLIENT_CERT_PATH",
        "office-setup": "TEMPORAL_TLS_CLIENT_CERT_PATH",
        "temporal-ui": "TEMPORAL_TLS_CERT",
    }
    for name, variable in clients.items():
        cert = services[name]["environment"][variable]
        assert cert == f"/certs/{name}.pem" and name in issued, (name, cert)
        assert services[name]["environment"].get("TEMPORAL_TLS_SERVER_NAME") == "temporal"


def test_gen_certs_issues_certificates_the_ca_verifies(tmp_path):
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    subprocess.run(["sh", str(INFRA / "gen-certs.sh"), str(tmp_path)], check=True, capture_output=True, timeout=120)
    for name in ("server", "office-worker", "office-setup", "temporal-ui"):
        done = subprocess.run(["openssl", "verify", "-CAfile", "ca.pem", f"{name}.pem"], cwd=tmp_path,
                              capture_output=True, text=True)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert (tmp_path / f"{name}.key").stat().st_mode & 0o077 == 0  # keys owner-only


def test_the_worker_image_runs_as_an_unprivileged_user():
    users = re.findall(r"^USER\s+(\S+)", (INFRA.parent / "Dockerfile").read_text(), re.MULTILINE)
    assert users and users[-1].split(":")[0] not in ("root", "0")


def test_the_worker_image_has_bubblewrap_and_its_container_may_create_namespaces(compose):
    assert re.search(r"apt-get install .*bubblewrap", (INFRA.parent / "Dockerfile").read_text())
    worker = compose["services"]["office-worker"]
    assert "seccomp=unconfined" in worker["security_opt"] and not worker.get("privileged")
    assert not worker.get("cap_add")


def test_the_cluster_runs_with_the_server_settings_office_dev_measured_with():
    """Every server setting `office dev` starts its dev server with (fairness, one partition, updates in flight, the
    transfer queue's read rate) is in the cluster's dynamic config with the same value, so the cluster gets every
    setting the benchmarks were measured with (its server version, shards and database still differ)."""
    cluster = yaml.safe_load((INFRA / "dynamicconfig.yaml").read_text())
    deployed = {key: str(entries[0]["value"]).lower() for key, entries in cluster.items()}
    assert {key: deployed.get(key) for key in DYNAMIC_CONFIG_VALUES} == DYNAMIC_CONFIG_VALUES
