"""Constraint extraction from the whole conversation, EN and FR, with negations and changes."""

from __future__ import annotations

import pytest

from coach.constraints import Constraints, extract_constraints, is_acknowledgement
from coach.language import conversation_language, detect_language


def c(*texts: str) -> Constraints:
    return extract_constraints(list(texts))


@pytest.mark.parametrize(
    ("texts", "goal"),
    [
        (["Build muscle, lose fat — suggest a workout plan"], "mixed"),
        (["I want to bulk up"], "muscle"),
        (["Help me lose weight"], "fat_loss"),
        (["Training for a half-marathon"], "endurance"),
        (["Je veux perdre du poids et prendre du muscle"], "mixed"),
        (["Objectif : prise de masse"], "muscle"),
        (["I want to run a marathon", "actually I want to build muscle instead"], "muscle"),
        (["Build muscle, lose fat", "What should I eat?", "I'm vegetarian"], "mixed"),
        (["Suggest a workout plan"], None),
    ],
)
def test_goal(texts: list[str], goal: str | None) -> None:
    assert c(*texts).goal == goal


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("I can train 3 days a week", 3),
        ("4x/week at most", 4),
        ("twice a week", 2),
        ("five sessions per week", 5),
        ("trois fois par semaine", 3),
        ("2 jours par semaine", 2),
        ("10 minutes a day", None),
    ],
)
def test_days_per_week(text: str, days: int | None) -> None:
    assert c(text).days_per_week == days


@pytest.mark.parametrize(
    ("text", "equipment"),
    [
        ("I go to the gym", "gym"),
        ("I train at home with dumbbells", "dumbbells"),
        ("no equipment, just bodyweight", "bodyweight"),
        ("je m'entraîne à la maison sans matériel", "bodyweight"),
        ("j'ai des haltères", "dumbbells"),
        ("en salle de sport", "gym"),
    ],
)
def test_equipment(text: str, equipment: str) -> None:
    assert c(text).equipment == equipment


@pytest.mark.parametrize(
    ("texts", "injuries"),
    [
        (["I have a bad knee"], ["knee"]),
        (["my lower back hurts when I deadlift"], ["back"]),
        (["J'ai mal au genou et une tendinite à l'épaule"], ["knee", "shoulder"]),
        (["I tore my ACL last year"], ["knee"]),
        (["No injuries"], []),
        (["back squat please"], []),  # a body word alone is not an injury
        (["my knee hurts", "my knee is fine now"], []),
        (["I have an injury."], ["unspecified"]),
        (["I have an injury.", "it's my ankle, I sprained it"], ["ankle"]),
        (["Je suis blessé au poignet"], ["wrist"]),
        (["I have an injury.", "The knee."], ["knee"]),
        (["The knee."], []),
    ],
)
def test_injuries(texts: list[str], injuries: list[str]) -> None:
    assert c(*texts).injuries == injuries


@pytest.mark.parametrize(
    ("texts", "diet"),
    [
        (["I'm vegetarian"], "vegetarian"),
        (["Je suis végane"], "vegan"),
        (["plant-based please"], "vegan"),
        (["I don't eat meat"], "vegetarian"),
        (["pescatarian here"], "pescatarian"),
        (["I'm vegetarian", "I'm vegan now"], "vegan"),
        (["I'm vegetarian", "I'm not vegetarian anymore"], "omnivore"),
        (
            ["Je ne suis plus végétarien"],
            None,
        ),  # negating a diet that was never set changes nothing
    ],
)
def test_diet(texts: list[str], diet: str | None) -> None:
    assert c(*texts).diet == diet


def test_allergies_intolerances_and_dislikes() -> None:
    found = c(
        "I'm allergic to peanuts, tree nuts and sesame",
        "lactose intolerant but I eat eggs",
        "no pork please",
    )
    assert found.allergies == ["peanuts", "sesame", "tree_nuts"]
    assert found.intolerances == ["lactose"]
    assert found.avoid == ["pork"]
    assert {"peanuts", "sesame", "tree_nuts", "lactose", "pork"} <= found.food_exclusions()
    assert "eggs" not in found.food_exclusions()


def test_french_allergy_and_intolerance_in_one_sentence() -> None:
    found = c("allergique aux arachides, intolérant au lactose")
    assert (
        found.allergies == ["peanuts"]
        and found.intolerances == ["lactose"]
        and found.language == "fr"
    )


def test_negated_allergies_and_unspecified_ones() -> None:
    assert c("I'm not allergic to anything").allergies == []
    assert c("no allergies, no injuries").model_dump(exclude_defaults=True) == {}
    assert c("I have a food allergy.").allergies == ["unspecified"]
    assert c("I have a food allergy.", "it's shellfish").allergies == [
        "shellfish"
    ]  # answers the question
    assert c("it's shellfish").allergies == []  # ...but alone, a food word is not an allergy
    assert c("I have a food allergy.", "I'm allergic to shellfish").allergies == ["shellfish"]
    assert c("coeliac here").intolerances == ["gluten"]
    assert c("nut allergy").allergies == [
        "peanuts",
        "tree_nuts",
    ]  # generic "nuts": both, to be safe


def test_diet_exclusions() -> None:
    assert {"meat", "fish", "shellfish"} <= c("I'm vegetarian").food_exclusions()
    assert {"dairy", "eggs", "meat", "fish"} <= c("I'm vegan").food_exclusions()
    assert "eggs" not in c("I'm vegetarian").food_exclusions()


def test_weight() -> None:
    assert c("I weigh 82 kg").weight_kg == 82
    assert c("je pèse 68,5 kg").weight_kg == 68.5
    assert c("I want to lose 5 kg").weight_kg is None
    assert c("180 lbs").weight_kg == pytest.approx(81.6, abs=0.1)


def test_language() -> None:
    assert detect_language("What should I eat to support this workout plan?") == "en"
    assert detect_language("Que dois-je manger pour accompagner ce programme ?") == "fr"
    assert conversation_language(["Build muscle", "Je suis végétarien"]) == "fr"
    assert (
        conversation_language(["Bonjour, je veux prendre du muscle", "ok"]) == "fr"
    )  # "ok" is not decisive


@pytest.mark.parametrize(
    ("text", "ack"),
    [
        ("Nothing to add.", True),
        ("Rien à ajouter, merci", True),
        ("ok thanks", True),
        ("ok, what should I eat?", False),
        ("thanks, I'm vegetarian", False),
        ("I have a bad knee", False),
    ],
)
def test_acknowledgement(text: str, ack: bool) -> None:
    assert is_acknowledgement(text) is ack
