"""Offline replies: a tool's plan written as readable Markdown (headings, bullets), EN or FR.

Each reply opens with "what I took into account", listing every constraint collected so far —
including the other domain's ("vegetarian" in a workout reply is noted for the nutrition
advisor) — so the person can see nothing was lost between turns. Adaptations are phrased
positively: a reply never names what it left out.
"""

from __future__ import annotations

from coach.constraints import Constraints
from coach.tools import MealPlan, WorkoutPlan

_GOALS = {
    "mixed": ("build muscle and lose fat", "prendre du muscle et perdre du gras"),
    "muscle": ("build muscle", "prendre du muscle"),
    "fat_loss": ("lose fat", "perdre du gras"),
    "endurance": ("build endurance", "développer l'endurance"),
    "general": ("general fitness", "forme générale"),
}
_GOAL_FOOD = {
    "mixed": (
        "eat around maintenance with plenty of protein, to build muscle while losing fat",
        "manger autour de la maintenance avec beaucoup de protéines, pour construire du muscle en perdant du gras",
    ),
    "muscle": (
        "a ~10 % calorie surplus with plenty of protein",
        "un surplus d'environ 10 % avec beaucoup de protéines",
    ),
    "fat_loss": (
        "a ~20 % calorie deficit, protein kept high to protect muscle",
        "un déficit d'environ 20 %, protéines élevées pour préserver le muscle",
    ),
    "endurance": (
        "enough carbohydrates to fuel long sessions",
        "assez de glucides pour les séances longues",
    ),
    "general": ("around maintenance, balanced", "autour de la maintenance, équilibré"),
}
_EQUIPMENT = {
    "gym": ("gym", "salle de sport"),
    "dumbbells": ("dumbbells at home", "haltères à la maison"),
    "bodyweight": ("bodyweight, no equipment", "poids du corps, sans matériel"),
}
_DIETS = {
    "vegetarian": ("vegetarian", "végétarien"),
    "vegan": ("vegan, 100 % plant-based", "végan, 100 % végétal"),
    "pescatarian": ("pescatarian", "pescétarien"),
    "omnivore": ("no restriction", "sans restriction"),
}
_AREAS = {
    "knee": ("knee", "genou"),
    "shoulder": ("shoulder", "épaule"),
    "back": ("back", "dos"),
    "wrist": ("wrist", "poignet"),
    "ankle": ("ankle/foot", "cheville/pied"),
    "hip": ("hip", "hanche"),
    "elbow": ("elbow", "coude"),
    "neck": ("neck", "cou"),
    "unspecified": ("not specified yet", "zone non précisée"),
}
_FOOD_NAMES = {
    "peanuts": ("peanuts", "arachides"),
    "tree_nuts": ("tree nuts", "fruits à coque"),
    "dairy": ("dairy", "produits laitiers"),
    "lactose": ("lactose", "lactose"),
    "eggs": ("eggs", "œufs"),
    "gluten": ("gluten", "gluten"),
    "soy": ("soy", "soja"),
    "fish": ("fish", "poisson"),
    "shellfish": ("shellfish", "crustacés et fruits de mer"),
    "sesame": ("sesame", "sésame"),
    "pork": ("pork", "porc"),
    "red_meat": ("red meat", "viande rouge"),
    "poultry": ("poultry", "volaille"),
    "unspecified": ("not specified yet", "non précisée"),
}


def _t(lang: str, en: str, fr: str) -> str:
    return fr if lang == "fr" else en


def goal_label(goal: str | None, lang: str) -> str:
    return _t(lang, *_GOALS.get(goal or "general", _GOALS["general"]))


def _foods(keys: list[str], lang: str) -> str:
    return ", ".join(_t(lang, *_FOOD_NAMES.get(k, (k, k))) for k in keys)


def _areas(keys: list[str], lang: str) -> str:
    return ", ".join(_t(lang, *_AREAS.get(k, (k, k))) for k in keys)


def _kcal(value: int, lang: str) -> str:
    return f"{value:,}".replace(",", "\u202f" if lang == "fr" else ",")


def _food_constraint_lines(c: Constraints, lang: str) -> list[str]:
    lines = []
    if c.diet and c.diet != "omnivore":
        lines.append(_t(lang, f"Diet: {_DIETS[c.diet][0]}", f"Régime : {_DIETS[c.diet][1]}"))
    if c.allergies:
        lines.append(
            _t(
                lang,
                f"Allergies: {_foods(c.allergies, lang)}",
                f"Allergies : {_foods(c.allergies, lang)}",
            )
        )
    if c.intolerances:
        lines.append(
            _t(
                lang,
                f"Intolerances: {_foods(c.intolerances, lang)}",
                f"Intolérances : {_foods(c.intolerances, lang)}",
            )
        )
    if c.avoid:
        lines.append(
            _t(
                lang,
                f"Left out at your request: {_foods(c.avoid, lang)}",
                f"Exclus à votre demande : {_foods(c.avoid, lang)}",
            )
        )
    return lines


