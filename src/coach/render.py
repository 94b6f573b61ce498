"""Offline replies: a tool's plan written as readable Markdown (headings, bullets), EN or FR.

Each reply opens with "what I took into account", listing every constraint collected so far —
including the other domain's ("vegetarian" in a workout reply is noted for the nutrition
advisor) — so the person can see nothing was lost between turns. Adaptations are phrased
positively: a reply never names what it left out.
"""

from __future__ import annotations

from coach.constraints import Constraints
from coach.plans import MealPlan, WorkoutPlan

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
    """The workout advisor's offline reply: heading, what was taken into account, the week, how to progress."""
    lang = plan.language
    out = _workout_heading(plan, lang)
    out += ["", *_workout_considered(plan, c, lang)]
    out += ["", *_workout_week(plan, lang)]
    out += ["", *_workout_progress(plan, lang)]
    return "\n".join(out).strip() + "\n"


def _workout_heading(plan: WorkoutPlan, lang: str) -> list[str]:
    """The question about an unnamed injury first (it changes every exercise), then the plan's shape in one line."""
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
    goal = goal_label(plan.goal, lang)
    out.append(_t(lang, f"## Your training plan — {goal}", f"## Votre programme d'entraînement — {goal}"))
    total = plan.sessions_per_week or plan.strength_days
    separate_n = total - plan.strength_days
    finishers = sum(1 for s in plan.sessions if s.finisher)
    minutes = _t(lang, f" · ~{plan.session_minutes} min each", f" · ~{plan.session_minutes} min chacune") if plan.session_minutes else ""
    out.append(
        _t(
            lang,
            f"**{plan.split} · {total} sessions a week: {plan.strength_days} strength + {separate_n} cardio"
            f"{minutes} · {_EQUIPMENT[plan.equipment][0]}**",
            f"**{plan.split} · {total} séances par semaine : {plan.strength_days} de renforcement + "
            f"{separate_n} de cardio{minutes} · {_EQUIPMENT[plan.equipment][1]}**",
        )
    )
    if finishers:
        out.append(
            _t(
                lang,
                f"_{finishers} of the strength sessions end{'s' if finishers == 1 else ''} with a short cardio "
                "finisher (no extra day)._",
                f"_{finishers} séance{'s' if finishers > 1 else ''} de renforcement se termine"
                f"{'nt' if finishers > 1 else ''} par un court cardio (sans jour de plus)._",
            )
        )
    return out


def _workout_considered(plan: WorkoutPlan, c: Constraints, lang: str) -> list[str]:
    """Every constraint collected so far, the meals' ones included, so the person sees nothing was lost."""
    total = plan.sessions_per_week or plan.strength_days
    out = [_t(lang, "### What I took into account", "### Ce que j'ai pris en compte")]
    out.append(_t(lang, f"- Goal: {goal_label(plan.goal, lang)}", f"- Objectif : {goal_label(plan.goal, lang)}"))
    if c.days_per_week:
        out.append(
            _t(
                lang,
                f"- Days per week: {c.days_per_week} (strength and cardio together)",
                f"- Jours par semaine : {c.days_per_week} (renforcement et cardio compris)",
            )
        )
    if c.strength_per_week is not None or c.cardio_per_week is not None:
        out.append(
            _t(
                lang,
                f"- Your split: {plan.strength_days} strength + {total - plan.strength_days} cardio",
                f"- Votre répartition : {plan.strength_days} renforcement + {total - plan.strength_days} cardio",
            )
        )
    if plan.session_minutes:
        out.append(
            _t(
                lang,
                f"- Session length: {plan.session_minutes} min (warm-up included)",
                f"- Durée des séances : {plan.session_minutes} min (échauffement compris)",
            )
        )
    out.append(_t(lang, f"- Equipment: {_EQUIPMENT[plan.equipment][0]}", f"- Matériel : {_EQUIPMENT[plan.equipment][1]}"))
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
    out.extend(f"- {line}" for line in plan.assumptions)
    return out


def _workout_week(plan: WorkoutPlan, lang: str) -> list[str]:
    """The week at a glance, each strength session, then the cardio not already done as a finisher."""
    out = [_t(lang, "### Week at a glance", "### La semaine en un coup d'œil")]
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
    return out


def _workout_progress(plan: WorkoutPlan, lang: str) -> list[str]:
    """Rest and progression, then the adaptations (phrased positively: never what was left out)."""
    out = [_t(lang, "### How to progress", "### Comment progresser"), f"- {plan.rest}", f"- {plan.progression}"]
    if plan.adaptations:
        out.append("")
        out.append(_t(lang, "### Adapted for you", "### Adapté pour vous"))
        out.extend(f"- {line}" for line in plan.adaptations)
    return out


