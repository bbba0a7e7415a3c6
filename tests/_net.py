"""Local servers for the remote and cluster tests (one home: tests/cli/test_remote.py and
tests/cli/test_scan_cluster.py both need them): a free port, and a server that never answers."""

from __future__ import annotations

import socket
import threading


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class HangingServer:
    """A server on 127.0.0.1 that accepts connections and never answers (the timeout cases): ``port``; ``close()``
    (or leave the ``with`` block) drops every connection it holds."""

    def __init__(self, backlog: int = 16):
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(backlog)
        self.port = self._sock.getsockname()[1]
        self._held: list[socket.socket] = []
        self._stop = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        self._sock.settimeout(0.2)
        while not self._stop.is_set():
            try:
                self._held.append(self._sock.accept()[0])
            except OSError:
                pass

    def close(self) -> None:
        self._stop.set()
        for c in self._held:
            c.close()
        self._sock.close()

    def __enter__(self) -> "HangingServer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
