"""Ports for the servers the dev stack and the tests start: taken where no outgoing connection can take them first,
and never handed to two servers at once, by one process or by several on the machine (a parallel test, a worker,
`office dev`'s own servers)."""

import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from office.asgi import LISTEN_PORTS, ephemeral_start, free_port

ROOT = Path(__file__).resolve().parents[2]
DRAW = "from office.asgi import free_port\nprint(' '.join(str(free_port()) for _ in range({n})))"


@pytest.fixture
def own_registry(tmp_path, monkeypatch):
    """The handed-out ports of this test alone (processes it starts read the same temp dir)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    return tmp_path


def test_a_free_port_is_free_and_below_the_range_outgoing_connections_draw_from(own_registry):
    start = ephemeral_start()
    ports = [free_port() for _ in range(20)]
    for port in ports:
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))  # still free: nobody was handed it and kept it
    if start > LISTEN_PORTS.start:
        assert all(LISTEN_PORTS.start <= port < start for port in ports), (start, ports)


def test_a_process_is_never_handed_the_same_port_twice(own_registry):
    ports = [free_port() for _ in range(500)]  # drawn at random, 500 of 12,768 would repeat almost surely
    assert len(set(ports)) == len(ports)


def test_processes_drawing_at_once_are_never_handed_the_same_port(own_registry):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    draws = [
        subprocess.Popen([sys.executable, "-c", DRAW.format(n=300)], env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    handed = [out.split() for out, _ in (d.communicate(timeout=60) for d in draws)]
    assert [len(ports) for ports in handed] == [300] * 3
    everyone = [port for ports in handed for port in ports]
    assert len(set(everyone)) == len(everyone)  # at random, three draws of 300 would share a dozen
    assert (own_registry / f"office-ports-{os.getuid()}").stat().st_mode & 0o077 == 0  # this user's alone


def test_without_a_usable_registry_a_port_is_still_handed_out(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing"))  # no such directory: nothing to lock
    port = free_port()
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))
