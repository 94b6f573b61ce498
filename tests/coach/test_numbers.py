"""The coach honours the numbers it is given, EN and FR — days per week (sessions in all,
strength and cardio together unless split), session length, meals per day, calorie and weight
targets — and an adjustment says what changed first, with the plan only when it changed."""

from __future__ import annotations

import pytest

from coach.constraints import extract_constraints
from coach.graph import build_coach_graph
from coach.nutrition_rules import RuleBasedNutritionProvider
from coach.runner import CoachRunner
from coach.tools import meal_request, workout_request
from coach.workout_rules import RuleBasedWorkoutProvider, _volume
from tests.coach.conftest import collect, text_of

REST = ("Rest or a walk", "Repos ou marche")


def plan_for(text: str):  # type: ignore[no-untyped-def]
    found = extract_constraints([text])
    return RuleBasedWorkoutProvider().workout_plan(workout_request({}, found))


def training_days(plan) -> int:  # type: ignore[no-untyped-def]
    return sum(1 for line in plan.schedule if not line.endswith(REST))


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("Build me a 3-day workout plan", 3),
        ("programme sur 4 jours", 4),
        ("I want to lose fat, I can train 5 days a week", 5),
        ("Je veux prendre du muscle, deux séances par semaine", 2),
        ("a 6 day split to build muscle and lose fat", 6),
        ("Endurance for a marathon, 7 days a week", 7),
        ("Je peux m'entraîner trois jours par semaine pour perdre du poids", 3),
    ],
)
def test_days_per_week_are_sessions_in_all(text: str, days: int) -> None:
    plan = plan_for(text)
    assert plan.sessions_per_week == days == training_days(plan)


@pytest.mark.parametrize("goal", ["mixed", "muscle", "fat_loss", "endurance", "general"])
def test_every_day_count_is_honoured(goal: str) -> None:
    for days in range(1, 8):
        strength, cardio, _ = _volume(goal, days)
        assert strength + cardio == days and strength >= 1


@pytest.mark.parametrize(
    ("text", "strength", "cardio"),
    [("3 strength days and 2 cardio sessions a week", 3, 2), ("4 jours par semaine dont 1 séance de cardio", 3, 1)],
)
def test_a_stated_split_wins(text: str, strength: int, cardio: int) -> None:
    plan = plan_for(text)
    assert (plan.strength_days, plan.sessions_per_week - plan.strength_days) == (strength, cardio)
    assert training_days(plan) == strength + cardio


@pytest.mark.parametrize(("text", "minutes"), [("3 days a week, 40-minute sessions", 40),
                                               ("4 jours par semaine, séances d'une heure", 60)])
def test_session_length(text: str, minutes: int) -> None:
    plan = plan_for(text)
    assert plan.session_minutes == minutes
    for session in plan.sessions:
        budget = minutes - 5 - (20 if session.finisher else 0)
        assert len(session.exercises) <= max(2, budget // 8)
    long = plan_for(text.replace(str(minutes), "90").replace("d'une heure", "de 90 minutes"))
    assert sum(len(s.exercises) for s in long.sessions) > sum(len(s.exercises) for s in plan.sessions)


@pytest.mark.parametrize(("text", "meals"), [("3 meals a day please", 3), ("quatre repas par jour", 4),
                                             ("I only eat 2 meals a day", 2)])
def test_meals_per_day(text: str, meals: int) -> None:
    found = extract_constraints([text])
    plan = RuleBasedNutritionProvider().meal_plan(meal_request({}, found))
    assert len(plan.meals) == meals
    assert abs(plan.total_kcal - plan.target_kcal) <= 0.2 * plan.target_kcal  # the day still adds up


@pytest.mark.parametrize("text", ["Keep me at 1800 kcal a day", "Je vise 1 800 calories par jour"])
def test_calorie_target(text: str) -> None:
    plan = RuleBasedNutritionProvider().meal_plan(meal_request({}, extract_constraints([text])))
    assert plan.target_kcal == 1800


@pytest.mark.parametrize(("text", "language"), [("I weigh 80 kg and want to reach 72 kg", "en"),
                                                ("Je pèse 80 kg et je veux descendre à 72 kg", "fr")])
def test_weight_target(text: str, language: str) -> None:
    found = extract_constraints([text])
    assert (found.weight_kg, found.target_weight_kg, found.goal, found.language) == (80, 72, "fat_loss", language)
    plan = RuleBasedNutritionProvider().meal_plan(meal_request({}, found))
    assert any("72" in note and "16" in note for note in plan.notes)


@pytest.mark.parametrize("language", ["en", "fr"])
async def test_adjustments_say_what_changed_first(language: str) -> None:
    turns = {
        "en": ["Build me a 3-day workout plan", "I have a knee injury.", "I have a knee injury.", "Nothing to add."],
        "fr": ["Fais-moi un programme sur 3 jours", "J'ai une blessure au genou.", "J'ai une blessure au genou.",
               "Rien à ajouter."],
    }[language]
    runner = CoachRunner(build_coach_graph(None))
    first, knee, again, nothing = [text_of(await collect(runner, language, t)) for t in turns]
    heading = "## Your training plan" if language == "en" else "## Votre programme"
    assert first.startswith(heading)
    assert knee.startswith("**What changed:** injury: knee" if language == "en" else "**Ce qui change :** blessure : genou")
    assert heading in knee  # the plan changed: it follows
    assert again.startswith("**Nothing changed**" if language == "en" else "**Rien ne change**")
    assert heading not in again and heading not in nothing  # unchanged: not repeated