def _period(days: int, lang: str) -> str:
    """The meal plan's heading: a day, a week, or N days of meals."""
    if days == 7:
        return _t(lang, "Your week of meals", "Votre semaine de repas")
    if days > 1:
        return _t(lang, f"Your {days} days of meals", f"Vos {days} jours de repas")
    return _t(lang, "Your day of meals", "Votre journée de repas")


def _next_days(plan: MealPlan, lang: str) -> list[str]:
    """The following days of a period, one line each: the meals by slot, the day's kcal and protein."""
    if not plan.next_days:
        return []
    out = ["", _t(lang, "### The following days", "### Les jours suivants")]
    colon, sep = _t(lang, ": ", " : "), _t(lang, "; ", " ; ")
    for number, day in enumerate(plan.next_days, start=2):
        meals = sep.join(f"{meal.slot} — {meal.name}" for meal in day.meals)
        total = _t(lang, f"~{_kcal(day.total_kcal, lang)} kcal · protein {day.total_protein_g} g",
                   f"~{_kcal(day.total_kcal, lang)} kcal · protéines {day.total_protein_g} g")
        out.append(_t(lang, f"- **Day {number}** ({total}){colon}{meals}", f"- **Jour {number}** ({total}){colon}{meals}"))
    return out


def render_meals(plan: MealPlan, c: Constraints) -> str:
    """The nutrition advisor's offline reply: targets, what was taken into account, the day(s), tips."""
    lang = plan.language
    out = _meals_heading(plan, c, lang)
    out += ["", *_meals_considered(plan, c, lang)]
    out += ["", *_meals_day(plan, lang), *_next_days(plan, lang)]
    out += _meals_tips(plan, lang)
    return "\n".join(out).strip() + "\n"


def _meals_heading(plan: MealPlan, c: Constraints, lang: str) -> list[str]:
    """The question about an unnamed allergy first (it changes every meal), then the period and daily targets."""
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
    out.append(f"## {_period(1 + len(plan.next_days), lang)} — {goal_label(plan.goal, lang)}")
    out.append(
        _t(
            lang,
            f"**Daily target: ~{_kcal(plan.target_kcal, lang)} kcal · protein ≥ {plan.target_protein_g} g · "
            f"carbs ~{plan.target_carbs_g} g · fat ~{plan.target_fat_g} g**",
            f"**Objectif quotidien : ~{_kcal(plan.target_kcal, lang)} kcal · protéines ≥ {plan.target_protein_g} g · "
            f"glucides ~{plan.target_carbs_g} g · lipides ~{plan.target_fat_g} g**",
        )
    )
    return out


def _meals_considered(plan: MealPlan, c: Constraints, lang: str) -> list[str]:
    """Every constraint collected so far, the training's ones included, so the person sees nothing was lost."""
    out = [_t(lang, "### What I took into account", "### Ce que j'ai pris en compte")]
    goal, food = goal_label(plan.goal, lang), _GOAL_FOOD[plan.goal]
    out.append(_t(lang, f"- Goal: {goal} → {food[0]}", f"- Objectif : {goal} → {food[1]}"))
    out.extend(
        f"- {line}" + _t(lang, " (respected in every meal)", " (respect garanti dans chaque repas)")
        for line in _food_constraint_lines(c, lang)
    )
    if c.injuries:
        out.append(
            _t(
                lang,
                f"- Injury noted ({_areas(c.injuries, lang)}) — handled in your training plan",
                f"- Blessure notée ({_areas(c.injuries, lang)}) — prise en compte dans votre entraînement",
            )
        )
    if c.target_kcal:
        out.append(_t(lang, f"- Your calorie target: {_kcal(c.target_kcal, lang)} kcal a day",
                      f"- Votre objectif calorique : {_kcal(c.target_kcal, lang)} kcal par jour"))
    if c.meals_per_day:
        out.append(_t(lang, f"- Meals per day: {c.meals_per_day}", f"- Repas par jour : {c.meals_per_day}"))
    if c.weight_change_kg and not c.target_weight_kg:
        change = abs(c.weight_change_kg)
        out.append(
            _t(lang, f"- Weight goal: {'lose' if c.weight_change_kg < 0 else 'gain'} {change:g} kg",
               f"- Objectif de poids : {'perdre' if c.weight_change_kg < 0 else 'prendre'} {change:g} kg")
        )
    if c.days_per_week:
        out.append(
            _t(lang, f"- Training {c.days_per_week} days a week", f"- Entraînement {c.days_per_week} jours par semaine")
        )
    return out


