"""The rule-based workout provider: goal, days, equipment and injuries → a week of training.

Deterministic on purpose (the seed's "rule-based tools"): the same constraints always give the
same programme, every injury rule is a tag filter over the exercise catalogue, and a real API
can replace this class behind `coach.plans.WorkoutProvider`.
"""

from __future__ import annotations

from coach import workout_tables as tables
from coach._exercises import (
    CARDIO,
    INJURY_EXCLUDES,
    INJURY_NOTES,
    PATTERNS,
    CardioMode,
    Exercise,
)
from coach.plans import CardioSession, ExerciseItem, Session, WorkoutPlan, WorkoutRequest


def _t(lang: str, en: str, fr: str) -> str:
    return fr if lang == "fr" else en


def excluded_tags(injuries: list[str]) -> set[str]:
    """Every exercise tag the injuries rule out."""
    out: set[str] = set()
    for area in injuries:
        out |= INJURY_EXCLUDES.get(area, INJURY_EXCLUDES["unspecified"])
    return out


def candidates(pattern: str, equipment: str, excluded: set[str]) -> list[Exercise]:
    """Exercises of a movement pattern doable with `equipment` and safe for the injuries."""
    return [e for e in PATTERNS[pattern] if equipment in e.equipment and not (e.tags & excluded)]


def cardio_mode(kind: str, equipment: str, excluded: set[str]) -> CardioMode:
    """The preferred cardio activity of `kind` given equipment and injuries (bike/cycling is safe)."""
    by_key = {m.key: m for m in CARDIO}
    for key in tables.CARDIO_PREFERENCE[kind]:
        mode = by_key[key]
        if equipment in mode.equipment and not (mode.tags & excluded):
            return mode
    return by_key["bike"] if equipment == "gym" else by_key["cycling"]


def _dose(ex: Exercise, goal: str, lang: str) -> str:
    if ex.dose_en:
        return _t(lang, ex.dose_en, ex.dose_fr or ex.dose_en)
    if ex.kind in ("core", "conditioning"):
        return "3 × 30 s"
    return tables.DOSES[goal].get(ex.kind, tables.DOSES[goal]["accessory"])


def _session(template: str, goal: str, equipment: str, excluded: set[str], lang: str) -> Session:
    (title_en, title_fr), slots = tables.TEMPLATES[template]
    if goal == "fat_loss":
        slots = slots + [("conditioning", 0)]
    used: set[str] = set()
    items: list[ExerciseItem] = []
    for pattern, variant in slots:
        options = candidates(pattern, equipment, excluded)
        if not options:
            continue
        ordered = options[variant % len(options) :] + options[: variant % len(options)]
        choice = next((e for e in ordered if e.key not in used and e.en not in used), None)
        if choice is None:
            continue
        used |= {choice.key, choice.en}
        items.append(
            ExerciseItem(
                key=choice.key,
                name=_t(lang, choice.en, choice.fr),
                sets_reps=_dose(choice, goal, lang),
                tags=sorted(choice.tags),
            )
        )
    return Session(title=_t(lang, title_en, title_fr), exercises=items)


