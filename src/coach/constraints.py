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
from typing import Any, Literal

from pydantic import BaseModel, Field

from coach import _vocabulary as vocab
from coach._text import clauses as split_clauses
from coach._text import find_keywords, fold, has_any, normalize, only_emoji, tokens
from coach.keywords import NUTRITION_KEYWORDS, WORKOUT_KEYWORDS
from coach.language import Language, conversation_language

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

_NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "once": 1,
    "twice": 2,
    "un": 1,
    "une": 1,
    "deux": 2,
    "trois": 3,
    "quatre": 4,
    "cinq": 5,
    # "six" (FR) is the English key above
    "sept": 7,
    "eight": 8,
    "huit": 8,
}
_NUM = r"(?<![a-z0-9])(\d|one|two|three|four|five|six|seven|un|une|deux|trois|quatre|cinq|sept)"
_DAYS_RE = [
    re.compile(
        _NUM + r"\s*(?:x|times?|days?|sessions?|workouts?|jours?|fois|seances?|entrainements?)"
        r"(?:\s+(?:of\s+)?(?:training|workouts?|d entrainement|de sport|de musculation|at the gym))?"
        r"\s*(?:(?:a|per|each|every|par|dans\s+la|la|chaque)\s*)?(?:week|wk|semaine)"
    ),
    re.compile(r"(once|twice)\s+(?:a|per)\s+week"),
    re.compile(r"(?:train|training|workout|gym|go)\s+" + _NUM + r"\s+days"),
    # "a 3-day plan", "programme sur 4 jours", "5 day split" (not "in 3 days", "2 days ago")
    re.compile(
        r"(?<!\bin )(?<!\bdans )(?<!\bwithin )(?<!\bafter )(?<!\bapres )(?<!\brest )(?<!\brepos )"
        + _NUM + r"[\s-]*(?:days?|jours?)(?![\s-]*(?:ago|off|of rest|de repos|plus tard|later))"
    ),
]
_NUM_ANY = r"(?<![a-z0-9])(\d|one|two|three|four|five|six|seven|un|une|deux|trois|quatre|cinq|six|sept)"
_CARDIO_RE = re.compile(
    _NUM_ANY + r"\s+(?:x\s+)?(?:cardio|runs?|jogs?|rides?|swims?|sessions?\s+of\s+cardio|seances?\s+de\s+cardio"
    r"|sorties?|footings?|courses?\s+a\s+pied)"
)
_STRENGTH_RE = re.compile(
    _NUM_ANY + r"\s+(?:x\s+)?(?:strength|lifting|weights?|weight\s+training|gym|resistance|muscu\w*|renfo\w*"
    r"|seances?\s+de\s+(?:muscu\w*|renfo\w*|force))"
)
_MINUTES_RE = re.compile(
    r"(\d{2,3})\s*-?\s*(?:min|mins|minutes?)\b|(?<![a-z0-9])(an|one|1|une)\s+(?:hour|heure)\b"
    r"|(\d)\s*(?:h|hours?|heures?)\b(?!\s*\d)"
)
_MEALS_RE = re.compile(_NUM_ANY.replace("seven|", "seven|eight|").replace("sept)", "sept|huit)")
                       + r"\s+(?:meals?|repas|prises?\s+alimentaires?)")
_KCAL_RE = re.compile(r"(\d[\d\s.,]{2,5})\s*(?:kcal|calories|cal)\b")
_TARGET_WEIGHT_RE = re.compile(
    r"(?:reach|get\s+(?:down\s+|up\s+)?to|down\s+to|up\s+to|goal\s+weight\s+(?:of\s+|is\s+)?|target\s+(?:weight\s+)?(?:of\s+|is\s+)?"
    r"|atteindre|arriver\s+a|descendre\s+a|monter\s+a|objectif\s+(?:de\s+)?)\s*(\d{2,3}(?:[.,]\d)?)\s*(kg|kgs|kilos?|lbs?|pounds?)"
)
_WEIGHT_CHANGE_RE = re.compile(
    r"(lose|drop|shed|perdre|gain|put\s+on|prendre)\s+(\d{1,2}(?:[.,]\d)?)\s*(kg|kgs|kilos?|lbs?|pounds?)"
)


def _number(word: str) -> int | None:
    return int(word) if word.isdigit() else _NUMBER_WORDS.get(word)


def _counts(norm: str) -> tuple[int | None, int | None, int | None, int | None]:
    """(strength sessions, cardio sessions, minutes per session, meals per day) stated in `norm`."""
    strength = cardio = minutes = meals = None
    if m := _STRENGTH_RE.search(norm):
        strength = _number(m.group(1))
    if m := _CARDIO_RE.search(norm):
        cardio = _number(m.group(1))
    for m in _MINUTES_RE.finditer(norm):
        value = int(m.group(1)) if m.group(1) else (60 if m.group(2) else int(m.group(3)) * 60)
        if 10 <= value <= 180:
            minutes = value
    if m := _MEALS_RE.search(norm):
        value = _number(m.group(1))
        meals = value if value and 1 <= value <= 8 else None
    return strength, cardio, minutes, meals


