"""`relais doctor`: the checks a deployment depends on; the app runs the fatal ones at start."""

from __future__ import annotations

import os
import sys

from chatbot.auth import exposure_problem
from relais.settings import Settings


def listen_host() -> str:
    """The address the Chainlit server binds (`chainlit run --host` exports CHAINLIT_HOST)."""
    return os.environ.get("CHAINLIT_HOST") or "127.0.0.1"


def refuse_unsafe_start(settings: Settings, host: str | None = None) -> None:
    """Stop the process with a clear message when starting would be unsafe."""
    problem = exposure_problem(settings, host or listen_host())
    if problem:
        print(f"[relais] refusing to start: {problem}", file=sys.stderr, flush=True)
        raise SystemExit(2)
