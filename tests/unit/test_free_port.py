"""Ports for the servers the dev stack and the tests start: taken where no outgoing connection can take them first."""

import socket

from office.asgi import LISTEN_PORTS, ephemeral_start, free_port


def test_a_free_port_is_free_and_below_the_range_outgoing_connections_draw_from():
    start = ephemeral_start()
    ports = [free_port() for _ in range(20)]
    for port in ports:
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))  # still free: nobody was handed it and kept it
    if start > LISTEN_PORTS.start:
        assert all(LISTEN_PORTS.start <= port < start for port in ports), (start, ports)
