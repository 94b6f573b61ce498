"""Run a real ASGI app under uvicorn on 127.0.0.1 in a background thread, for tests."""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Any, Iterator

import httpx
import uvicorn

from tests.conftest import free_port


@contextlib.contextmanager
def serve(app: Any, port: int | None = None, ready_path: str | None = None) -> Iterator[str]:
    """Serve `app` on a free loopback port; yields its base URL; stops it on exit."""
    port = port or free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    base_url = f"http://127.0.0.1:{port}"
    if ready_path:
        httpx.get(base_url + ready_path, timeout=5)
    try:
        yield base_url
    finally:
        server.should_exit = True
        thread.join(timeout=10)
