"""Scale-out on real engines: two app instances (Chainlit + coach service each, own ports, own data
dirs) share one PostgreSQL (Chainlit's data layer and the LangGraph checkpointer) and one Chroma
server (the knowledge base, ingested once). Run by `scripts/scale-tests.sh`.

A thread started on instance A, handed to the coach (ALTER) and paused at the coach's prompt,
is resumed on instance B: B lists it, still routes it to the coach, and B's coach service
continues the same coach thread (the goal and injury from A's turn are still there). A
help-center question on B is answered from the shared Chroma server (B never ingested).
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator

import pytest

from tests.chainlit_driver import list_threads, relais_env
from tests.conftest import REPO_ROOT, scale_services
from tests.demo_index import cache_root_for, ingested_template
from tests.resilience.harness import (
    MEAT_AND_FISH,
    USERS_ENV,
    Stack,
    coach_answered,
    coach_thread,
    get_thread,
    login_as,
    open_chat,
    settle_elements,
    thread_metadata,
    tool_labels,
    user_messages,
)

pytestmark = pytest.mark.scale

HANDOFF = "I have a knee injury. Build muscle, lose fat — suggest a workout plan"
FOLLOW_UP = "What should I eat to support this workout plan?"


@pytest.fixture(scope="module")
def instances(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    database_url, chroma_host, chroma_port = scale_services()
    work = tmp_path_factory.mktemp("scale")
    shared = {
        "DATABASE_URL": database_url, "CHROMA_HOST": chroma_host, "CHROMA_PORT": str(chroma_port),
        "RELAIS_COLLECTION": f"relais_scale_{uuid.uuid4().hex[:8]}", "RELAIS_USERS": USERS_ENV,
        "EXTERNAL_AGENT_TOKEN": "scale-shared-token-0b7d",
    }
    data_a, data_b = work / "data-a", work / "data-b"
    # only the embedding cache is reused (no re-encoding); the index itself goes to the Chroma server
    shutil.copytree(ingested_template(cache_root_for(tmp_path_factory)) / "embeddings", data_a / "embeddings")
    ingest = subprocess.run([sys.executable, "-m", "cli.app", "ingest"], env=relais_env(data_a, **shared),
                            cwd=REPO_ROOT, capture_output=True, text=True, timeout=900, check=False)
    assert ingest.returncode == 0, ingest.stdout[-2000:] + ingest.stderr[-2000:]
    (work / "a").mkdir()
    (work / "b").mkdir()
    a = Stack(work / "a", data_a, env=shared)
    b = Stack(work / "b", data_b, env=shared)
    try:
        a.start()
        b.start()
        yield {"a": a, "b": b, "database_url": database_url}
    finally:
        for stack in (a, b):
            with contextlib.suppress(Exception):
                stack.stop()


def _assistant_posts(stack: Stack) -> int:
    assert stack.agent is not None
    return stack.agent.logs().count('"POST /assistant')


async def test_a_thread_paused_on_instance_a_resumes_on_instance_b(instances: dict) -> None:
    a, b = instances["a"], instances["b"]

    chat = await open_chat(a.url, "alice")
    first = await chat.ask(HANDOFF)
    thread_id = chat.thread_id
    await chat.close()
    assert coach_answered(first) and thread_id, first.text
    assert any(label.startswith("workout_plan(") and "knee" in label for label in tool_labels(first))
    state, _ = await coach_thread(instances["database_url"], thread_id)
    assert state["paused"], state  # waiting at the coach's prompt, in Postgres
    assert (_assistant_posts(a), _assistant_posts(b)) == (1, 0)

    token = login_as(b.url, "alice")
    assert thread_id in [t["id"] for t in await list_threads(b.url, token)]
    resumed = await open_chat(b.url, "alice", thread_id=thread_id)
    follow_up = await resumed.ask(FOLLOW_UP)
    approved = await resumed.click_label("Vegetarian", follow_up.actions)
    await resumed.close()

    # B's app kept the thread in ALTER and B's coach service continued A's coach thread
    assert coach_answered(follow_up), follow_up.text
    assert any(label.startswith("meal_plan(") for label in tool_labels(follow_up))
    text = follow_up.text.lower()
    assert "knee" in text and "build muscle and lose fat" in text, follow_up.text[:600]
    assert coach_answered(approved)
    veggie = approved.text.lower()
    assert "vegetarian" in veggie and not [w for w in MEAT_AND_FISH if w in veggie], approved.text[:600]
    assert _assistant_posts(a) == 1 and _assistant_posts(b) == 2

    state, humans = await coach_thread(instances["database_url"], thread_id)
    assert humans[:2] == [HANDOFF, FOLLOW_UP] and len(humans) == 3 and "vegetarian" in humans[2].lower()
    assert state["paused"] and state["last_active_agent"] == "nutrition_advisor"
    thread = get_thread(a.url, login_as(a.url, "alice"), thread_id).json()  # A sees B's turns too
    assert thread_metadata(thread).get("mode") == "ALTER"
    assert [m for m in user_messages(thread) if m in (HANDOFF, FOLLOW_UP)] == [HANDOFF, FOLLOW_UP]


async def test_instance_b_answers_from_the_shared_chroma_server(instances: dict) -> None:
    b = instances["b"]
    chat = await open_chat(b.url, "bob")
    turn = await chat.ask("How much does the base plan cost?")
    elements = await settle_elements(turn)
    await chat.close()
    assert "$10" in turn.text and not tool_labels(turn), turn.text
    assert any("Plans and pricing" in (e.get("name") or "") for e in elements)
    assert not (b.data_dir / "chroma").exists()  # B has no local index: it read the server's