def render_workout(plan: WorkoutPlan, c: Constraints) -> str:
    """The workout advisor's offline reply."""
    lang = plan.language
    out: list[str] = []
    if "unspecified" in plan.injuries:
        out.append(
            _t(
                lang,
                "Which area is injured (knee, shoulder, back…)? Until you tell me, everything below stays "
                "low-impact and controlled.\n",
                "Quelle zone est blessée (genou, épaule, dos…) ? En attendant, tout ce qui suit reste sans "
                "impact et contrôlé.\n",
            )
        )
    out.append(
        _t(
            lang,
            f"## Your training plan — {goal_label(plan.goal, lang)}",
            f"## Votre programme d'entraînement — {goal_label(plan.goal, lang)}",
        )
    )
    cardio_n = len(plan.cardio)
    out.append(
        _t(
            lang,
            f"**{plan.split} · {plan.strength_days} strength days + {cardio_n} cardio sessions · "
            f"{_EQUIPMENT[plan.equipment][0]}**",
            f"**{plan.split} · {plan.strength_days} séances de renforcement + {cardio_n} de cardio · "
            f"{_EQUIPMENT[plan.equipment][1]}**",
        )
    )
    out.append("")
    out.append(_t(lang, "### What I took into account", "### Ce que j'ai pris en compte"))
    out.append(
        _t(
            lang,
            f"- Goal: {goal_label(plan.goal, lang)}",
            f"- Objectif : {goal_label(plan.goal, lang)}",
        )
    )
    if c.days_per_week:
        out.append(
            _t(
                lang,
                f"- Days per week: {c.days_per_week}",
                f"- Jours par semaine : {c.days_per_week}",
            )
        )
    out.append(
        _t(
            lang,
            f"- Equipment: {_EQUIPMENT[plan.equipment][0]}",
            f"- Matériel : {_EQUIPMENT[plan.equipment][1]}",
        )
    )
    if plan.injuries:
        out.append(
            _t(
                lang,
                f"- Injury: {_areas(plan.injuries, lang)} — exercises chosen to protect it",
                f"- Blessure : {_areas(plan.injuries, lang)} — exercices choisis pour la ménager",
            )
        )
    food = _food_constraint_lines(c, lang)
    if food:
        out.append(
            _t(
                lang,
                f"- Noted for your meals ({'; '.join(food)}) — ask me what to eat and the nutrition "
                "advisor will build them",
                f"- Noté pour vos repas ({'; '.join(food)}) — demandez-moi quoi manger et le conseiller "
                "nutrition s'en chargera",
            )
        )
    for line in plan.assumptions:
        out.append(f"- {line}")
    out.append("")
    out.append(_t(lang, "### Week at a glance", "### La semaine en un coup d'œil"))
    out.extend(f"- {line}" for line in plan.schedule)
    for session in plan.sessions:
        out.append("")
        out.append(f"### {session.title}")
        out.extend(f"- {ex.name} — {ex.sets_reps}" for ex in session.exercises)
        if session.finisher:
            out.append(_t(lang, f"- Then: {session.finisher}", f"- Ensuite : {session.finisher}"))
    separate = [
        c_
        for c_ in plan.cardio
        if not any(s.finisher and c_.prescription in s.finisher for s in plan.sessions)
    ]
    if separate:
        out.append("")
        out.append(_t(lang, "### Cardio", "### Cardio"))
        colon = _t(lang, ": ", " : ")
        out.extend(f"- {c_.title} — {c_.activity}{colon}{c_.prescription}" for c_ in separate)
    out.append("")
    out.append(_t(lang, "### How to progress", "### Comment progresser"))
    out.append(f"- {plan.rest}")
    out.append(f"- {plan.progression}")
    if plan.adaptations:
        out.append("")
        out.append(_t(lang, "### Adapted for you", "### Adapté pour vous"))
        out.extend(f"- {line}" for line in plan.adaptations)
    return "\n".join(out).strip() + "\n"


