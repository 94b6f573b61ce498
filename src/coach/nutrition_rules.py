"""The rule-based nutrition provider: goal, diet and food restrictions → a day of meals (and, for
a period such as a week, the following days' menus, varied).

Targets: maintenance ≈ 33 kcal/kg (moderately active; 75 kg when the weight is unknown),
adjusted by goal; protein by g/kg; fat 27 % of kcal; carbohydrates the rest. Each meal slot takes
from the diet's preference list the templates whose foods carry no excluded tag; portions are
scaled to the slot's share of the day; then the day is the combination that keeps preference
order while landing protein near its target (a tiny exhaustive search: at most a few thousand
combinations). Every slot has a last-resort template free of the major allergens, so no
restriction can leave a slot empty.
"""

from __future__ import annotations

import itertools
from collections import Counter

from coach._foods import FOODS, MEALS, SLOTS, MealTemplate, Slot
from coach.constraints import diet_exclusions
from coach.plans import DayMenu, FoodPortion, Meal, MealPlan, MealRequest

_KCAL_FACTOR = {"mixed": 1.0, "muscle": 1.1, "fat_loss": 0.8, "endurance": 1.1, "general": 1.0}
_PROTEIN_PER_KG = {"mixed": 2.0, "muscle": 1.8, "fat_loss": 2.0, "endurance": 1.6, "general": 1.6}
DEFAULT_WEIGHT_KG = 75.0


def _t(lang: str, en: str, fr: str) -> str:
    return fr if lang == "fr" else en


def _round(value: float, step: int) -> int:
    return int(value / step + 0.5) * step


def excluded_food_tags(request: MealRequest) -> set[str]:
    """Diet + allergies + intolerances + dislikes as food tags (dairy implies lactose)."""
    tags = (
        diet_exclusions(request.diet)
        | set(request.allergies)
        | set(request.intolerances)
        | set(request.avoid)
    )
    if "dairy" in tags:
        tags.add("lactose")
    tags.discard("unspecified")
    return tags


def targets(request: MealRequest) -> tuple[int, int, int, int]:
    """(kcal, protein g, carbs g, fat g) for the day."""
    weight = request.weight_kg or DEFAULT_WEIGHT_KG
    kcal = request.target_kcal or _round(weight * 33 * _KCAL_FACTOR[request.goal], 50)  # theirs wins
    protein = _round(weight * _PROTEIN_PER_KG[request.goal], 5)
    fat = _round(kcal * 0.27 / 9, 5)
    carbs = _round(max(0.0, kcal - 4 * protein - 9 * fat) / 4, 5)
    return kcal, protein, carbs, fat


# which of the day's slots to keep for N meals a day (main meals first, then the snacks)
_SLOT_ORDER = {1: [4], 2: [2, 4], 3: [0, 2, 4], 4: [0, 2, 3, 4], 5: [0, 1, 2, 3, 4]}


def day_slots(meals_per_day: int | None) -> list[Slot]:
    """The slots of the day for `meals_per_day` (5 when not said; the day has at most 5)."""
    keep = _SLOT_ORDER[min(max(meals_per_day or 5, 1), len(SLOTS))] if len(SLOTS) == 5 else range(len(SLOTS))
    return [SLOTS[i] for i in keep]


def allowed(slot: Slot, diet: str, excluded: set[str]) -> list[MealTemplate]:
    """The slot's templates for the diet, preferred first, without any excluded food."""
    keys = list(dict.fromkeys(slot.prefer.get(diet, slot.prefer["omnivore"]) + [slot.fallback]))
    return [MEALS[k] for k in keys if not (MEALS[k].tags & excluded)]