def _kg(value: str, unit: str) -> float:
    kg = float(value.replace(",", "."))
    return kg / 2.2046 if unit.startswith(("lb", "pound")) else kg


def _targets(text: str) -> tuple[int | None, float | None, float | None]:
    """(daily kcal, target weight kg, weight change kg) stated in `text`."""
    norm = fold(text)
    kcal = None
    for m in _KCAL_RE.finditer(norm):
        value = int(re.sub(r"[\s.,]", "", m.group(1)) or 0)
        if 1000 <= value <= 6000:
            kcal = value
    target = None
    if m := _TARGET_WEIGHT_RE.search(norm):
        value = _kg(m.group(1), m.group(2))
        target = round(value, 1) if 35 <= value <= 250 else None
    change = None
    if m := _WEIGHT_CHANGE_RE.search(norm):
        sign = -1 if m.group(1) in ("lose", "drop", "shed", "perdre") else 1
        change = round(sign * _kg(m.group(2), m.group(3)), 1)
    return kcal, target, change

_WEIGHT_RE = re.compile(
    r"(\d{2,3}(?:[.,]\d)?)\s*(kg|kgs|kilos?|kilogrammes?|kilograms?|lbs?|pounds?|livres)\b"
)


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


def _days(norm: str) -> int | None:
    for regex in _DAYS_RE:
        matches = list(regex.finditer(norm))
        if matches:
            word = matches[-1].group(1)
            value = int(word) if word.isdigit() else _NUMBER_WORDS.get(word)
            if value and 1 <= value <= 7:
                return value
    if has_any(norm, vocab.DAILY):
        return 6
    return None


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


def _weight(text: str) -> float | None:
    norm = fold(text)
    targets = [t.span(1) for t in _TARGET_WEIGHT_RE.finditer(norm)]
    for m in _WEIGHT_RE.finditer(norm):
        before = set(norm[: m.start()].split()[-3:])
        if before & vocab.WEIGHT_CHANGE or any(a <= m.start() < b for a, b in targets):
            continue
        value = float(m.group(1).replace(",", "."))
        if m.group(2).startswith(("lb", "pound", "livre")):
            value = value / 2.2046
        if 35 <= value <= 250:
            return round(value, 1)
    return None


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


def extract_constraints(texts: Iterable[str], language: Language | None = None) -> Constraints:
    """Constraints stated across `texts` (the person's messages, oldest first)."""
    texts = [t for t in texts if t and t.strip()]
    goal_signals: set[str] = set()
    days: int | None = None
    equipment: Equipment | None = None
    injuries: set[str] = set()
    diet: Diet | None = None
    allergies: set[str] = set()
    intolerances: set[str] = set()
    avoid: set[str] = set()
    weight: float | None = None
    strength = cardio = minutes = meals = kcal = None
    target: float | None = None
    change: float | None = None
    for text in texts:
        norm = normalize(text)
        s, c, mins, n_meals = _counts(norm)
        if s is not None or c is not None:  # a new split replaces the old one as a whole
            strength, cardio = s, c
        minutes, meals = mins or minutes, n_meals or meals
        k, t, ch = _targets(text)
        kcal, target, change = k or kcal, t or target, ch or change
        if ch and not _goal_signals(norm):
            goal_signals = {"fat_loss" if ch < 0 else "muscle"}
        signals = _goal_signals(norm)
        if signals:
            if has_any(norm, vocab.GOAL_CHANGE):
                goal_signals = set()
            goal_signals |= signals
        days = _days(norm) or days
        equipment = _equipment(norm) or equipment
        weight = _weight(text) or weight
        for clause in split_clauses(text):
            cnorm = normalize(clause)
            added, healed = _injury_updates(cnorm, pending="unspecified" in injuries)
            injuries -= healed
            if added - {"unspecified"}:
                injuries.discard("unspecified")
                injuries |= added
            elif added and not injuries:
                injuries.add("unspecified")
            named, negated = _diet(cnorm)
            if named and not negated:
                diet = named
            elif named and negated and diet == named:
                diet = "omnivore"
            if _is_allergy_free_statement(cnorm):
                continue
            pending = ("allergy" if "unspecified" in allergies
                       else "intolerance" if "unspecified" in intolerances else None)
            a, i, v, unspecified_a, unspecified_i = _food_updates(cnorm, pending=pending)
            if a:
                allergies.discard("unspecified")
            if i:
                intolerances.discard("unspecified")
            allergies |= a
            intolerances |= i
            avoid |= v
            if unspecified_a and not allergies:
                allergies.add("unspecified")
            if unspecified_i and not intolerances:
                intolerances.add("unspecified")
    if not goal_signals and target and weight and target != weight:
        goal_signals = {"fat_loss" if target < weight else "muscle"}
    lang = language or conversation_language(texts)
    return Constraints(
        goal=goal_from(goal_signals),
        days_per_week=days,
        equipment=equipment,
        injuries=sorted(injuries),
        diet=diet,
        allergies=sorted(allergies),
        intolerances=sorted(intolerances - allergies),
        avoid=sorted(avoid - allergies - intolerances),
        weight_kg=weight,
        strength_per_week=strength,
        cardio_per_week=cardio,
        session_minutes=minutes,
        meals_per_day=meals,
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
