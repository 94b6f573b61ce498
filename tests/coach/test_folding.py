"""An answer to a quick choice or a follow-up says what changed first; a long updated plan after
it travels as one folded section (`TextChunk.folded`), offline and with a model, EN and FR. The
first plan, short replies and "Nothing to add" are never folded, and no text is ever lost."""

from __future__ import annotations

import json

import pytest

from coach.folding import (
    FOLD_MIN_CHARS,
    FOLD_MIN_LINES,
    fold,
    is_long,
    section_title,
    split_summary,
)
from coach.graph import build_coach_graph
from coach.runner import CoachRunner
from coach.service import sse_event
from relais.events import AgentEvent, TextChunk
from relais.testing import ScriptedChatModel, tool_call
from tests.coach.conftest import collect, text_of

PLAN = "## Your plan\n" + "".join(f"- Day {i}: squat 3x8, row 3x10\n" for i in range(1, 15))


def folded(events: list[AgentEvent]) -> list[TextChunk]:
    return [e for e in events if isinstance(e, TextChunk) and e.folded]


def shown(events: list[AgentEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextChunk) and not e.folded)


# --- the split -------------------------------------------------------------------------------
def test_long_means_many_lines_or_many_characters() -> None:
    assert not is_long("\n".join(["- a line"] * FOLD_MIN_LINES))
    assert is_long("\n".join(["- a line"] * (FOLD_MIN_LINES + 1)))
    assert not is_long("x" * FOLD_MIN_CHARS)
    assert is_long("x" * (FOLD_MIN_CHARS + 1))  # one long paragraph wraps to many lines
    assert not is_long("\n\n\n".join(["- a line"] * FOLD_MIN_LINES))  # blank lines do not count


def test_the_summary_is_the_first_paragraph() -> None:
    assert split_summary("**What changed:** knee.\n\n## Plan\n- a\n") == ("**What changed:** knee.\n\n", "## Plan\n- a\n")
    assert split_summary("\n\nLead.\n \r\nRest") == ("\n\nLead.\n \r\n", "Rest")
    assert split_summary("One paragraph only.\n") == ("One paragraph only.\n", "")


def test_a_long_plan_after_the_summary_is_folded_from_its_heading() -> None:
    text = "**What changed:** knee.\n\nWhich area? Until then, low impact.\n\n" + PLAN
    head, section = fold(text)
    assert section == PLAN and head + section == text
    assert head.startswith("**What changed:**") and "Which area?" in head  # a question stays in view


def test_without_a_heading_the_whole_rest_is_the_section() -> None:
    rest = "".join(f"Line {i} of the plan.\n" for i in range(20))
    assert fold("Summary.\n\n" + rest) == ("Summary.\n\n", rest)


@pytest.mark.parametrize(
    "text",
    ["**What changed:** knee.\n\n## Plan\n- squat 3x8\n- row 3x10\n", PLAN, "No summary line\n" + PLAN],
)
def test_short_or_unsplittable_replies_are_not_folded(text: str) -> None:
    assert fold(text) == (text, "")


def test_titles_follow_the_advisor_and_the_language() -> None:
    assert section_title("workout_advisor", "en") == "Full plan (updated)"
    assert section_title("nutrition_advisor", "fr") == "Plan de repas complet (mis à jour)"
    assert section_title("workout_advisor", "de") == "Full plan (updated)"


# --- the offline coach -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("language", "turns", "title", "heading"),
    [
        ("en", ["Build me a 3-day workout plan", "Injury", "I have a knee injury.", "Nothing to add"],
         "Full plan (updated)", "## Your training plan"),
        ("fr", ["Fais-moi un programme sur 3 jours", "Blessure", "J'ai une blessure au genou.", "Rien à ajouter"],
         "Programme complet (mis à jour)", "## Votre programme"),
    ],
)
async def test_a_quick_choice_answer_shows_what_changed_and_folds_the_plan(
    language: str, turns: list[str], title: str, heading: str
) -> None:
    runner = CoachRunner(build_coach_graph(None))
    first, injury, knee, nothing = [await collect(runner, f"fold-{language}", t) for t in turns]
    assert not folded(first) and text_of(first).startswith(heading)  # the first plan is shown whole
    # the unnamed injury gets one question (which area?) and no plan
    assert not folded(injury) and heading not in text_of(injury) and text_of(injury).count("?") == 1
    changed = "**What changed:** injury: knee" if language == "en" else "**Ce qui change :** blessure : genou"
    sections = folded(knee)
    assert len(sections) == 1 and sections[0].folded == title
    assert sections[0].text.startswith(heading) and is_long(sections[0].text)
    assert shown(knee).startswith(changed) and heading not in shown(knee)
    first_text = next(i for i, e in enumerate(knee) if isinstance(e, TextChunk))
    assert knee.index(sections[0]) > first_text  # the summary comes first
    assert not folded(nothing) and heading not in text_of(nothing)
    # nothing is lost: the stored reply is the whole text
    answers = [m["content"] for m in await runner.history(f"fold-{language}") if m["role"] == "assistant"]
    assert answers[1:3] == [text_of(injury), text_of(knee)]


async def test_a_meal_plan_answer_is_folded_too() -> None:
    runner = CoachRunner(build_coach_graph(None))
    await collect(runner, "meals", "What should I eat to lose weight?")
    events = await collect(runner, "meals", "Vegetarian")
    assert [s.folded for s in folded(events)] == ["Full meal plan (updated)"]


# --- with a model: the summary streams, the plan comes folded --------------------------------
@pytest.mark.parametrize("streaming", [True, False])
async def test_a_model_reply_after_an_adjustment_is_split_while_streaming(streaming: bool) -> None:
    summary = "**What changed:** knee injury — no jumps, no lunges.\n\n"
    model = ScriptedChatModel(
        [
            tool_call("workout_plan", {"goal": "mixed"}, "c1"),
            "Here is your plan.\n\n" + PLAN,
            tool_call("workout_plan", {"goal": "mixed", "injuries": ["knee"]}, "c2"),
            summary + PLAN,
            tool_call("workout_plan", {"goal": "mixed", "injuries": ["knee"]}, "c3"),
            "**What changed:** nothing.\n\n## Plan\n- squat 3x8\n",
        ],
        disable_streaming=not streaming,
    )
    runner = CoachRunner(build_coach_graph(model))
    first = await collect(runner, "model", "Build me a workout plan")
    assert not folded(first)  # no earlier plan: nothing to fold
    events = await collect(runner, "model", "I have a knee injury")
    sections = folded(events)
    assert len(sections) == 1 and sections[0].text == PLAN and sections[0].folded == "Full plan (updated)"
    assert shown(events) == summary
    assert sum(1 for e in events if isinstance(e, TextChunk) and not e.folded) > 1  # the summary streamed
    short = await collect(runner, "model", "Make it shorter")
    assert not folded(short) and text_of(short).endswith("- squat 3x8\n")


# --- on the wire -----------------------------------------------------------------------------
def test_the_sse_message_event_carries_the_fold_title_only_when_folded() -> None:
    plain = json.loads(sse_event(TextChunk("Hello"))["data"])
    section = sse_event(TextChunk(PLAN, folded="Full plan (updated)"))
    assert plain == {"content": "Hello"}
    assert section["event"] == "message"
    assert json.loads(section["data"]) == {"content": PLAN, "folded": {"title": "Full plan (updated)"}}
