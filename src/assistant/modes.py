"""A thread's orchestrator mode: NORMAL (answer from the KB) until ALTER (the agent), for good."""

from __future__ import annotations

NORMAL = "NORMAL"
ALTER = "ALTER"
MODE_KEY = "mode"
