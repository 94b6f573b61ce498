"""Food table, meal templates and the day's slots for the rule-based nutrition provider,
loaded from `data/foods.yaml`.

Tags drive every restriction: a meal is offered only if none of its foods carries an excluded
tag (diet, allergy, intolerance or dislike), so an allergen cannot slip in. The loader checks
at import that every meal names known foods and that each slot's last resort is free of every
allergen tag, so no combination of restrictions can leave a slot empty.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

DATA = Path(__file__).parent / "data" / "foods.yaml"
DIETS = ("omnivore", "pescatarian", "vegetarian", "vegan")


@dataclass(frozen=True)
class Food:
    key: str
    en: str
    fr: str
    kcal: float
    protein: float
    carbs: float
    fat: float
    tags: frozenset[str] = frozenset()
    unit_g: float | None = None  # one piece (an egg), to print "3 eggs"
    unit_en: str = ""
    unit_fr: str = ""


@dataclass(frozen=True)
class MealTemplate:
    key: str
    en: str
    fr: str
    items: tuple[tuple[str, float], ...]  # (food key, grams at the template's size)

    @property
    def tags(self) -> frozenset[str]:
        out: set[str] = set()
        for food, _grams in self.items:
            out |= FOODS[food].tags
        return frozenset(out)


@dataclass(frozen=True)
class Slot:
    en: str
    fr: str
    time: str
    share: float  # of the day's kcal
    prefer: dict[str, list[str]]  # diet → meal keys, preferred first
    fallback: str  # a meal free of every allergen tag


def _food(row: dict[str, Any]) -> Food:
    unit = row.get("unit") or [None, "", ""]
    return Food(
        row["key"],
        row["en"],
        row["fr"],
        float(row["kcal"]),
        float(row["protein"]),
        float(row["carbs"]),
        float(row["fat"]),
        frozenset(row.get("tags", [])),
        unit[0],
        unit[1],
        unit[2],
    )


def _load() -> tuple[dict[str, Food], dict[str, MealTemplate], list[Slot]]:
    raw = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    foods = {row["key"]: _food(row) for row in raw["foods"]}
    meals = {
        row["key"]: MealTemplate(
            row["key"], row["en"], row["fr"], tuple((f, float(g)) for f, g in row["items"])
        )
        for row in raw["meals"]
    }
    slots = [
        Slot(r["en"], r["fr"], str(r["time"]), float(r["share"]), dict(r["prefer"]), r["fallback"])
        for r in raw["slots"]
    ]
    for meal in meals.values():
        unknown = [f for f, _ in meal.items if f not in foods]
        if unknown:
            raise ValueError(f"{DATA.name}: meal {meal.key} uses unknown foods {unknown}")
    for slot in slots:
        keys = [k for diet in DIETS for k in slot.prefer.get(diet, [])] + [slot.fallback]
        if any(k not in meals for k in keys):
            raise ValueError(f"{DATA.name}: slot {slot.en} names an unknown meal")
        if any(foods[f].tags for f, _ in meals[slot.fallback].items):
            raise ValueError(
                f"{DATA.name}: slot {slot.en}'s fallback must carry no restriction tag"
            )
    if abs(sum(s.share for s in slots) - 1.0) > 0.01:
        raise ValueError(f"{DATA.name}: slot shares must add up to 1")
    return foods, meals, slots


FOODS, MEALS, SLOTS = _load()
