"""Crash the app and the coach service with kill -9 in the middle of coach conversations, restart
them on the same data dir (SQLite), and resume every thread from the thread list.

What must hold for 100% of the test threads: the thread is still in ALTER (the next message goes
to the coach, not to the help center), the coach still knows the earlier turns' goal and
constraints, an answered prompt ("Vegetarian") is not lost, and nothing is half-written — each
user message is stored once, in Chainlit's thread and in the coach's checkpointed history.
Also: the agent being down gives the localized error (EN/FR) and the thread recovers after.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import Iterator

import pytest

from assistant.i18n import translate
from tests.chainlit_driver import ServerProcess, agent_server, list_threads
from tests.demo_index import cache_root_for, ingested_data_dir
from tests.resilience.harness import (
    MEAT_AND_FISH,
    Chat,
    Stack,
    checkpoint_file,
    coach_answered,
    coach_thread,
    get_thread,
    login_as,
    open_chat,
    slow_agent_server,
    thread_metadata,
    tool_labels,
    user_messages,
    wait_until,
)

pytestmark = pytest.mark.slow

EN_1 = "I have a knee injury. Build muscle, lose fat — suggest a workout plan"
EN_2 = "What should I eat to support this workout plan?"
EN_SNACK = "Any snack ideas between meals?"
FR_1 = "J'ai mal à l'épaule. Je veux prendre du muscle : propose-moi un programme"
FR_2 = "Que dois-je manger pour accompagner ce programme ?"
SLOW_AGENT = "tests.resilience.slow_agent"  # the module of the slow-streaming coach service


@pytest.fixture(scope="module")
def shared_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """One app and coach service for the module: every test crashes and restarts it on the same data
    dir, which is what it tests; a fresh pair per test only added two starts. Each test's threads
    (and the checkpoint rows it reads) are its own."""
    work = tmp_path_factory.mktemp("restarts")
    stack = Stack(work, ingested_data_dir(work / "data", cache_root_for(tmp_path_factory))).start()
    yield stack
    stack.stop()


@pytest.fixture()
def stack(shared_stack: Stack) -> Stack:
    """The module's stack, running, with the real coach service (whatever a failed test left)."""
    assert shared_stack.agent is not None
    if SLOW_AGENT in shared_stack.agent.args:
        shared_stack.replace_agent(real_agent(shared_stack))
    return shared_stack.ensure_running()


def real_agent(stack: Stack) -> ServerProcess:
    """The real coach service on the stack's agent port (after the slow one)."""
    return agent_server(stack.data_dir, stack.work, port=stack.agent_port, **stack.env)


async def _close(*chats: Chat) -> None:
    for chat in chats:
        with contextlib.suppress(Exception):
            await chat.close()


def _assert_no_meat(text: str) -> None:
    lowered = text.lower()
    assert not [w for w in MEAT_AND_FISH if w in lowered], text[:600]
    assert any(w in lowered for w in ("tofu", "lentil", "paneer", "tempeh", "chickpea")), text[:600]


def _assert_each_once(messages: list[str], expected: list[str]) -> None:
    counts = Counter(messages)
    assert all(n == 1 for n in counts.values()), f"a message was stored twice: {counts}"
    assert [m for m in messages if m in expected] == expected, messages


async def _resume(stack: Stack, user: str, thread_id: str) -> Chat:
    token = login_as(stack.url, user)
    assert thread_id in [t["id"] for t in await list_threads(stack.url, token)]
    chat = Chat(stack.url, token, thread_id=thread_id)
    await chat.connect()
    assert chat.resumed is not None, chat.resume_error
    assert thread_metadata(get_thread(stack.url, token, thread_id).json()).get("mode") == "ALTER"
    return chat


async def test_kill9_after_an_interrupt_every_thread_continues(stack: Stack) -> None:
    ckpt = checkpoint_file(stack.data_dir)
    en = await open_chat(stack.url, "alice")
    first = await en.ask(EN_1)
    assert coach_answered(first), first.text
    approved = await en.click_label("Vegetarian", first.actions)  # the approved step
    assert coach_answered(approved) and "vegetarian" in approved.text.lower()
    fr = await open_chat(stack.url, "bob")
    fr_first = await fr.ask(FR_1)
    assert coach_answered(fr_first) and "Végétarien" in {a["label"] for a in fr_first.actions}
    threads = {"en": en.thread_id, "fr": fr.thread_id}
    for tid in threads.values():
        state, _ = await coach_thread(ckpt, tid)
        assert state["paused"], state  # both wait at the constraint prompt when we crash

    stack.kill9()
    await _close(en, fr)
    stack.start()

    en = await _resume(stack, "alice", threads["en"])
    fr = await _resume(stack, "bob", threads["fr"])
    en_next = await en.ask(EN_2)
    fr_next = await fr.ask(FR_2)
    await _close(en, fr)

    # still with the coach, which remembers the goal, the injury and the approved diet
    assert coach_answered(en_next), en_next.text
    assert "Engine:" not in en_next.text and not en_next.elements  # not a help-center answer
    assert any(label.startswith("meal_plan(") for label in tool_labels(en_next))
    _assert_no_meat(en_next.text)
    assert "knee" in en_next.text.lower() and "build muscle and lose fat" in en_next.text.lower()
    assert coach_answered(fr_next), fr_next.text
    assert "épaule" in fr_next.text.lower() and "prendre du muscle" in fr_next.text.lower()

    en_state, en_humans = await coach_thread(ckpt, threads["en"])
    fr_state, fr_humans = await coach_thread(ckpt, threads["fr"])
    assert len(en_humans) == 3 and en_humans[0] == EN_1 and en_humans[2] == EN_2, en_humans
    assert "vegetarian" in en_humans[1].lower()  # the click survived the crash
    assert fr_humans == [FR_1, FR_2]
    assert en_state["paused"] and fr_state["paused"]

    for user, key, expected in (("alice", "en", [EN_1, "Vegetarian", EN_2]), ("bob", "fr", [FR_1, FR_2])):
        thread = get_thread(stack.url, login_as(stack.url, user), threads[key]).json()
        _assert_each_once(user_messages(thread), expected)


