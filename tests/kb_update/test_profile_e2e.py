"""The "Knowledge update" profile in the real Chainlit app (headless server, socket.io client):
the change runs offline, units appear as steps, the lesson and the publish are approved with
the action buttons, and afterwards the Assistant profile answers with the new price."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.chainlit_driver import ChatSession, chainlit_server, login, relais_env
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.slow
DEMO_KB = REPO_ROOT / "data" / "knowledge"


async def _wait_for(chat: ChatSession, predicate: Any, timeout: float = 180) -> list[str]:
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        texts = chat._turn.texts
        if predicate(texts):
            return texts
        await asyncio.sleep(0.2)
    raise AssertionError(f"timed out; last messages: {chat._turn.texts[-3:]}")


@pytest.mark.skipif(not DEMO_KB.is_dir(), reason="the demo knowledge base is not in this checkout")
async def test_knowledge_update_profile_end_to_end(tmp_path: Path) -> None:
    kb = Path(shutil.copytree(DEMO_KB, tmp_path / "kb"))
    data_dir = tmp_path / "data"
    env = relais_env(data_dir, RELAIS_KB_DIR=str(kb))
    await asyncio.to_thread(subprocess.run, [sys.executable, "-m", "chatbot.cli", "ingest"], env=env,
                            cwd=REPO_ROOT, check=True, capture_output=True, timeout=300)
    server = await asyncio.to_thread(chainlit_server(data_dir, tmp_path, RELAIS_KB_DIR=str(kb)).start)
    try:
        token = login(server.url, "alice", "alice-pass-1")
        chat = await ChatSession(server.url, token, chat_profile="Knowledge update").connect()
        asked: list[str] = []

        async def on_ask(data: dict) -> dict:  # click the approving button of each prompt
            asked.append(data["msg"].get("output", ""))
            await asyncio.sleep(0.2)
            buttons = [a for a in chat._turn.actions if a.get("forId") == data["msg"]["id"]]
            return next(a for a in buttons if a["label"] in ("Add to the brief", "Publish"))

        chat.sio.on("ask", on_ask)
        try:
            await chat.ask("The base plan moves from $10/month to $12/month", timeout=180)
            texts = await _wait_for(chat, lambda t: any(x.startswith("**published**") for x in t))
        finally:
            await chat.close()
        steps = {s.get("name") for s in chat._turn.steps if "· attempt" in str(s.get("name"))}
        assert "plans-and-pricing.md · attempt 1" in steps and "plans-and-pricing.md · attempt 2" in steps
        assert any("judge (offline stand-in" in str(s.get("output")) for s in chat._turn.steps)
        assert any("Lesson proposed" in text for text in asked)
        assert any(text.startswith("Publish") for text in asked)
        assert any(text.startswith("## Review") and "```diff" in text for text in texts)
        assert "$12/month" in (kb / "plans-and-pricing.md").read_text()

        assistant = await ChatSession(server.url, token).connect()
        try:
            turn = await assistant.ask("How much does the base plan cost per month?")
            assert "$12" in turn.text, turn.text
        finally:
            await assistant.close()
    finally:
        server.stop()
