"""`relais --help` (and every command's parsing) must not load the heavy stacks: since the settings
split, `cli.agent_service` reaching `booking.settings` once loaded LangGraph through `booking/__init__`
(449 → 1,402 modules) and no test saw it."""

import subprocess
import sys

HEAVY = ("langgraph", "langchain_core", "chainlit", "chromadb", "torch", "sentence_transformers", "uvicorn")


def test_the_relais_command_imports_no_heavy_stack() -> None:
    code = f"import sys, cli.app; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]", f"relais --help loads {out.stdout.strip()}"