async def test_kill9_mid_stream_then_every_thread_continues(stack: Stack) -> None:
    data_dir = stack.data_dir
    stack.replace_agent(slow_agent_server(data_dir, stack.work, stack.agent_port))  # the app keeps running
    stack.ensure_running()
    ckpt = checkpoint_file(data_dir)
    mid = await open_chat(stack.url, "alice")
    first = await mid.ask(EN_1)
    assert coach_answered(first) and "Plan from workout_plan" in first.text, first.text
    approved = await mid.click_label("Vegetarian", first.actions)  # an approved step before the crash
    assert coach_answered(approved)
    bystander = await open_chat(stack.url, "bob")
    assert coach_answered(await bystander.ask(FR_1))
    threads = {"mid": mid.thread_id, "bystander": bystander.thread_id}

    before = mid.current
    pending = asyncio.create_task(mid.ask(EN_2))
    await wait_until(lambda: mid.current is not before and "Plan from meal_plan" in mid.current.text, 60,
                     "the answer never started streaming")
    stack.kill9()  # while the nutrition advisor is still writing its answer
    assert not pending.done() and not mid.current.actions  # the crash landed before the turn ended
    pending.cancel()
    with contextlib.suppress(BaseException):
        await pending
    await _close(mid, bystander)

    stack.replace_agent(real_agent(stack))
    stack.start()
    mid = await _resume(stack, "alice", threads["mid"])
    bystander = await _resume(stack, "bob", threads["bystander"])
    after = await mid.ask(EN_SNACK)
    fr_after = await bystander.ask(FR_2)
    await _close(mid, bystander)

    # still with the coach; the goal, the injury and the approved diet all survived the crash
    assert coach_answered(after), after.text
    _assert_no_meat(after.text)
    assert "knee" in after.text.lower() and "build muscle and lose fat" in after.text.lower()
    assert coach_answered(fr_after) and "épaule" in fr_after.text.lower(), fr_after.text

    state, humans = await coach_thread(ckpt, threads["mid"])
    assert humans[:2] == [EN_1, humans[1]] and "vegetarian" in humans[1].lower(), humans
    assert humans[-1] == EN_SNACK and humans.count(EN_2) <= 1 and len(set(humans)) == len(humans), humans
    assert state["paused"]
    _, fr_humans = await coach_thread(ckpt, threads["bystander"])
    assert fr_humans == [FR_1, FR_2]
    for user, key, expected in (("alice", "mid", [EN_1, "Vegetarian", EN_2, EN_SNACK]),
                                ("bob", "bystander", [FR_1, FR_2])):
        thread = get_thread(stack.url, login_as(stack.url, user), threads[key]).json()
        _assert_each_once(user_messages(thread), expected)


async def test_agent_down_gives_the_localized_error_then_the_thread_recovers(stack: Stack) -> None:
    ckpt = checkpoint_file(stack.data_dir)
    en_retry, fr_retry = "Make it 3 days a week", "Je ne peux m'entraîner que 3 jours par semaine"
    en = await open_chat(stack.url, "alice")
    fr = await open_chat(stack.url, "bob")
    assert coach_answered(await en.ask(EN_1))
    assert coach_answered(await fr.ask(FR_1))

    assert stack.agent is not None
    stack.agent.kill9()
    en_down = await en.ask(en_retry)
    fr_down = await fr.ask(fr_retry)
    assert translate("agent.unreachable", "en") in en_down.text, en_down.text
    assert translate("agent.unreachable", "fr") in fr_down.text, fr_down.text
    for turn in (en_down, fr_down):
        assert not coach_answered(turn) and "Traceback" not in turn.text and "ConnectError" not in turn.text

    stack.agent.start()
    en_back = await en.ask(en_retry)
    fr_back = await fr.ask(fr_retry)
    await _close(en, fr)
    assert coach_answered(en_back) and coach_answered(fr_back)
    # the coach still has turn 1's injury, and takes the new schedule
    assert any("days_per_week=3" in t and "knee" in t for t in tool_labels(en_back)), tool_labels(en_back)
    assert any("days_per_week=3" in t and "shoulder" in t for t in tool_labels(fr_back)), tool_labels(fr_back)

    # the message sent while the agent was down never reached the coach: stored once, after the retry
    _, en_humans = await coach_thread(ckpt, en.thread_id or "")
    _, fr_humans = await coach_thread(ckpt, fr.thread_id or "")
    assert en_humans == [EN_1, en_retry] and fr_humans == [FR_1, fr_retry]
