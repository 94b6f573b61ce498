"""A choice that needs a detail gets one follow-up question, a plan comes only when something
changed, an approval emoji is understood, and the prompt after a reply fits what the reply did.

Phrasings are held out from the code's vocabulary lists where possible (typed sentences, not the
quick-choice labels), EN and FR; the offline engine and a scripted model both go through it."""

from __future__ import annotations

from typing import Any

import pytest

from coach.graph import build_coach_graph
from coach.runner import CoachRunner
from relais.events import AgentEvent, InterruptEvent, ToolCallEvent
from relais.testing import ScriptedChatModel
from tests.coach.conftest import collect, text_of


def interrupt(events: list[AgentEvent]) -> InterruptEvent:
    return next(e for e in events if isinstance(e, InterruptEvent))


def tools(events: list[AgentEvent]) -> int:
    return sum(1 for e in events if isinstance(e, ToolCallEvent))


async def turns(thread: str, *messages: str, runner: CoachRunner | None = None) -> list[list[AgentEvent]]:
    runner = runner or CoachRunner(build_coach_graph(None))
    return [await collect(runner, thread, message) for message in messages]


@pytest.mark.parametrize(
    ("first", "announce", "language"),
    [
        ("Build me a 3-day workout plan", "Injury", "en"),
        ("Build me a 3-day workout plan", "I'm injured at the moment", "en"),
        ("Propose-moi un programme sur 3 jours", "Blessure", "fr"),
        ("Propose-moi un programme sur 3 jours", "je me suis blessé hier", "fr"),
    ],
)
async def test_an_injury_without_its_area_gets_one_question_and_no_plan(first: str, announce: str,
                                                                        language: str) -> None:
    plan, asked = await turns(f"injury-{announce}", first, announce)
    assert tools(plan) == 1 and tools(asked) == 0  # no plan was built for the unnamed injury
    text = text_of(asked)
    assert text.count("?") == 1 and "##" not in text and "Nothing changed" not in text
    assert ("Which area" if language == "en" else "Quelle zone") in text
    prompt = interrupt(asked)
    assert ("Knee" if language == "en" else "Genou") in prompt.choices  # the likely answers
    assert prompt.prompt != interrupt(plan).prompt


@pytest.mark.parametrize(
    ("first", "announce", "answer", "language"),
    [
        ("Give me a meal plan to lose fat", "Allergy", "Shellfish", "en"),
        ("Give me a meal plan to lose fat", "I've got a food intolerance", "Eggs", "en"),
        ("Donne-moi un plan de repas pour perdre du gras", "Allergie", "Crustacés", "fr"),
        ("Donne-moi un plan de repas pour perdre du gras", "j'ai une allergie", "les oeufs", "fr"),
    ],
)
async def test_an_allergy_without_its_food_is_asked_then_followed(first: str, announce: str, answer: str,
                                                                  language: str) -> None:
    _plan, asked, named = await turns(f"allergy-{announce}", first, announce, answer)
    assert tools(asked) == 0 and "##" not in text_of(asked)  # no meal plan nobody asked for
    assert ("Which food" if language == "en" else "quel aliment") in text_of(asked)
    assert ("Peanuts" if language == "en" else "Arachides") in interrupt(asked).choices
    # the bare answer is read as the food (in scope, not "outside what I can help with")
    reply = text_of(named)
    assert tools(named) == 1 and "outside what I can help" not in reply
    noted = ("**What changed:**", "**Noted:**") if language == "en" else ("**Ce qui change :**", "**C'est noté :**")
    food = {"Shellfish": "shellfish", "Eggs": "eggs", "Crustacés": "crustacés", "les oeufs": "œufs"}[answer]
    assert reply.startswith(noted) and food in reply.split("\n")[0]  # the food is named first


async def test_the_question_is_asked_once_then_the_plan_stays_safe() -> None:
    _plan, asked, other = await turns("once", "Build me a 3-day workout plan", "Injury", "I'd rather not say")
    assert "Which area" in text_of(asked)
    assert "Which area" not in text_of(other)  # not asked twice in a row


@pytest.mark.parametrize("approval", ["👍", "👍🏽", "👌", "✅"])
async def test_an_approval_emoji_means_satisfied(approval: str) -> None:
    plan, ack = await turns(f"ok-{approval}", "Build me a 3-day workout plan", approval)
    assert tools(ack) == 0
    assert "outside what I can help with" not in text_of(ack)
    assert "Great" in text_of(ack)
    assert interrupt(ack).prompt != interrupt(plan).prompt
    assert "Meal plan" in interrupt(ack).choices  # what the coach can do next


async def test_the_prompt_follows_what_the_reply_did() -> None:
    first, veg, same = await turns("prompts", "What should I eat to lose weight?", "Vegetarian", "Vegetarian")
    prompts = [interrupt(events).prompt for events in (first, veg, same)]
    assert prompts[0].startswith("Does this fit you?")
    assert len(set(prompts)) == 3  # a first plan, an updated plan, nothing new: three different questions
    assert "Vegetarian" not in interrupt(veg).choices  # already said


async def test_a_model_is_not_called_for_the_follow_up_question() -> None:
    model = ScriptedChatModel([])  # any call would fail: the question is the graph's own
    runner = CoachRunner(build_coach_graph(model))
    [asked] = await turns("model", "I have a food allergy.", runner=runner)
    assert "Which food" in text_of(asked) and not model_calls(model)


def model_calls(model: Any) -> int:
    return int(getattr(model, "calls", 0) or len(getattr(model, "seen", []) or []))