def _score(combo: tuple[tuple[int, Meal], ...], protein_target: int) -> float:
    """Lower is better: preference rank, protein far from target, the same meal twice."""
    ranks = sum(rank for rank, _ in combo)
    protein = sum(meal.protein_g for _, meal in combo)
    short = max(0.0, 0.95 * protein_target - protein) / protein_target
    excess = max(0.0, protein - 1.25 * protein_target) / protein_target
    names = [meal.name for _, meal in combo]
    repeats = len(names) - len(set(names))
    return ranks + 40 * short + 15 * excess + 3 * repeats


def _best_day(options: list[list[tuple[int, Meal]]], protein: int, used: Counter[str]) -> list[Meal]:
    """The day's meals: the best-scored combination, each meal already eaten on earlier days of the
    period costing as much as two places down its slot's preference list (so days vary)."""
    if not options:
        return []
    best = min(itertools.product(*options),
               key=lambda combo: _score(combo, protein) + 2 * sum(used[meal.name] for _, meal in combo))
    return [meal for _, meal in best]


def _portion(food_key: str, grams: float, lang: str) -> FoodPortion:
    food = FOODS[food_key]
    name = _t(lang, food.en, food.fr)
    if food.unit_g:
        count = max(1, int(grams / food.unit_g + 0.5))
        grams = count * food.unit_g
        label = f"{count} {_t(lang, food.unit_en, food.unit_fr)} ({int(grams)} g)"
    else:
        grams = max(5, _round(grams, 5))
        label = f"{int(grams)} g {name}"
    return FoodPortion(key=food_key, label=label, grams=int(grams), tags=sorted(food.tags))


def _meal(slot: Slot, template: MealTemplate, kcal_goal: float, lang: str) -> Meal:
    base = sum(FOODS[f].kcal * g / 100 for f, g in template.items)
    scale = min(3.0, max(0.5, kcal_goal / base)) if base else 1.0
    items = [_portion(f, g * scale, lang) for f, g in template.items]
    totals = [
        sum(getattr(FOODS[i.key], attr) * i.grams / 100 for i in items)
        for attr in ("kcal", "protein", "carbs", "fat")
    ]
    return Meal(
        slot=_t(lang, slot.en, slot.fr),
        time=slot.time,
        name=_t(lang, template.en, template.fr),
        items=items,
        kcal=round(totals[0]),
        protein_g=round(totals[1]),
        carbs_g=round(totals[2]),
        fat_g=round(totals[3]),
    )