def _volume(
    goal: str, days: int | None, strength_req: int | None = None, cardio_req: int | None = None
) -> tuple[int, int, int]:
    """(strength days, separate cardio days, cardio finishers after lifting).

    The person's numbers are honoured: `days` is the total of sessions a week, strength and
    cardio counted together (a finisher rides on a strength day, it adds no day); a stated split
    ("3 strength + 2 cardio") wins over the goal's defaults.
    """
    d_strength, d_cardio = tables.DEFAULT_VOLUME[goal]
    if days is None and strength_req is None and cardio_req is None:
        return d_strength, d_cardio, 0
    if strength_req is not None or cardio_req is not None:
        if strength_req is not None and cardio_req is not None:
            strength, cardio = strength_req, cardio_req
        elif cardio_req is not None:
            cardio = min(cardio_req, days) if days else cardio_req
            strength = (days - cardio) if days else d_strength
        else:
            strength = min(strength_req or 0, days) if days else (strength_req or 0)
            cardio = (days - strength) if days else 0
        strength = min(strength, 6)
        cardio = min(cardio, 7 - strength)
        finishers = 0 if cardio or cardio_req is not None else min(d_cardio, strength)
        return strength, cardio, finishers
    assert days is not None
    if goal == "endurance":
        strength = min(days, 1 if days <= 3 else 2)
        separate = days - strength
        return strength, separate, 0 if separate else 1
    strength = min(days, 6 if goal == "muscle" else d_strength)
    separate = min(d_cardio, days - strength)
    left = days - strength - separate  # more days than the defaults: lift more, then more cardio
    more = min(left, 6 - strength) if goal in ("muscle", "mixed") else 0
    strength, separate = strength + more, separate + left - more
    return strength, separate, min(max(0, d_cardio - separate), strength)


_MINUTES_PER_EXERCISE = 8  # 3–4 sets with rest
_WARM_UP_MIN, _FINISHER_MIN = 5, 20


