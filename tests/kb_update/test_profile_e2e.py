"""The "Knowledge update" profile in the real Chainlit app (headless server, socket.io client):
the change runs offline, every question (lessons, items left for a person, publish) is answered
with its buttons, and afterwards the Assistant profile answers with the new price."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.chainlit_driver import ChatSession, chainlit_server, login
from tests.conftest import REPO_ROOT
from tests.demo_index import cache_root_for, ingested_data_dir

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
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
async def test_knowledge_update_profile_end_to_end(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    kb = Path(shutil.copytree(DEMO_KB, tmp_path / "kb"))
    # the copy's content is the demo KB's: its cached index is this base's index (not re-encoded)
    data_dir = ingested_data_dir(tmp_path / "data", cache_root_for(tmp_path_factory))
    server = await asyncio.to_thread(chainlit_server(data_dir, tmp_path, RELAIS_KB_DIR=str(kb)).start)
    try:
        token = login(server.url, "alice", "alice-pass-1")
        chat = await ChatSession(server.url, token, chat_profile="Knowledge update").connect()
        asked: list[str] = []
        try:
            turn = await chat.ask("The base plan moves from $10/month to $12/month", timeout=180)
            for _ in range(12):  # the lessons, the items left for a person, then the publish
                prompt = next(m for m in reversed(list(turn.messages.values())) if m.get("type") == "assistant_message"
                              and any(a.get("forId") == m["id"] for a in turn.actions))
                asked.append(prompt["output"])
                buttons = [a for a in turn.actions if a.get("forId") == prompt["id"]]
                assert all(a["payload"].get("interrupt_id") for a in buttons)  # every button names its question
                button = buttons[0]  # "Yes, apply it" / "Use <new value>" / "Publish"
                turn = await chat.click(button)  # the HTTP call returns once the callback has answered
                if button["label"] == "Publish":
                    break
            texts = chat._turn.texts
        finally:
            await chat.close()
        assert any("each needed the same correction" in text for text in asked)  # the lesson, asked once
        assert any("three times the Base plan" in text and "$36/month" in text for text in asked)
        assert any(text.startswith("## What will change") and "~~$10/month~~ **$12/month**" in text for text in asked)
        assert any(text.startswith("**Published.**") for text in texts), texts
        assert "$12/month" in (kb / "plans-and-pricing.md").read_text()
        assert "| Famille | 36 $/mois | 432 $/an |" in (kb / "tarifs-et-forfaits.md").read_text()

        assistant = await ChatSession(server.url, token).connect()
        try:
            turn = await assistant.ask("How much does the base plan cost per month?")
            assert "$12" in turn.text, turn.text
        finally:
            await assistant.close()
    finally:
        server.stop()
