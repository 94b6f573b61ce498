"""What the person told us so far — goal, schedule, equipment, injuries, diet — read from the
whole conversation, in English or French.

Why rules and not a model: the offline engine and the tools must honour a constraint said
three messages ago without any model, and the same conversation must always give the same
constraints. Later statements win (a new diet, "my knee is fine now"); injuries and allergies
accumulate; negations ("no injuries", "I'm not vegetarian") are respected.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field

from coach import _vocabulary as vocab
from coach._text import clauses as split_clauses
from coach._text import find_keywords, has_any, normalize, only_emoji, tokens
from coach.keywords import NUTRITION_KEYWORDS, WORKOUT_KEYWORDS
from coach.language import Language, conversation_language
from coach.quantities import body_weight, days_per_week, meal_days, session_counts, stated_targets

Goal = Literal["muscle", "fat_loss", "endurance", "mixed", "general"]
Equipment = Literal["gym", "dumbbells", "bodyweight"]
Diet = Literal["omnivore", "pescatarian", "vegetarian", "vegan"]

INJURY_AREAS = ("knee", "shoulder", "back", "wrist", "ankle", "hip", "elbow", "neck")
ALLERGENS = (
    "peanuts",
    "tree_nuts",
    "dairy",
    "lactose",
    "eggs",
    "gluten",
    "soy",
    "fish",
    "shellfish",
    "sesame",
)
AVOIDABLE = ALLERGENS + ("meat", "pork", "red_meat", "poultry")


class Constraints(BaseModel):
    """Everything the tools and the offline replies must respect."""

    goal: Goal | None = None
    days_per_week: int | None = Field(None, ge=1, le=7)
    equipment: Equipment | None = None
    injuries: list[str] = Field(default_factory=list)
    diet: Diet | None = None
    allergies: list[str] = Field(default_factory=list)
    intolerances: list[str] = Field(default_factory=list)
    avoid: list[str] = Field(default_factory=list)
    weight_kg: float | None = None
    # numbers the person gave: total sessions a week is `days_per_week` (strength and cardio
    # counted together); `strength_per_week` / `cardio_per_week` only when they split them
    strength_per_week: int | None = Field(None, ge=0, le=7)
    cardio_per_week: int | None = Field(None, ge=0, le=7)
    session_minutes: int | None = Field(None, ge=10, le=180)
    meals_per_day: int | None = Field(None, ge=1, le=8)
    meal_days: int | None = Field(None, ge=1, le=7)  # meals asked for a period: "for the week" → 7
    target_kcal: int | None = Field(None, ge=1000, le=6000)
    target_weight_kg: float | None = None
    weight_change_kg: float | None = None  # "lose 5 kg" → -5, "gain 3 kg" → +3
    language: Language = "en"

    def food_exclusions(self) -> set[str]:
        """Every food tag that must never appear in a meal (diet + allergies + intolerances)."""
        excluded = set(self.allergies) | set(self.intolerances) | set(self.avoid)
        excluded |= diet_exclusions(self.diet)
        if "dairy" in excluded:
            excluded.add("lactose")
        excluded.discard("unspecified")
        return excluded


def diet_exclusions(diet: str | None) -> set[str]:
    """Food tags a diet rules out."""
    meat = {"meat", "pork", "red_meat", "poultry"}
    if diet == "pescatarian":
        return meat
    if diet == "vegetarian":
        return meat | {"fish", "shellfish"}
    if diet == "vegan":
        return meat | {"fish", "shellfish", "dairy", "lactose", "eggs", "honey"}
    return set()


# --- vocabulary (accent-free, notation of coach._text) -----------------------------------------

def _negated(norm: str, start: int, window: int = 3) -> bool:
    """A negation word among the `window` tokens just before position `start`."""
    before = norm[:start].split()[-window:]
    return any(tok in vocab.NEGATIONS for tok in before)


def _goal_signals(norm: str) -> set[str]:
    found: set[str] = set()
    for goal, words in vocab.GOAL_WORDS.items():
        for hit in find_keywords(norm, words):
            if not _negated(norm, hit.start, 2):
                found.add(goal)
                break
    return found


def goal_from(signals: set[str]) -> Goal | None:
    """Combine goal signals: muscle + fat loss is the classic 'recomposition' (`mixed`)."""
    if not signals:
        return None
    if len(signals) == 1:
        return next(iter(signals))  # type: ignore[return-value]
    return "mixed"


def _equipment(norm: str) -> Equipment | None:
    for kind in ("dumbbells", "bodyweight", "gym"):
        if has_any(norm, vocab.EQUIPMENT_WORDS[kind]):
            return kind  # type: ignore[return-value]
    return None


def _injury_updates(clause_norm: str, pending: bool = False) -> tuple[set[str], set[str]]:
    """(areas added, areas healed) for one clause; `pending`: an unnamed injury awaits its area."""
    parts = {area for area, words in vocab.BODY_PART_WORDS.items() if has_any(clause_norm, words)}
    cues = find_keywords(clause_norm, vocab.INJURY_CUES)
    if parts and has_any(clause_norm, vocab.HEALED):
        return set(), parts
    if not cues:
        # "back squat", "come back": a body word alone is not an injury — unless we just asked
        # "which area?" and this is the answer ("the knee")
        return (parts, set()) if pending and len(tokens(clause_norm)) <= 6 else (set(), set())
    if all(_negated(clause_norm, cue.start) for cue in cues):
        return set(), parts  # "no injuries", "my knee doesn't hurt"
    if parts:
        return parts, set()
    if has_any(clause_norm, ("injur*", "bless*")):
        return {"unspecified"}, set()
    return set(), set()


def _diet(clause_norm: str) -> tuple[Diet | None, bool]:
    """(diet named in the clause, negated?) — "I'm not vegan any more" is (vegan, True)."""
    for diet, words in (
        ("vegan", vocab.VEGAN),
        ("pescatarian", vocab.PESCATARIAN),
        ("vegetarian", vocab.VEGETARIAN),
        ("omnivore", vocab.OMNIVORE),
    ):
        hits = find_keywords(clause_norm, words)
        if not hits:
            continue
        intrinsic = any(tok in vocab.NEGATIONS for tok in hits[0].keyword.split())
        negated = not intrinsic and _negated(clause_norm, hits[0].start, 3)
        return diet, negated  # type: ignore[return-value]
    return None, False


_GENERIC_NUTS = {"nuts", "nut", "noix", "fruits a coque"}
_NOT_ALLERGENS = {"pork", "red_meat", "poultry"}


def _near_avoid_cue(clause_norm: str, start: int, end: int) -> bool:
    """'no dairy', 'sans gluten', 'avoid eggs', 'dairy-free', 'gluten free'."""
    before = clause_norm[max(0, start - 28) : start]
    after = clause_norm[end : end + 7]
    return has_any(before, vocab.AVOID_CUES) or bool(re.match(r"[\s\-]*free\b", after))


def _food_updates(
    clause_norm: str, pending: str | None = None
) -> tuple[set[str], set[str], set[str], bool, bool]:
    """(allergies, intolerances, avoid, unspecified allergy?, unspecified intolerance?).

    Each food word takes the kind of the nearest cue before it (else after it), so
    "allergic to peanuts, lactose intolerant" gives one allergy and one intolerance. With
    `pending` ("allergy" or "intolerance" announced without its food), a bare food word answers it.
    """
    cues: list[tuple[int, str]] = []
    for kind, words in (("allergy", vocab.ALLERGY_CUES), ("intolerance", vocab.INTOLERANCE_CUES)):
        for cue in find_keywords(clause_norm, words):
            cues.append((cue.start, "negated" if _negated(clause_norm, cue.start) else kind))
    cues.sort()
    out: dict[str, set[str]] = {"allergy": set(), "intolerance": set(), "avoid": set()}
    found = False
    for key, words in vocab.FOOD_WORDS.items():
        for hit in find_keywords(clause_norm, words):
            found = True
            keys = {key, "peanuts"} if hit.keyword in _GENERIC_NUTS else {key}
            before = [k for pos, k in cues if pos <= hit.start]
            after = [k for pos, k in cues if pos > hit.start]
            kind = before[-1] if before else (after[0] if after else None)
            if kind == "negated":
                continue
            if kind is None:
                if _near_avoid_cue(clause_norm, hit.start, hit.end):
                    kind = "avoid"
                elif pending and key not in _NOT_ALLERGENS:
                    kind = pending
                else:
                    continue
            if key in _NOT_ALLERGENS:
                kind = "avoid"
            out[kind] |= keys
    allergies, intolerances, avoid = out["allergy"], out["intolerance"], out["avoid"]
    if "gluten" in allergies and has_any(
        clause_norm, ("coeliac", "celiac", "coeliaque", "celiaque")
    ):
        allergies.discard("gluten")
        intolerances.add("gluten")
    kinds = {k for _, k in cues}
    return (
        allergies,
        intolerances,
        avoid,
        "allergy" in kinds and not found,
        "intolerance" in kinds and not found,
    )


def _is_allergy_free_statement(clause_norm: str) -> bool:
    return has_any(
        clause_norm,
        (
            "no allerg*",
            "not allergic",
            "aucune allergie",
            "pas d allergie",
            "pas allergique",
            "no food allerg*",
            "no intoleranc*",
        ),
    )


@dataclass
class _Restrictions:
    """Injuries, diet and foods to avoid, updated clause by clause (later statements win)."""

    injuries: set[str] = field(default_factory=set)
    diet: Diet | None = None
    allergies: set[str] = field(default_factory=set)
    intolerances: set[str] = field(default_factory=set)
    avoid: set[str] = field(default_factory=set)

    def read(self, cnorm: str) -> None:
        added, healed = _injury_updates(cnorm, pending="unspecified" in self.injuries)
        self.injuries -= healed
        if added - {"unspecified"}:
            self.injuries.discard("unspecified")
            self.injuries |= added
        elif added and not self.injuries:
            self.injuries.add("unspecified")
        named, negated = _diet(cnorm)
        if named and not negated:
            self.diet = named
        elif named and negated and self.diet == named:
            self.diet = "omnivore"
        if _is_allergy_free_statement(cnorm):
            return
        pending = ("allergy" if "unspecified" in self.allergies
                   else "intolerance" if "unspecified" in self.intolerances else None)
        a, i, v, unspecified_a, unspecified_i = _food_updates(cnorm, pending=pending)
        if a:
            self.allergies.discard("unspecified")
        if i:
            self.intolerances.discard("unspecified")
        self.allergies |= a
        self.intolerances |= i
        self.avoid |= v
        if unspecified_a and not self.allergies:
            self.allergies.add("unspecified")
        if unspecified_i and not self.intolerances:
            self.intolerances.add("unspecified")


def extract_constraints(texts: Iterable[str], language: Language | None = None) -> Constraints:
    """Constraints stated across `texts` (the person's messages, oldest first)."""
    texts = [t for t in texts if t and t.strip()]
    goal_signals: set[str] = set()
    days: int | None = None
    equipment: Equipment | None = None
    said = _Restrictions()
    weight: float | None = None
    strength = cardio = minutes = meals = kcal = None
    period: int | None = None
    target: float | None = None
    change: float | None = None
    for text in texts:
        norm = normalize(text)
        s, c, mins, n_meals = session_counts(norm)
        if s is not None or c is not None:  # a new split replaces the old one as a whole
            strength, cardio = s, c
        minutes, meals = mins or minutes, n_meals or meals
        k, t, ch = stated_targets(text)
        kcal, target, change = k or kcal, t or target, ch or change
        if ch and not _goal_signals(norm):
            goal_signals = {"fat_loss" if ch < 0 else "muscle"}
        signals = _goal_signals(norm)
        if signals:
            if has_any(norm, vocab.GOAL_CHANGE):
                goal_signals = set()
            goal_signals |= signals
        days = days_per_week(norm) or days
        equipment = _equipment(norm) or equipment
        weight = body_weight(text) or weight
        for clause in split_clauses(text):
            said.read(normalize(clause))
            period = meal_days(normalize(clause)) or period
    if not goal_signals and target and weight and target != weight:
        goal_signals = {"fat_loss" if target < weight else "muscle"}
    lang = language or conversation_language(texts)
    return Constraints(
        goal=goal_from(goal_signals),
        days_per_week=days,
        equipment=equipment,
        injuries=sorted(said.injuries),
        diet=said.diet,
        allergies=sorted(said.allergies),
        intolerances=sorted(said.intolerances - said.allergies),
        avoid=sorted(said.avoid - said.allergies - said.intolerances),
        weight_kg=weight,
        strength_per_week=strength,
        cardio_per_week=cardio,
        session_minutes=minutes,
        meals_per_day=meals,
        meal_days=period,
        target_kcal=kcal,
        target_weight_kg=target,
        weight_change_kg=change,
        language=lang,
    )


def human_texts(messages: Iterable[Any]) -> list[str]:
    """The person's messages (LangChain messages or dicts with role/content), oldest first."""
    out: list[str] = []
    for message in messages:
        role = getattr(message, "type", None)
        content: Any = getattr(message, "content", None)
        if role is None and isinstance(message, dict):
            role = {"user": "human"}.get(message.get("role", ""), message.get("role"))
            content = message.get("content")
        if role != "human":
            continue
        if isinstance(content, list):
            content = " ".join(
                b.get("text", "") if isinstance(b, dict) else str(b) for b in content
            )
        out.append(str(content or ""))
    return out


def constraints_from_messages(messages: Iterable[Any]) -> Constraints:
    """Constraints from a LangGraph message list (only the person's messages count)."""
    return extract_constraints(human_texts(messages))


def is_acknowledgement(text: str) -> bool:
    """'Nothing to add', 'thanks', 'ok', '👍' — a reply that asks for nothing new."""
    if only_emoji(text, vocab.APPROVAL_EMOJI):
        return True
    norm = normalize(text)
    toks = tokens(text)
    if not toks or len(toks) > 8 or "?" in text:
        return False
    if has_any(norm, WORKOUT_KEYWORDS) or has_any(norm, NUTRITION_KEYWORDS):
        return False
    return has_any(
        norm,
        (
            "nothing to add",
            "nothing else",
            "nothing more",
            "that s all",
            "that s it",
            "all good",
            "looks good",
            "sounds good",
            "perfect",
            "great",
            "thanks",
            "thank you",
            "ok",
            "okay",
            "cool",
            "fine",
            "no thanks",
            "rien a ajouter",
            "rien d autre",
            "c est tout",
            "parfait",
            "merci",
            "d accord",
            "ca marche",
            "super",
            "top",
            "nickel",
            "non merci",
        ),
    )
