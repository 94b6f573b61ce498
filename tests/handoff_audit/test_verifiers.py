"""Result verifiers over reply text (EN/FR), with negation and plant-based substitutes."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from handoff_audit.receipt import content_problems
from handoff_audit.verifiers import (
    applicable_verifiers,
    delivers_meal_plan,
    delivers_workout_plan,
    no_allergen,
    no_animal_products_when_vegan,
    no_lunges_with_knee_injury,
    no_meat_when_vegetarian,
    no_overhead_with_shoulder_injury,
    normalize_constraints,
    verify,
)
from pydantic import BaseModel

from tests.handoff_audit.factories import NOW

VEG = {"diet": "vegetarian"}


@pytest.mark.parametrize(
    "reply, ok",
    [
        ("Breakfast: tofu scramble. Lunch: lentil curry with rice. Snack: edamame, hummus.", True),
        ("Lunch: grilled chicken breast with quinoa.", False),
        ("Dinner: salmon with sweet potato.", False),
        ("Use tofu instead of chicken, and paneer for dinner.", True),
        ("Vegetarian plan: no meat or fish. Eggs and dairy are fine.", True),
        ("Plant-based sausage, veggie burger, meat-free lasagna.", True),
        ("No meat today, but add turkey slices to your sandwich.", False),
        ("Déjeuner : poulet rôti et riz.", False),
        ("Sans viande ni poisson : lentilles, pois chiches, œufs.", True),
        ("Dîner : steak haché de bœuf.", False),
        ("Remplacez le jambon par du tofu fumé.", True),
        ("Avoid:\n- bacon\n- ham\nEat:\n- beans", True),
        ("Avoid bacon.\n- ham sandwich for lunch", False),
    ],
)
def test_no_meat_when_vegetarian(reply: str, ok: bool) -> None:
    assert no_meat_when_vegetarian(reply, VEG) is ok


def test_no_meat_rule_does_not_apply_without_the_diet() -> None:
    assert no_meat_when_vegetarian("Chicken and rice", {"diet": None})
    assert no_meat_when_vegetarian("Chicken and rice", [])


def test_pescatarian_allows_fish_not_meat() -> None:
    assert no_meat_when_vegetarian("Salmon bowl", ["pescatarian"])
    assert not no_meat_when_vegetarian("Beef bowl", ["pescatarian"])


@pytest.mark.parametrize(
    "reply, ok",
    [
        ("Oat milk porridge, peanut butter toast, coconut yogurt.", True),
        ("Greek yogurt with honey.", False),
        ("Omelette aux champignons.", False),
        ("Lait de soja et yaourt au soja.", True),
        ("Dairy-free, egg-free pancakes.", True),
    ],
)
def test_vegan(reply: str, ok: bool) -> None:
    assert no_animal_products_when_vegan(reply, {"vegan": True}) is ok
    assert no_animal_products_when_vegan(reply, {"diet": "vegetarian"})  # not vegan: not applicable


KNEE = {"injuries": ["knee"]}


@pytest.mark.parametrize(
    "reply, ok",
    [
        ("Day 1: leg press 3x10, hamstring curls, cycling 20 min.", True),
        ("Day 1: walking lunges 3x12, box jumps 3x8.", False),
        ("Avoid lunges, box jumps and burpees. Do leg press 3x10.", True),
        ("No lunges, do squats and jumping jacks.", False),
        ("Don't do lunges; low-impact cardio instead: cycling.", True),
        ("Avoid:\n- lunges\n- jumps\nDo:\n- leg press\n- swimming", True),
        ("Évitez les fentes et les sauts. Vélo 20 min.", True),
        ("Fentes marchées 3x12, squats sautés.", False),
        ("Bulgarian split squats 3x10", False),
    ],
)
def test_no_lunges_with_knee_injury(reply: str, ok: bool) -> None:
    assert no_lunges_with_knee_injury(reply, KNEE) is ok


def test_knee_rule_needs_a_knee_injury() -> None:
    assert no_lunges_with_knee_injury("Walking lunges 3x12", {"injuries": ["shoulder"]})
    assert not no_lunges_with_knee_injury("Walking lunges 3x12", ["blessure au genou"])
    assert not no_overhead_with_shoulder_injury("Overhead press 4x8", ["shoulder injury"])
    assert no_overhead_with_shoulder_injury(
        "No overhead pressing; landmine press instead", ["shoulder injury"]
    )


@pytest.mark.parametrize(
    "allergies, reply, ok",
    [
        (["peanut"], "Snack: peanut butter on toast.", False),
        (["peanuts"], "Peanut-free granola with almond milk.", True),
        (["arachides"], "Collation : cacahuètes grillées.", False),
        (["nuts"], "Snack: walnuts and an apple.", False),
        (["fruits à coque"], "Noix de coco râpée sur le yaourt.", True),
        (["sesame"], "Hummus with carrots.", False),
        (["lactose"], "Lactose-free milk and soy yogurt.", True),
        (["lactose"], "Cottage cheese before bed.", False),
        (["gluten"], "Gluten-free bread, rice pasta.", True),
        (["gluten"], "Whole-wheat pasta with tomato sauce.", False),
        (["kiwi"], "Fruit salad with kiwis.", False),
        (["shellfish"], "Shrimp stir-fry.", False),
    ],
)
def test_no_allergen(allergies, reply, ok) -> None:
    assert no_allergen(reply, {"allergies": allergies}) is ok


def test_constraints_from_tags_objects_and_models() -> None:
    expected = normalize_constraints(
        {"diet": "vegetarian", "allergies": ["peanut"], "injuries": ["knee"]}
    )
    assert normalize_constraints(["Vegetarian", "knee injury", "allergic to peanuts"]) == expected
    assert (
        normalize_constraints(["végétarien", "blessure au genou", "allergie aux arachides"])
        == expected
    )
    assert normalize_constraints(["vegetarian", "allergy:peanut", "injury:knee"]) == expected

    @dataclass
    class Profile:
        goal: str = "muscle"
        restrictions: list[str] = field(default_factory=lambda: ["vegetarian", "peanut allergy"])
        injuries: list[str] = field(default_factory=lambda: ["knee"])

    class ProfileModel(BaseModel):
        vegetarian: bool = True
        allergies: list[str] = ["peanuts"]
        injuries: list[str] = ["genou"]

    assert normalize_constraints(Profile()) == expected
    assert normalize_constraints(ProfileModel()) == expected
    assert normalize_constraints(None) == normalize_constraints({})


def test_delivery_checks() -> None:
    plan = "Day 1 — upper body: bench press 4 sets x 8-12 reps, rows, 20 minutes cardio."
    meals = "Breakfast: oats (30 g protein). Lunch: lentil bowl. ~2,300 kcal per day."
    assert delivers_workout_plan(plan) and not delivers_workout_plan(meals)
    assert delivers_meal_plan(meals) and not delivers_meal_plan(plan)
    assert not delivers_meal_plan("Could you tell me more about your goals?")


def test_applicable_verifiers_follow_constraints_and_recipient() -> None:
    names = applicable_verifiers({"diet": "vegan", "injuries": ["knee"]}, "nutrition_advisor")
    assert names == [
        "no_meat_when_vegetarian",
        "no_animal_products_when_vegan",
        "no_lunges_with_knee_injury",
        "delivers_meal_plan",
    ]
    assert applicable_verifiers({}, None) == []


def test_verify_records_only_names_and_pass_fail() -> None:
    reply = (
        "Breakfast: Greek yogurt. Lunch: grilled chicken. Dinner: tofu. 2,200 kcal, 140 g protein."
    )
    check = verify(reply, VEG, "nutrition_advisor", at=NOW)
    assert check is not None
    assert check.verifier == "no_meat_when_vegetarian+delivers_meal_plan"
    assert check.passed is False and check.checked_at == NOW
    assert "chicken" not in check.model_dump_json()
    assert verify(reply, {}, None) is None
    assert verify(
        "Breakfast: tofu. Lunch: lentils. 2,200 kcal, 140 g protein.", VEG, "nutrition_advisor"
    ).passed


def test_verifier_names_are_receipt_safe() -> None:
    from handoff_audit.builders import route_receipt

    check = verify(
        "x",
        {"diet": "vegan", "allergies": ["peanut"], "injuries": ["knee", "shoulder", "back"]},
        "workout_advisor",
    )
    receipt = route_receipt(
        operation_id="op-1",
        route_contract="c/v1",
        sender="a",
        recipient="a",
        declared_routes=["a"],
        goto="a",
        control_before="a",
        control_after="a",
        verifier=check.verifier,
        passed=check.passed,
    )
    assert content_problems(receipt) == []
