"""Pending prompts over the real Chainlit app (socket.io driver) and the real coach service.

The prompt comes back from the graph's checkpoint when a thread is opened again (buttons under the
stored prompt, nothing new written to the thread), and one click is one resume: a second click,
a click on an answered prompt's button and two simultaneous clicks resume the graph once.
Checked against the checkpoint itself (the person's messages it holds).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.chainlit_driver import ChatSession, login
from tests.coach.test_service import saved_state
from tests.resilience.harness import get_thread

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

WORKOUT = "Build muscle, lose fat — suggest a workout plan"


@pytest.fixture()
def stack(demo_app: dict[str, Any]) -> dict[str, Any]:
    """The shared app (tests/chatbot/conftest.py): each test opens threads of its own."""
    return demo_app


def humans(stack: dict[str, Any], thread_id: str) -> list[str]:
    return saved_state(Path(stack["data_dir"]) / "checkpoints.db", thread_id)["humans"]


def choice(actions: list[dict[str, Any]], label: str) -> dict[str, Any]:
    return next(a for a in reversed(actions) if a["label"] == label)


async def reopened(base: str, token: str, thread_id: str, profile: str) -> ChatSession:
    """Open the thread again (reload / sidebar / another instance) and wait for the re-rendered prompt:
    its buttons come one socket event each, so it is whole once no new one came for half a second
    (reading it at the first button raced the others on a loaded machine)."""
    chat = await ChatSession(base, token, chat_profile=profile, thread_id=thread_id).connect()
    count, quiet = 0, 0
    for _ in range(100):
        await asyncio.sleep(0.1)
        quiet = quiet + 1 if count and len(chat._turn.actions) == count else 0
        count = len(chat._turn.actions)
        if quiet >= 5:
            break
    return chat


async def paused_thread(base: str, token: str, profile: str = "Assistant") -> tuple[str, Any]:
    """A new thread left waiting at the coach's prompt (its tab closed): (thread id, first turn)."""
    chat = await ChatSession(base, token, chat_profile=profile).connect()
    try:
        first = await chat.ask(WORKOUT)
        assert chat.thread_id, "the question opened a thread"
        return chat.thread_id, first
    finally:
        await chat.close()


async def click_twice_at_once(chat: ChatSession, action: dict[str, Any]) -> list[int]:
    async with httpx.AsyncClient(cookies={"access_token": chat.token}, timeout=60) as client:
        replies = await asyncio.gather(*[
            client.post(chat.base_url + "/project/action", json={"sessionId": chat.session_id, "action": action})
            for _ in range(2)
        ])
    await asyncio.sleep(0.5)
    return [r.status_code for r in replies]


@pytest.mark.parametrize("profile", ["Coach", "Assistant"])
async def test_prompt_back_on_resume_and_one_click_one_resume(stack: dict[str, Any], profile: str) -> None:
    base = stack["app"].url
    token = login(base, "alice", "alice-pass-1")
    chat = await ChatSession(base, token, chat_profile=profile).connect()
    try:
        first = await chat.ask(WORKOUT)
        assert first.actions, "the coach's prompt has buttons"
        first_id = first.actions[0]["payload"]["interrupt_id"]
        assert first_id and all(a["payload"]["interrupt_id"] == first_id for a in first.actions)
        thread_id = chat.thread_id
        assert humans(stack, thread_id) == [WORKOUT]

        answered = await chat.click(choice(first.actions, "Vegetarian"))
        assert answered.actions and answered.actions[0]["payload"]["interrupt_id"] != first_id
        assert humans(stack, thread_id) == [WORKOUT, "I'm vegetarian."]
        # the answered prompt's button again: refused with a note, the graph is not resumed
        stale = await chat.click(choice(first.actions, "Vegan"))
        assert "already answered" in stale.text and not stale.actions
        assert humans(stack, thread_id) == [WORKOUT, "I'm vegetarian."]
    finally:
        await chat.close()

    stored = len(get_thread(base, token, thread_id).json()["steps"])
    for _ in range(2):  # reload twice: the same prompt, re-attached, nothing new stored
        again = await reopened(base, token, thread_id, profile)
        try:
            pending_id = answered.actions[0]["payload"]["interrupt_id"]
            assert again._turn.actions, "buttons are back after the resume"
            assert {a["payload"]["interrupt_id"] for a in again._turn.actions} == {pending_id}
            assert {a["forId"] for a in again._turn.actions} == {answered.actions[0]["forId"]}  # under the stored prompt
            # the same choices as the pending prompt (after "vegetarian" the coach no longer offers it)
            assert [a["label"] for a in again._turn.actions] == [a["label"] for a in answered.actions]
        finally:
            await again.close()
    assert len(get_thread(base, token, thread_id).json()["steps"]) == stored

    # two clicks at the same moment on the restored prompt: one resume
    chat = await reopened(base, token, thread_id, profile)
    try:
        statuses = await click_twice_at_once(chat, choice(chat._turn.actions, "Nothing to add"))
        assert statuses == [200, 200]
        assert humans(stack, thread_id) == [WORKOUT, "I'm vegetarian.", "Nothing to add."]
        assert "already answered" in chat._turn.text
        # a typed reply still answers whatever is pending
        typed = await chat.ask("What should I eat to support this workout plan?")
        assert "kcal" in typed.text.lower()
        assert humans(stack, thread_id)[-1] == "What should I eat to support this workout plan?"
    finally:
        await chat.close()


