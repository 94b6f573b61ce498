"""The warm start says which step it is on, and `make run`'s wait shows it."""

from __future__ import annotations

import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from chatbot import warm
from chatbot.settings import ChatbotSettings
from cli.launcher import _wait_healthy
from relais.settings import Settings


def test_warm_status_follows_each_step(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen: list[dict] = []

    def fake_warm_up(settings: Settings, on_step) -> float:  # the real steps' callback, no model
        for description in ("loading the sentence encoder and the vector store", "loading the BM25 index"):
            on_step(description)
            seen.append(dict(status))
        return 0.0

    import knowledge.warmup

    monkeypatch.setattr(knowledge.warmup, "warm_up", fake_warm_up)
    status: dict = {}
    warm._warm(ChatbotSettings().on(Settings(relais_data_dir=tmp_path)), status)
    assert [s["step"] for s in seen] == ["loading the sentence encoder and the vector store", "loading the BM25 index"]
    assert [s["done"] for s in seen] == [0, 1]
    assert seen[0]["steps"] == knowledge.warmup.STEPS


class _Warming(BaseHTTPRequestHandler):
    calls = 0

    def do_GET(self) -> None:
        type(self).calls += 1
        ready = type(self).calls > 3
        body = b'{"ready": true}' if ready else b'{"ready": false, "step": "loading the BM25 index", "done": 1, "steps": 4}'
        self.send_response(200 if ready else 503)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_the_wait_names_the_step_the_app_reports(capsys: pytest.CaptureFixture[str]) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Warming)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/relais/ready"
        assert _wait_healthy(url, sleeper, seconds=20, what="warming up the app")
    finally:
        sleeper.kill()
        sleeper.wait()
        server.shutdown()
    err = capsys.readouterr().err
    assert "warming up the app: loading the BM25 index" in err and "1/4" in err
