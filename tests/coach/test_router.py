"""The deterministic keyword router: EN/FR, stems and synonyms, fallbacks, the conflict rule."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from coach.cli import DEFAULT_ROUTER_CASES, evaluate_router, read_cases
from coach.router import explain_route, normalize_agent, route, router_node

W, N = "workout_advisor", "nutrition_advisor"

CASES = [
    # the seed's three turns
    ("Build muscle, lose fat — suggest a workout plan", None, W),
    ("What should I eat to support this workout plan?", W, N),
    ("I'm vegetarian, adjust the meal suggestion", N, N),
    # workout vocabulary, stems and synonyms (EN)
    ("How many reps per set for bench press?", N, W),
    ("My squats feel weak, any tips?", N, W),
    ("Can I do more cardio this week?", N, W),
    ("I hurt my shoulder yesterday", N, W),
    ("I'd like to train at the gym four days", N, W),
    ("Swap the running for swimming", N, W),
    ("Is HIIT better than steady jogging?", N, W),
    # nutrition vocabulary (EN)
    ("How much protein do I need?", W, N),
    ("Suggest a high-calorie breakfast", W, N),
    ("I'm allergic to shellfish", W, N),
    ("Any vegan dinner ideas?", W, N),
    ("What macros should I aim for?", W, N),
    ("Is oatmeal a good snack?", W, N),
    # French
    ("Combien de répétitions pour les tractions ?", N, W),
    ("J'ai une blessure à l'épaule", N, W),
    ("Je veux faire plus de musculation", N, W),
    ("Remplace le footing par de la natation", N, W),
    ("Que manger le soir ?", W, N),
    ("Je suis végétalienne", W, N),
    ("Quelles protéines pour le petit-déjeuner ?", W, N),
    ("Je suis allergique au sésame", W, N),
    # conflict rule: both domains → nutrition (what to eat around training)
    ("What should I eat before the gym?", W, N),
    ("Best protein intake after my workout?", W, N),
    ("Que dois-je manger avant ma séance de cardio ?", W, N),
    ("Un en-cas après l'entraînement ?", W, N),
    # fallback to last_active_agent, and a new thread → workout
    ("Tell me more", N, N),
    ("Tell me more", W, W),
    ("Can you adjust it?", N, N),
    ("Et ensuite ?", W, W),
    ("Dis-m'en plus", N, N),
    ("Hello!", None, W),
    ("Bonjour", None, W),
]


@pytest.mark.parametrize(("text", "last", "expected"), CASES)
def test_route(text: str, last: str | None, expected: str) -> None:
    assert route(text, last) == expected


def test_conflict_rule_is_reported() -> None:
    decision = explain_route("What should I eat to support this workout plan?", W)
    assert decision.reason == "conflict_rule"
    assert decision.workout_hits and decision.nutrition_hits


def test_fallback_and_new_thread_reasons() -> None:
    assert explain_route("tell me more", N).reason == "fallback_last"
    assert explain_route("tell me more", None).reason == "out_of_scope"  # nothing to follow up
    assert explain_route("Build me a plan", None).reason == "new_thread"


def test_stems_do_not_overmatch() -> None:
    # "rep" must not match "repeat"/"reply"; "glute" must not match "gluten"; "en cas de" is not a snack
    assert explain_route("Please repeat that reply", N).reason == "fallback_last"
    assert explain_route("I eat gluten-free", W).workout_hits == ()
    assert explain_route("en cas de doute", N).nutrition_hits == ()


def test_router_node_reads_last_human_message() -> None:
    state = {
        "messages": [
            HumanMessage("Build muscle"),
            AIMessage("plan..."),
            HumanMessage("And what to eat?"),
        ],
        "last_active_agent": W,
    }
    assert router_node(state) == {
        "last_active_agent": N,
        "route_decision": {"destination": N, "rule": "nutrition_keywords"},
    }
    assert router_node({"messages": [HumanMessage("ok")], "last_active_agent": N}) == {
        "last_active_agent": N,
        "route_decision": {"destination": N, "rule": "fallback_last"},
    }


def test_normalize_agent() -> None:
    assert normalize_agent("workout") == W and normalize_agent("nutrition_advisor") == N
    assert normalize_agent(None) is None and normalize_agent("null") is None
    with pytest.raises(ValueError):
        normalize_agent("chef")


def test_shipped_router_set_is_large_bilingual_and_passes() -> None:
    cases = read_cases(DEFAULT_ROUTER_CASES)
    assert len(cases) >= 40
    assert any(c["last"] is None for c in cases) and any(
        "é" in c["text"] or "è" in c["text"] for c in cases
    )
    result = evaluate_router(cases)
    assert result == {"accuracy": 1.0, "n": len(cases), "errors": []}


def test_eval_reports_errors(tmp_path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(
        json.dumps({"text": "squats please", "last": None, "expect": "workout_advisor"})
        + "\n"
        + json.dumps({"text": "squats please", "last": None, "expect": "nutrition"})
        + "\n",
        encoding="utf-8",
    )
    result = evaluate_router(read_cases(path))
    assert result["n"] == 2 and result["accuracy"] == 0.5
    assert result["errors"][0]["got"] == W and result["errors"][0]["expect"] == N
