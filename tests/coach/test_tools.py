"""The rule-based tools behind their stable interface: useful plans that honour every constraint."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import HumanMessage

from coach._exercises import CARDIO, PATTERNS
from coach._foods import FOODS
from coach.constraints import ALLERGENS, diet_exclusions
from coach.nutrition_rules import RuleBasedNutritionProvider
from coach.plans import MealPlan, MealRequest, WorkoutPlan, WorkoutRequest
from coach.tools import make_meal_tool, make_workout_tool
from coach.workout_rules import RuleBasedWorkoutProvider, excluded_tags

workouts = RuleBasedWorkoutProvider()
meals = RuleBasedNutritionProvider()
EXERCISE_TAGS = {e.key: e.tags for p in PATTERNS.values() for e in p}


def all_exercises(plan: WorkoutPlan) -> list:
    return [e for s in plan.sessions for e in s.exercises]


def test_mixed_goal_is_the_seed_programme() -> None:
    plan = workouts.workout_plan(WorkoutRequest(goal="mixed"))
    assert plan.strength_days == 4 and "upper/lower" in plan.split.lower()
    assert [s.title for s in plan.sessions] == [
        "Upper body A",
        "Lower body A",
        "Upper body B",
        "Lower body B",
    ]
    assert len(plan.cardio) == 2
    compounds = [
        e.sets_reps for e in all_exercises(plan) if "×" in e.sets_reps and "s" not in e.sets_reps
    ]
    assert compounds and all(sr.split(" × ")[0] in ("3", "4") for sr in compounds)  # 3–4 sets
    assert all(
        any(r in sr for r in ("8–10", "10–12", "12–15")) for sr in compounds
    )  # 8–12-ish reps
    assert sum(1 for day in plan.schedule if "Rest" not in day) == 6
    assert all(len(s.exercises) >= 5 for s in plan.sessions)


@pytest.mark.parametrize("equipment", ["gym", "dumbbells", "bodyweight"])
def test_knee_injury_removes_jumps_lunges_and_impact(equipment: str) -> None:
    plan = workouts.workout_plan(
        WorkoutRequest(goal="fat_loss", equipment=equipment, injuries=["knee"])
    )
    banned = {"impact", "lunge", "deep_knee", "knee_load"}
    assert all(not (EXERCISE_TAGS[e.key] & banned) for e in all_exercises(plan))
    assert all(not (set(c.tags) & banned) for c in plan.cardio)
    text = plan.model_dump_json().lower()
    assert "lunge" not in text and "jump" not in text and "running" not in text
    assert any("Knee-friendly" in a for a in plan.adaptations)
    control = workouts.workout_plan(WorkoutRequest(goal="fat_loss", equipment=equipment))
    assert control.model_dump_json() != plan.model_dump_json()


def test_shoulder_injury_removes_overhead_pressing() -> None:
    plan = workouts.workout_plan(WorkoutRequest(goal="muscle", injuries=["shoulder"]))
    assert all("overhead" not in EXERCISE_TAGS[e.key] for e in all_exercises(plan))
    assert "overhead" not in plan.model_dump_json().lower()


def test_back_injury_avoids_spinal_loading() -> None:
    plan = workouts.workout_plan(WorkoutRequest(goal="mixed", injuries=["back"]))
    assert all("spinal_load" not in EXERCISE_TAGS[e.key] for e in all_exercises(plan))
    assert "Barbell back squat" not in plan.model_dump_json()


@given(
    goal=st.sampled_from(["muscle", "fat_loss", "endurance", "mixed", "general"]),
    days=st.one_of(st.none(), st.integers(1, 7)),
    equipment=st.sampled_from(["gym", "dumbbells", "bodyweight"]),
    injuries=st.sets(
        st.sampled_from(["knee", "shoulder", "back", "wrist", "ankle", "hip", "elbow", "neck"])
    ),
    language=st.sampled_from(["en", "fr"]),
)
@settings(max_examples=150, deadline=None)
def test_any_workout_request_is_safe_and_complete(
    goal, days, equipment, injuries, language
) -> None:
    plan = workouts.workout_plan(
        WorkoutRequest(
            goal=goal,
            days_per_week=days,
            equipment=equipment,
            injuries=sorted(injuries),
            language=language,
        )
    )
    banned = excluded_tags(sorted(injuries))
    assert plan.sessions and all(s.exercises for s in plan.sessions)
    for ex in all_exercises(plan):
        assert not (EXERCISE_TAGS[ex.key] & banned), ex
    cardio_tags = {m.key: m.tags for m in CARDIO}
    assert all(not (cardio_tags[c.activity_key] & banned) for c in plan.cardio)
    training_days = sum(
        1
        for d in plan.schedule
        if d.split(" — ", 1)[1] not in ("Rest or a walk", "Repos ou marche")
    )
    if days is not None:
        assert training_days <= days
    assert len(plan.schedule) == 7


def test_seed_day_of_meals_is_about_2500_kcal_with_meals_every_3_to_4_hours() -> None:
    plan = meals.meal_plan(MealRequest(goal="mixed"))
    assert plan.target_kcal == 2500
    assert abs(plan.total_kcal - plan.target_kcal) <= 0.05 * plan.target_kcal
    assert plan.total_protein_g >= plan.target_protein_g
    hours = [int(m.time[:2]) + int(m.time[3:]) / 60 for m in plan.meals]
    assert len(plan.meals) == 5 and all(2.5 <= b - a <= 4 for a, b in itertools.pairwise(hours))


def test_vegetarian_day_uses_the_seed_foods() -> None:
    plan = meals.meal_plan(MealRequest(goal="mixed", diet="vegetarian"))
    keys = {i.key for m in plan.meals for i in m.items}
    assert {"tofu", "paneer", "lentils", "edamame", "hummus"} <= keys
    assert not any({"meat", "fish", "shellfish"} & set(i.tags) for m in plan.meals for i in m.items)


def test_vegan_day_has_no_animal_products() -> None:
    plan = meals.meal_plan(MealRequest(goal="muscle", diet="vegan", language="fr"))
    tags = {t for m in plan.meals for i in m.items for t in i.tags}
    assert not tags & {"meat", "fish", "shellfish", "dairy", "lactose", "eggs"}
    assert plan.meals[0].slot == "Petit-déjeuner"


@given(
    goal=st.sampled_from(["muscle", "fat_loss", "endurance", "mixed", "general"]),
    diet=st.sampled_from(["omnivore", "pescatarian", "vegetarian", "vegan"]),
    allergies=st.sets(st.sampled_from([a for a in ALLERGENS if a != "lactose"])),
    intolerances=st.sets(st.sampled_from(["lactose", "gluten", "soy"])),
    weight=st.one_of(st.none(), st.floats(45, 140)),
)
@settings(max_examples=200, deadline=None)
def test_no_restriction_can_be_broken(goal, diet, allergies, intolerances, weight) -> None:
    request = MealRequest(
        goal=goal,
        diet=diet,
        allergies=sorted(allergies),
        intolerances=sorted(intolerances),
        weight_kg=weight,
    )
    plan = meals.meal_plan(request)
    banned = (
        diet_exclusions(diet)
        | allergies
        | intolerances
        | ({"lactose"} if "dairy" in allergies else set())
    )
    assert len(plan.meals) == 5  # a full day whatever the restrictions
    for meal in plan.meals:
        for item in meal.items:
            assert not (FOODS[item.key].tags & banned), (item, banned)
    assert abs(plan.total_kcal - plan.target_kcal) <= 0.12 * plan.target_kcal
    assert plan.total_protein_g >= 0.8 * plan.target_protein_g


def test_targets_follow_weight_and_goal() -> None:
    light = meals.meal_plan(MealRequest(goal="fat_loss", weight_kg=60))
    heavy = meals.meal_plan(MealRequest(goal="muscle", weight_kg=95))
    assert light.target_kcal < 2000 < heavy.target_kcal
    assert heavy.target_protein_g > light.target_protein_g


def test_tools_read_the_whole_conversation_and_the_stricter_side_wins() -> None:
    meal_tool = make_meal_tool()
    history = [
        HumanMessage("Build muscle, lose fat"),
        HumanMessage("I'm vegan and allergic to soy"),
    ]
    # the model "forgot" the diet and the allergy; the tool still honours them
    out = MealPlan.model_validate_json(meal_tool.invoke({"messages": history, "goal": "mixed"}))
    assert out.diet == "vegan" and "soy" in out.allergies and out.goal == "mixed"
    assert not any(
        {"soy", "dairy", "eggs", "meat"} & set(i.tags) for m in out.meals for i in m.items
    )
    # a model asking for *less* strict than the conversation cannot loosen it
    out = MealPlan.model_validate_json(meal_tool.invoke({"messages": history, "diet": "omnivore"}))
    assert out.diet == "vegan"

    workout_tool = make_workout_tool()
    knees = [HumanMessage("Build muscle, lose fat. I have a bad knee.")]
    plan = WorkoutPlan.model_validate_json(
        workout_tool.invoke({"messages": knees, "injuries": ["left shoulder"]})
    )
    assert plan.injuries == ["knee", "shoulder"] and plan.goal == "mixed"


def test_tool_schema_hides_injected_state_from_the_model() -> None:
    schema = make_workout_tool().tool_call_schema.model_json_schema()
    assert "messages" not in schema["properties"]
    assert {"goal", "days_per_week", "equipment", "injuries"} <= set(schema["properties"])


def test_a_provider_replaces_the_rules_without_touching_the_tool() -> None:
    class FixedProvider:
        def __init__(self) -> None:
            self.requests: list[WorkoutRequest] = []

        def workout_plan(self, request: WorkoutRequest) -> WorkoutPlan:
            self.requests.append(request)
            plan = RuleBasedWorkoutProvider().workout_plan(request)
            return plan.model_copy(update={"split": "API split"})

    provider = FixedProvider()
    tool = make_workout_tool(provider)
    result = json.loads(
        tool.invoke({"messages": [HumanMessage("3 days a week, dumbbells")], "goal": "muscle"})
    )
    assert result["split"] == "API split"
    assert provider.requests[0].days_per_week == 3 and provider.requests[0].equipment == "dumbbells"


def test_default_tools_can_be_called_directly() -> None:
    from coach.tools import meal_plan, workout_plan

    plan = WorkoutPlan.model_validate_json(
        workout_plan.invoke({"goal": "mixed", "injuries": ["knee"]})
    )
    assert plan.injuries == ["knee"] and plan.strength_days == 4
    day = MealPlan.model_validate_json(meal_plan.invoke({"diet": "vegan", "allergies": ["peanut"]}))
    assert day.diet == "vegan" and day.allergies == ["peanuts"]
    assert not any("peanuts" in i.tags for m in day.meals for i in m.items)