def render_meals(plan: MealPlan, c: Constraints) -> str:
    """The nutrition advisor's offline reply."""
    lang = plan.language
    out: list[str] = []
    if "unspecified" in c.allergies or "unspecified" in c.intolerances:
        out.append(
            _t(
                lang,
                "Which food are you allergic or intolerant to? Tell me and I'll remove it from every meal.\n",
                "À quel aliment êtes-vous allergique ou intolérant ? Dites-le-moi et je le retire de tous les "
                "repas.\n",
            )
        )
    out.append(
        _t(
            lang,
            f"## Your day of meals — {goal_label(plan.goal, lang)}",
            f"## Votre journée de repas — {goal_label(plan.goal, lang)}",
        )
    )
    out.append(
        _t(
            lang,
            f"**Daily target: ~{_kcal(plan.target_kcal, lang)} kcal · protein ≥ {plan.target_protein_g} g · "
            f"carbs ~{plan.target_carbs_g} g · fat ~{plan.target_fat_g} g**",
            f"**Objectif quotidien : ~{_kcal(plan.target_kcal, lang)} kcal · protéines ≥ {plan.target_protein_g} g · "
            f"glucides ~{plan.target_carbs_g} g · lipides ~{plan.target_fat_g} g**",
        )
    )
    out.append("")
    out.append(_t(lang, "### What I took into account", "### Ce que j'ai pris en compte"))
    out.append(
        _t(
            lang,
            f"- Goal: {goal_label(plan.goal, lang)} → {_GOAL_FOOD[plan.goal][0]}",
            f"- Objectif : {goal_label(plan.goal, lang)} → {_GOAL_FOOD[plan.goal][1]}",
        )
    )
    food = _food_constraint_lines(c, lang)
    out.extend(
        f"- {line}" + _t(lang, " (respected in every meal)", " (respect garanti dans chaque repas)")
        for line in food
    )
    if c.injuries:
        out.append(
            _t(
                lang,
                f"- Injury noted ({_areas(c.injuries, lang)}) — handled in your training plan",
                f"- Blessure notée ({_areas(c.injuries, lang)}) — prise en compte dans votre entraînement",
            )
        )
    if c.days_per_week:
        out.append(
            _t(
                lang,
                f"- Training {c.days_per_week} days a week",
                f"- Entraînement {c.days_per_week} jours par semaine",
            )
        )
    out.append("")
    out.append(_t(lang, "### The day", "### La journée"))
    for meal in plan.meals:
        out.append("")
        out.append(
            f"**{meal.time} · {meal.slot} — {meal.name}** "
            + _t(
                lang,
                f"({meal.kcal} kcal · protein {meal.protein_g} g)",
                f"({meal.kcal} kcal · protéines {meal.protein_g} g)",
            )
        )
        out.extend(f"- {item.label}" for item in meal.items)
    out.append("")
    out.append(_t(lang, "### Day total", "### Total de la journée"))
    out.append(
        _t(
            lang,
            f"- {_kcal(plan.total_kcal, lang)} kcal · protein {plan.total_protein_g} g · "
            f"carbs {plan.total_carbs_g} g · fat {plan.total_fat_g} g",
            f"- {_kcal(plan.total_kcal, lang)} kcal · protéines {plan.total_protein_g} g · "
            f"glucides {plan.total_carbs_g} g · lipides {plan.total_fat_g} g",
        )
    )
    if plan.total_protein_g < 0.9 * plan.target_protein_g:
        out.append(
            _t(
                lang,
                "- Protein is a little short with these restrictions: a second shake or an extra "
                "portion of the main protein closes the gap.",
                "- Les protéines sont un peu justes avec ces restrictions : un shake de plus ou une portion "
                "supplémentaire de la source principale comble l'écart.",
            )
        )
    out.append("")
    out.append(_t(lang, "### Tips", "### Conseils"))
    out.append(f"- {plan.timing}")
    out.extend(f"- {note}" for note in plan.notes)
    return "\n".join(out).strip() + "\n"


def render_acknowledgement(agent: str, lang: str) -> str:
    """A short reply when the person has nothing to add (no new plan, no tool call)."""
    if agent == "nutrition_advisor":
        return _t(
            lang,
            "Great — your meal plan stands. Tell me anytime if something changes (an allergy, a diet, "
            "your weight), or ask about your training.\n",
            "Parfait — votre plan de repas est validé. Dites-moi si quelque chose change (une allergie, un "
            "régime, votre poids), ou posez une question sur l'entraînement.\n",
        )
    return _t(
        lang,
        "Great — your training plan stands. Tell me anytime if something changes (an injury, your "
        "schedule, your equipment), or ask what to eat to support it.\n",
        "Parfait — votre programme est validé. Dites-moi si quelque chose change (une blessure, votre "
        "emploi du temps, votre matériel), ou demandez quoi manger pour l'accompagner.\n",
    )