def _fit_minutes(session: Session, minutes: int | None) -> None:
    """Keep the first exercises (the main lifts come first) that fit in the session's minutes."""
    if not minutes:
        return
    budget = minutes - _WARM_UP_MIN - (_FINISHER_MIN if session.finisher else 0)
    keep = max(2, budget // _MINUTES_PER_EXERCISE)
    session.exercises = session.exercises[:keep]


def _cardio_minutes(kind: str, minutes: int, lang: str) -> str:
    """A cardio prescription that fits in `minutes`."""
    hard = max(4, (minutes - 10) // 2)
    texts = {
        "steady": (f"{minutes} min at a conversational pace (zone 2)", f"{minutes} min à allure conversationnelle (zone 2)"),
        "long": (f"{minutes} min easy (zone 2)", f"{minutes} min facile (zone 2)"),
        "intervals": (
            f"{minutes} min: 5 easy, {hard} × (1 min hard / 1 min easy), then easy to the end",
            f"{minutes} min : 5 facile, {hard} × (1 min rapide / 1 min facile), puis facile jusqu'au bout",
        ),
        "tempo": (
            f"{minutes} min: easy start, {max(5, minutes // 2)} min comfortably hard, easy finish",
            f"{minutes} min : départ facile, {max(5, minutes // 2)} min soutenu, fin facile",
        ),
    }
    return _t(lang, *texts.get(kind, texts["steady"]))


def _spread(strength: list[str], cardio: list[str]) -> list[str]:
    """Interleave cardio days evenly between strength days."""
    total = len(strength) + len(cardio)
    positions = (
        {int((i + 1) * total / len(cardio) + 0.5) - 1 for i in range(len(cardio))}
        if cardio
        else set()
    )
    out: list[str] = []
    s_iter, c_iter = iter(strength), iter(cardio)
    for pos in range(total):
        out.append(next(c_iter) if pos in positions else next(s_iter, None) or next(c_iter))
    return out


def _cardio_sessions(request: WorkoutRequest, excluded: set[str], cardio_days: int,
                     finishers: int) -> list[CardioSession]:
    """The week's cardio: separate sessions first, then short finishers for strength days."""
    lang, goal, equipment = request.language, request.goal, request.equipment
    cardio_specs = (tables.CARDIO_PLAN[goal] * 7)[: cardio_days + finishers]
    cardio: list[CardioSession] = []
    for index, (kind, title_en, title_fr, presc_en, presc_fr) in enumerate(cardio_specs):
        mode = cardio_mode(kind, equipment, excluded)
        if request.session_minutes:
            fits = request.session_minutes if index < cardio_days else _FINISHER_MIN
            presc_en = presc_fr = _cardio_minutes(kind, fits, lang)
        cardio.append(
            CardioSession(
                title=_t(lang, title_en, title_fr),
                activity=_t(lang, mode.en, mode.fr),
                activity_key=mode.key,
                prescription=_t(lang, presc_en, presc_fr),
                tags=sorted(mode.tags),
            )
        )
    return cardio


def _notes(request: WorkoutRequest, strength_days: int, cardio_days: int) -> tuple[list[str], list[str]]:
    """(adaptations to the injuries, assumptions the plan made)."""
    lang, injuries = request.language, request.injuries
    adaptations = [_t(lang, *INJURY_NOTES[a]) for a in injuries if a in INJURY_NOTES]
    if injuries:
        adaptations.append(
            _t(
                lang,
                "Stop any movement that hurts and check with a physiotherapist.",
                "Arrêtez tout mouvement douloureux et demandez l'avis d'un kinésithérapeute.",
            )
        )
    assumptions: list[str] = []
    if request.days_per_week is None and request.strength_per_week is None and request.cardio_per_week is None:
        assumptions.append(
            _t(
                lang,
                f"Assumed {strength_days} strength days + {cardio_days} cardio sessions a week — "
                "tell me how many days you have and I'll fit the plan.",
                f"Hypothèse : {strength_days} séances de renforcement + {cardio_days} de cardio par semaine — "
                "dites-moi combien de jours vous avez et j'adapte le plan.",
            )
        )
    return adaptations, assumptions


class RuleBasedWorkoutProvider:
    """Keyword-and-table rules; replace with any `WorkoutProvider` (e.g. a fitness API)."""

    def workout_plan(self, request: WorkoutRequest) -> WorkoutPlan:
        lang, goal, equipment = request.language, request.goal, request.equipment
        injuries = request.injuries
        excluded = excluded_tags(injuries)
        strength_days, cardio_days, finishers = _volume(
            goal, request.days_per_week, request.strength_per_week, request.cardio_per_week
        )
        (split_en, split_fr), templates = tables.SPLITS[strength_days] if strength_days else (("", ""), [])
        sessions = [_session(t, goal, equipment, excluded, lang) for t in templates]

        cardio = _cardio_sessions(request, excluded, cardio_days, finishers)

        # finishers ride on the last strength days; separate cardio days are spread in between
        separate, attached = cardio[:cardio_days], cardio[cardio_days:]
        for session, extra in zip(reversed(sessions), attached):
            colon = " : " if lang == "fr" else ": "
            session.finisher = f"{extra.title} — {extra.activity}{colon}{extra.prescription}"
        for session in sessions:
            _fit_minutes(session, request.session_minutes)
        labels = [
            s.title + (f" + {s.finisher.split(' — ')[0]}" if s.finisher else "") for s in sessions
        ]
        order = _spread(labels, [f"{c.title} — {c.activity}" for c in separate])
        day_names = tables.DAY_NAMES[lang]
        slots = tables.DAY_SLOTS[min(7, len(order))] if order else []
        by_day = {slot: label for slot, label in zip(slots, order)}
        rest = _t(lang, "Rest or a walk", "Repos ou marche")
        schedule = [f"{day_names[i]} — {by_day.get(i, rest)}" for i in range(7)]

        adaptations, assumptions = _notes(request, strength_days, cardio_days)
        return WorkoutPlan(
            goal=goal,
            equipment=equipment,
            injuries=list(injuries),
            strength_days=strength_days,
            split=_t(lang, split_en, split_fr) or _t(lang, "Cardio only", "Cardio uniquement"),
            session_minutes=request.session_minutes,
            sessions_per_week=strength_days + cardio_days,
            sessions=sessions,
            cardio=cardio,
            schedule=schedule,
            rest=_t(lang, *tables.REST[goal]),
            progression=_t(lang, *tables.PROGRESSION),
            adaptations=adaptations,
            assumptions=assumptions,
            language=lang,
        )
