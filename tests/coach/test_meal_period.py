"""Meals asked for a period (issue 29: FR "repas pour la semaine" gave one day): the request names
the period, the plan has that many days, the days vary and each keeps every restriction."""

from __future__ import annotations

import pytest

from coach.constraints import diet_exclusions, extract_constraints
from coach.graph import build_coach_graph
from coach.nutrition_rules import RuleBasedNutritionProvider
from coach.plans import MealRequest
from coach.runner import CoachRunner
from tests.coach.conftest import collect, text_of


@pytest.mark.parametrize(("text", "days"), [
    ("Meals for the week", 7), ("Des repas pour la semaine", 7), ("Menus de la semaine, je suis végan", 7),
    ("a weekly meal plan please", 7), ("3 days of meals", 3), ("mes repas sur 5 jours", 5),
    ("Give me a meal plan", None), ("I train 3 days a week", None), ("Je mange 4 repas par jour", None),
    ("Propose-moi un programme de musculation sur 3 jours", None),
])
def test_the_period_is_read_from_the_request(text: str, days: int | None) -> None:
    assert extract_constraints([text]).meal_days == days


def test_a_week_is_seven_varied_days_that_keep_the_diet() -> None:
    plan = RuleBasedNutritionProvider().meal_plan(MealRequest(diet="vegan", allergies=["peanuts"], days=7))
    days = [plan.meals] + [day.meals for day in plan.next_days]
    assert len(days) == 7
    assert len({tuple(m.name for m in day) for day in days}) >= 5, "the days of a week vary"
    banned = diet_exclusions("vegan") | {"peanuts"}
    for day in days:
        assert all(not set(item.tags) & banned for meal in day for item in meal.items)
    one_day = RuleBasedNutritionProvider().meal_plan(MealRequest(diet="vegan", allergies=["peanuts"]))
    assert one_day.meals == plan.meals and one_day.next_days == []  # a day is still a day


@pytest.mark.parametrize(("text", "heading", "day_7"), [
    ("Des repas pour la semaine", "## Votre semaine de repas", "**Jour 7**"),
    ("Meals for the week", "## Your week of meals", "**Day 7**"),
])
async def test_the_coach_answers_a_week_with_a_week(text: str, heading: str, day_7: str) -> None:
    events = await collect(CoachRunner(build_coach_graph(None)), "week", text)
    reply = text_of(events)
    assert heading in reply and day_7 in reply