class RuleBasedNutritionProvider:
    """Table-driven meal plans; replace with any `NutritionProvider` (e.g. a nutrition API)."""

    def meal_plan(self, request: MealRequest) -> MealPlan:
        lang = request.language
        excluded = excluded_food_tags(request)
        kcal, protein, carbs, fat = targets(request)
        options: list[list[tuple[int, Meal]]] = []
        slots = day_slots(request.meals_per_day)
        shares = sum(slot.share for slot in slots)
        for slot in slots:
            templates = allowed(slot, request.diet, excluded)
            slot_meals = [
                (rank, _meal(slot, t, kcal * slot.share / shares, lang))
                for rank, t in enumerate(templates)
            ]
            if slot_meals:
                options.append(slot_meals)
        meals = _best_day(options, protein, Counter())
        used = Counter(meal.name for meal in meals)
        next_days = []
        for _ in range(request.days - 1):  # a period: each day prefers meals the days before had least
            day = _best_day(options, protein, used)
            used.update(meal.name for meal in day)
            next_days.append(DayMenu(meals=day, total_kcal=sum(m.kcal for m in day),
                                     total_protein_g=sum(m.protein_g for m in day)))
        totals = [
            sum(getattr(m, a) for m in meals) for a in ("kcal", "protein_g", "carbs_g", "fat_g")
        ]
        return MealPlan(
            goal=request.goal,
            diet=request.diet,
            allergies=request.allergies,
            intolerances=request.intolerances,
            avoid=request.avoid,
            excluded_tags=sorted(excluded),
            target_kcal=kcal,
            target_protein_g=protein,
            target_carbs_g=carbs,
            target_fat_g=fat,
            meals=meals,
            total_kcal=totals[0],
            total_protein_g=totals[1],
            total_carbs_g=totals[2],
            total_fat_g=totals[3],
            timing=_timing(len(meals), lang),
            notes=self._notes(request, meals),
            next_days=next_days,
            language=lang,
        )

    @staticmethod
    def _notes(request: MealRequest, meals: list[Meal]) -> list[str]:
        lang = request.language
        weight = request.weight_kg
        notes = []
        if request.target_weight_kg:
            notes.append(_target_weight_note(weight, request.target_weight_kg, lang))
        if request.meals_per_day and request.meals_per_day > len(SLOTS):
            notes.append(
                _t(
                    lang,
                    f"You asked for {request.meals_per_day} meals: the day has {len(SLOTS)} here — split a "
                    "portion of the larger meals into an extra snack if you like.",
                    f"Vous avez demandé {request.meals_per_day} repas : la journée en compte {len(SLOTS)} ici — "
                    "séparez une portion des plus gros repas en collation si vous le souhaitez.",
                )
            )
        if weight is None:
            notes.append(
                _t(
                    lang,
                    f"Targets assume about {DEFAULT_WEIGHT_KG:.0f} kg and a moderately active week — "
                    "tell me your weight to fine-tune them.",
                    f"Objectifs calculés pour environ {DEFAULT_WEIGHT_KG:.0f} kg et une semaine "
                    "modérément active — donnez-moi votre poids pour les affiner.",
                )
            )
        protein_foods: list[str] = []
        for meal in meals:
            for item in meal.items:
                food = FOODS[item.key]
                rich = food.protein >= 8 and (
                    food.protein >= 15 or food.protein * 4 >= 0.25 * food.kcal
                )
                if rich and food.key not in protein_foods:
                    protein_foods.append(food.key)
        names = ", ".join(_t(lang, FOODS[k].en, FOODS[k].fr) for k in protein_foods[:6])
        notes.append(
            _t(
                lang,
                f"Main protein sources today: {names}.",
                f"Principales sources de protéines aujourd'hui : {names}.",
            )
        )
        notes.append(
            _t(
                lang,
                "Drink 2–3 L of water a day, a little more on training days.",
                "Buvez 2 à 3 L d'eau par jour, un peu plus les jours d'entraînement.",
            )
        )
        return notes


def _target_weight_note(weight: float | None, target: float, lang: str) -> str:
    """The target weight, and how long at a safe pace (~0.5 kg a week) when the weight is known."""
    if weight:
        weeks = max(1, round(abs(weight - target) / 0.5))
        return _t(
            lang,
            f"Target weight {target:g} kg (from {weight:g} kg): at about 0.5 kg a week, roughly {weeks} weeks.",
            f"Poids visé {target:g} kg (depuis {weight:g} kg) : à environ 0,5 kg par semaine, environ {weeks} semaines.",
        )
    return _t(
        lang,
        f"Target weight {target:g} kg — tell me your current weight and I'll set the pace.",
        f"Poids visé {target:g} kg — donnez-moi votre poids actuel et je fixe le rythme.",
    )


def _timing(meals: int, lang: str) -> str:
    if meals == 5:
        return _t(lang, *_TIMING)
    return _t(
        lang,
        f"{meals} meals a day, evenly spaced; if you train, have one of them 60–90 min before or right after.",
        f"{meals} repas par jour, bien espacés ; si vous vous entraînez, placez-en un 60 à 90 min avant ou juste après.",
    )


_TIMING = (
    (
        "Five meals, one every 3–3½ hours; have the afternoon snack 60–90 min before training, "
        "or right after it if you train in the evening."
    ),
    (
        "Cinq prises alimentaires, toutes les 3 h à 3 h 30 ; prenez la collation de l'après-midi 60 à 90 min "
        "avant l'entraînement, ou juste après si vous vous entraînez le soir."
    ),
)
