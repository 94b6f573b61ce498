"""Numbers a person states about training and food, read from folded text (EN/FR): sessions per
week, minutes per session, meals per day, daily kcal, body weight, a target weight or change."""

from __future__ import annotations

import re

from coach import _vocabulary as vocab
from coach._text import fold, has_any

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
# a period of meals: "meals for the week", "repas pour la semaine", "menus de la semaine", "a weekly
# meal plan", "3 days of meals", "repas sur 5 jours" (a food word and a period in one clause)
_FOOD_WORDS = r"(?:meals?|menus?|eat|eating|food|diet|repas|manger|alimentation|nutrition)"
_WEEK_RE = re.compile(
    r"(?:(?:for|of|over)\s+(?:the|a|this|next|my)?\s*(?:whole\s+|entire\s+)?week|weekly|whole\s+week"
    r"|(?:pour|de|sur)\s+(?:la|une|cette|toute\s+la)\s+semaine|hebdomadaires?|toute\s+la\s+semaine)"
)
_MEAL_DAYS_RE = re.compile(_NUM_ANY + r"\s+(?:days?|jours?|journees?)\s+(?:of\s+|de\s+)?" + _FOOD_WORDS
                           + r"|" + _FOOD_WORDS + r"\b.*?(?:for|over|pour|sur)\s+" + _NUM_ANY + r"\s+(?:days?|jours?)")
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


def session_counts(norm: str) -> tuple[int | None, int | None, int | None, int | None]:
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


def stated_targets(text: str) -> tuple[int | None, float | None, float | None]:
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


def days_per_week(norm: str) -> int | None:
    """Training days per week stated in `norm` ("3x a week", "a 4-day plan", "every day": 6)."""
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


def body_weight(text: str) -> float | None:
    """The person's own weight in kg (not a target or a change), if stated."""
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


def meal_days(norm: str) -> int | None:
    """Days of meals asked for in one clause (`None`: no period, the plan is a day)."""
    if not re.search(r"\b" + _FOOD_WORDS + r"\b", norm):
        return None
    if m := _MEAL_DAYS_RE.search(norm):
        value = _number(m.group(1) or m.group(2))
        return value if value and 1 <= value <= 7 else None
    return 7 if _WEEK_RE.search(norm) else None
