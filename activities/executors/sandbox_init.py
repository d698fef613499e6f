"""The first process inside an agent's sandbox: `python -I -S sandbox_init.py <port>=<socket>… -- <command…>`.
Standard library only, started fast.

The sandbox has a network namespace of its own, so the worker's loopback (where a local provider listens) is not
reachable from it. Before the agent starts, this binds each listed port on the sandbox's own 127.0.0.1 and relays
every connection to the matching Unix socket, which the worker serves (activities/executors/sandbox.py) and
connects onwards only to what the run may reach. Then it runs the agent with the inherited stdio and exits with
its status; when it exits, the sandbox's pid namespace ends and every process left in it is killed.
"""

import contextlib
import os
import socket
import sys
import threading


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for sock, how in ((dst, socket.SHUT_WR), (src, socket.SHUT_RD)):
            with contextlib.suppress(OSError):
                sock.shutdown(how)


def _relay(client: socket.socket, path: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(path)
    except OSError:
        client.close()
        upstream.close()
        return
    back = threading.Thread(target=_pipe, args=(upstream, client), daemon=True)
    back.start()
    _pipe(client, upstream)
    back.join()
    client.close()
    upstream.close()


def _serve(listener: socket.socket, path: str) -> None:
    while True:
        client, _ = listener.accept()
        threading.Thread(target=_relay, args=(client, path), daemon=True).start()


def main(argv: list[str]) -> int:
    split = argv.index("--")
    forwards, command = argv[1:split], argv[split + 1 :]
    listeners = []
    for spec in forwards:
        port, _, path = spec.partition("=")
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", int(port)))
        listener.listen(64)
        listeners.append((listener, path))
    child = os.fork()  # listening before the agent starts: its first connection cannot race the relay
    if child == 0:
        try:
            os.execvp(command[0], command)
        except OSError as err:
            os.write(2, f"agent command not found: {command[0]} ({err.strerror})\n".encode())
            os._exit(127)
    null = os.open(os.devnull, os.O_RDWR)  # the agent owns stdio: the pipes close when it is gone
    os.dup2(null, 0)
    os.dup2(null, 1)
    for listener, path in listeners:
        threading.Thread(target=_serve, args=(listener, path), daemon=True).start()
    _, status = os.waitpid(child, 0)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


if __name__ == "__main__":
    main(sys.argv)
