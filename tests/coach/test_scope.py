"""The coach says what it can't do: out-of-scope messages get a short localized reply — no
plan, no tool call, no model call, the advisor in charge unchanged — while follow-ups still go
to `last_active_agent`."""

from __future__ import annotations

from typing import Any

import pytest

from coach.graph import build_coach_graph
from coach.router import explain_route
from coach.runner import CoachRunner
from coach.scope import out_of_scope_reply
from relais.events import InterruptEvent, ToolCallEvent
from relais.testing import ScriptedChatModel
from tests.coach.conftest import SEED_TURNS, collect, text_of

FIRST = {"en": SEED_TURNS[0], "fr": "Je veux prendre du muscle et perdre du gras : propose-moi un programme"}
OUT = {
    "en": ["What is the capital of Peru?", "🙂", "Who won the match last night?"],
    "fr": ["Quelle est la capitale du Pérou ?", "Qui a gagné le match hier soir ?"],
}
HELP = {
    "en": ["How do I cancel my membership?", "I was billed twice this month", "I can't log in to the app"],
    "fr": ["Comment résilier mon abonnement ?", "J'ai été facturé deux fois ce mois-ci"],
}


async def _values(runner: CoachRunner, thread: str) -> dict[str, Any]:
    return (await runner.graph.aget_state({"configurable": {"thread_id": thread}})).values


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("kind", ["out_of_scope", "help_center"])
async def test_out_of_scope_on_a_coach_thread(language: str, kind: str) -> None:
    runner = CoachRunner(build_coach_graph(None))
    thread = f"{kind}-{language}"
    await collect(runner, thread, FIRST[language])
    for message in (OUT if kind == "out_of_scope" else HELP)[language]:
        before = await _values(runner, thread)
        events = await collect(runner, thread, message)
        after = await _values(runner, thread)

        assert text_of(events) == out_of_scope_reply(kind, language)  # type: ignore[arg-type]
        assert not [e for e in events if isinstance(e, ToolCallEvent)]
        assert any(isinstance(e, InterruptEvent) for e in events)  # still paused for the person
        assert after["last_active_agent"] == before["last_active_agent"] == "workout_advisor"
        new = after["messages"][len(before["messages"]):]
        assert [m.type for m in new] == ["human", "ai"] and new[0].content == message
    if kind == "help_center":
        assert ("profile menu" if language == "en" else "menu des profils") in text_of(events)


async def test_out_of_scope_on_a_new_thread_leaves_no_advisor_in_charge() -> None:
    runner = CoachRunner(build_coach_graph(None))
    events = await collect(runner, "fresh", "What is the capital of Peru?")
    assert text_of(events) == out_of_scope_reply("out_of_scope", "en")
    assert (await _values(runner, "fresh")).get("last_active_agent") is None


async def test_no_model_call_for_an_out_of_scope_message() -> None:
    model = ScriptedChatModel(["should never be said"], repeat_last=True)
    runner = CoachRunner(build_coach_graph(model))
    events = await collect(runner, "m", "How do I cancel my membership?")
    assert model.calls == [] and "help center" in text_of(events)


@pytest.mark.parametrize(
    ("text", "last", "agent"),
    [
        ("tell me more", "workout_advisor", "workout_advisor"),
        ("why this one?", "nutrition_advisor", "nutrition_advisor"),
        ("and for dinner?", "workout_advisor", "nutrition_advisor"),
        ("dis-m'en plus", "workout_advisor", "workout_advisor"),
        ("Nothing to add.", "nutrition_advisor", "nutrition_advisor"),
        ("I want to train 3 days a week", None, "workout_advisor"),
        ("I have an injury.", "nutrition_advisor", "workout_advisor"),
    ],
)
def test_follow_ups_and_constraints_stay_with_the_coach(text: str, last: str | None, agent: str) -> None:
    decision = explain_route(text, last)
    assert decision.reason not in ("out_of_scope", "help_center") and decision.agent == agent


def test_a_follow_up_needs_an_advisor_in_charge() -> None:
    assert explain_route("tell me more", None).reason == "out_of_scope"
    assert explain_route("I want to cancel my gym membership", "workout_advisor").reason == "help_center"
