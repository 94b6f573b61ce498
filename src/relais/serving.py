"""Serve an ASGI app with uvicorn on a loopback port in a background thread.

Used wherever a real server is needed in-process: tests (real HTTP, real SSE) and benchmarks.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from typing import Any, Iterator

import httpx
import uvicorn


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def serve(app: Any, port: int | None = None, *, lifespan: str = "on", ready_path: str | None = None) -> Iterator[str]:
    """Run `app` on 127.0.0.1; yields its base URL; stops the server on exit."""
    port = port or free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan=lifespan))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    base_url = f"http://127.0.0.1:{port}"
    if ready_path:
        httpx.get(base_url + ready_path, timeout=5)
    try:
        yield base_url
    finally:
        server.should_exit = True
        thread.join(timeout=10)