async def test_a_click_in_a_stale_tab_is_refused(stack: dict[str, Any]) -> None:
    """Two tabs on one thread: the prompt answered in one is refused in the other (agent's 409 path)."""
    base = stack["app"].url
    token = login(base, "alice", "alice-pass-1")
    thread_id, _ = await paused_thread(base, token)
    tab_a = await reopened(base, token, thread_id, "Assistant")
    tab_b = await reopened(base, token, thread_id, "Assistant")
    try:
        vegan = choice(tab_b._turn.actions, "Vegan")  # tab B's button, before tab A answers
        await tab_a.click(choice(tab_a._turn.actions, "Injury"))
        assert humans(stack, thread_id) == [WORKOUT, "I have an injury."]
        for _ in range(300):  # tab B is shown the new state and told why (issue 29), within 30 s
            if "went on in another tab" in tab_b._turn.text:
                break
            await asyncio.sleep(0.1)
        assert "went on in another tab" in tab_b._turn.text, "tab B was not told"
        assert "Vegan" not in [a["label"] for a in tab_b._turn.actions], "tab B's answered buttons are gone"
        late = await tab_b.click(vegan)  # a click that raced the update: still refused
        assert "already answered" in late.text
        assert not [m for m in late.messages.values() if m.get("type") == "user_message"]  # no echoed click
        assert humans(stack, thread_id) == [WORKOUT, "I have an injury."]
    finally:
        await tab_a.close()
        await tab_b.close()


async def test_a_second_resume_of_the_same_session_replaces_the_buttons(stack: dict[str, Any]) -> None:
    """A tab that reconnects its session (the browser does when it switches to the thread's chat
    profile) is resumed again, and Chainlit then replaces the user session with the thread's stored
    metadata: the first resume's buttons must still be removed, never left as a second set."""
    base = stack["app"].url
    token = login(base, "alice", "alice-pass-1")
    thread_id, _ = await paused_thread(base, token, "Coach")
    first = await reopened(base, token, thread_id, "Coach")
    shown = [a["id"] for a in first._turn.actions]
    assert shown, "buttons are back after the resume"
    await first.close()

    again = ChatSession(base, token, chat_profile="Coach", thread_id=thread_id)
    again.session_id = first.session_id  # the same session, reconnected
    removed: list[str] = []

    async def on_remove(data: dict[str, Any]) -> None:
        removed.append(data["id"])

    again.sio.on("remove_action", on_remove)
    await again.connect()
    try:
        for _ in range(100):  # the buttons arrive one message each: wait for the whole set, not the first
            if len(again._turn.actions) >= len(shown):
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.5)  # …and a moment more, so a second set sent after them is counted too
        assert again._turn.actions, "the buttons are sent again"
        assert set(shown) <= set(removed), "the first resume's buttons are removed"
        assert [a["id"] for a in again._turn.actions] == shown, "the same buttons (ids), replaced not added"
        assert {a["forId"] for a in again._turn.actions} == {first._turn.actions[0]["forId"]}
        assert humans(stack, thread_id) == [WORKOUT]
    finally:
        await again.close()


async def test_a_reply_typed_right_after_reopening_keeps_its_own_prompt(stack: dict[str, Any]) -> None:
    """A person who types as soon as the thread is open: the answer's new prompt stays live (the
    restore scheduled by the resume never replaces it), and its button resumes the graph."""
    base = stack["app"].url
    token = login(base, "alice", "alice-pass-1")
    thread_id, first = await paused_thread(base, token)
    again = await ChatSession(base, token, thread_id=thread_id).connect()  # no wait for the restored buttons
    try:
        follow_up = await again.ask("What should I eat to support this workout plan?")
        fresh = [a for a in follow_up.actions if a["payload"]["interrupt_id"] != first.actions[0]["payload"]["interrupt_id"]]
        assert fresh, "the answer came with its own prompt"
        answered = await again.click(choice(fresh, "Vegetarian"))
        assert "already answered" not in answered.text
        assert humans(stack, thread_id)[-1] == "I'm vegetarian."
    finally:
        await again.close()


async def test_a_thread_shown_again_takes_its_answered_prompts_buttons_off_the_page(stack: dict[str, Any]) -> None:
    """The page keeps buttons across a resume, and a removal sent while it switched sockets is lost
    (issue 24, seen in Chromium): the restore removes every answered prompt's buttons by id, then
    shows the pending prompt's, once."""
    base = stack["app"].url
    token = login(base, "alice", "alice-pass-1")
    thread_id, first = await paused_thread(base, token, "Coach")
    answered = {action["id"] for action in first.actions}
    chat = await reopened(base, token, thread_id, "Coach")
    try:
        second = await chat.click(choice(chat._turn.actions, "Vegetarian"))
        pending = {action["id"] for action in second.actions}
    finally:
        await chat.close()
    assert pending and not pending & answered, "the click's turn shows a new prompt's buttons"
    again = await reopened(base, token, thread_id, "Coach")
    await again.close()
    assert answered <= set(again.removed), "the answered prompt's buttons are taken off the page"
    assert {action["id"] for action in again._turn.actions} == pending  # the pending prompt's, once
    assert len(again._turn.actions) == len(pending)