def _meals_day(plan: MealPlan, lang: str) -> list[str]:
    """The first day meal by meal (time, slot, kcal, protein, items), then its totals."""
    out = [_t(lang, "### Day 1" if plan.next_days else "### The day", "### Jour 1" if plan.next_days else "### La journée")]
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
    return out


def _meals_tips(plan: MealPlan, lang: str) -> list[str]:
    """How to close a protein gap the restrictions left (placed under the totals it is about), then the tips."""
    out: list[str] = []
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
    return [*out, "", _t(lang, "### Tips", "### Conseils"), f"- {plan.timing}", *(f"- {note}" for note in plan.notes)]


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


def describe_changes(before: Constraints, after: Constraints, lang: str) -> list[str]:
    """What the person's last message changed in the constraints, as short phrases."""
    out: list[str] = []

    def added(old: list[str], new: list[str]) -> list[str]:
        return [k for k in new if k not in old]

    if after.goal != before.goal and after.goal:
        out.append(_t(lang, f"goal: {goal_label(after.goal, lang)}", f"objectif : {goal_label(after.goal, lang)}"))
    if after.diet != before.diet and after.diet:
        out.append(_t(lang, f"diet: {_DIETS[after.diet][0]}", f"régime : {_DIETS[after.diet][1]}"))
    for label_en, label_fr, old, new in (
        ("allergy", "allergie", before.allergies, after.allergies),
        ("intolerance", "intolérance", before.intolerances, after.intolerances),
        ("left out", "exclu", before.avoid, after.avoid),
    ):
        if added(old, new):
            out.append(_t(lang, f"{label_en}: {_foods(added(old, new), lang)}", f"{label_fr} : {_foods(added(old, new), lang)}"))
    if added(before.injuries, after.injuries):
        areas = _areas(added(before.injuries, after.injuries), lang)
        out.append(_t(lang, f"injury: {areas}", f"blessure : {areas}"))
    healed = [k for k in before.injuries if k not in after.injuries and k != "unspecified"]
    if healed:
        out.append(_t(lang, f"healed: {_areas(healed, lang)}", f"guéri : {_areas(healed, lang)}"))
    numbers = (
        ("days_per_week", "days a week", "jours par semaine"),
        ("session_minutes", "min per session", "min par séance"),
        ("meals_per_day", "meals a day", "repas par jour"),
        ("target_kcal", "kcal a day", "kcal par jour"),
        ("weight_kg", "kg body weight", "kg de poids"),
        ("target_weight_kg", "kg target weight", "kg visés"),
    )
    for field, en, fr in numbers:
        value = getattr(after, field)
        if value and value != getattr(before, field):
            out.append(_t(lang, f"{value:g} {en}", f"{value:g} {fr}"))
    if after.equipment != before.equipment and after.equipment:
        out.append(_t(lang, f"equipment: {_EQUIPMENT[after.equipment][0]}", f"matériel : {_EQUIPMENT[after.equipment][1]}"))
    return out


def render_change_note(
    changes: list[str], plan_changed: bool, agent: str, lang: str, repeated: bool = False
) -> str:
    """The first line of an adjusted plan: what changed (or that nothing did), before any plan."""
    what = "; ".join(changes)
    meals = agent == "nutrition_advisor"
    if repeated:
        return _t(
            lang,
            f"**Nothing changed** in your {'meal plan' if meals else 'training plan'} — here it is again.\n",
            f"**Rien ne change** dans votre {'plan de repas' if meals else 'programme'} — le voici de nouveau.\n",
        )
    if plan_changed:
        return _t(
            lang,
            f"**What changed:** {what or 'your plan, from what you said'}. The updated "
            f"{'meal plan' if meals else 'plan'} follows.\n",
            f"**Ce qui change :** {what or 'votre plan, selon ce que vous avez dit'}. Le "
            f"{'plan de repas' if meals else 'programme'} mis à jour suit.\n",
        )
    if what:
        return _t(
            lang,
            f"**Noted:** {what}. Nothing changes in your {'meal plan' if meals else 'training plan'}: it "
            "already fits, so I haven't repeated it.\n",
            f"**C'est noté :** {what}. Rien ne change dans votre {'plan de repas' if meals else 'programme'} : "
            "il convient déjà, je ne le répète donc pas.\n",
        )
    return _t(
        lang,
        f"**Nothing changed** in your {'meal plan' if meals else 'training plan'}: it stands as above.\n",
        f"**Rien ne change** dans votre {'plan de repas' if meals else 'programme'} : il reste tel quel.\n",
    )
