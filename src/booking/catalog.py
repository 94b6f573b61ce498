"""The studio's weekly timetable, and reading activities and days from a request (EN/FR).

Deterministic on purpose: the offline engine and the tests read the same schedule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from relais.language import fold_accents

DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY_WORDS = {
    "monday": "monday", "lundi": "monday", "tuesday": "tuesday", "mardi": "tuesday",
    "wednesday": "wednesday", "mercredi": "wednesday", "thursday": "thursday", "jeudi": "thursday",
    "friday": "friday", "vendredi": "friday", "saturday": "saturday", "samedi": "saturday",
    "sunday": "sunday", "dimanche": "sunday",
}
DAY_LABELS = {
    "en": {d: d.capitalize() for d in DAYS},
    "fr": dict(zip(DAYS, ("lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"))),
}
ACTIVITIES = ("yoga", "pilates", "spinning", "boxing", "swimming")
_ACTIVITY_WORDS = {
    "yoga": "yoga", "pilates": "pilates", "spinning": "spinning", "spin": "spinning", "velo": "spinning",
    "cycling": "spinning", "boxing": "boxing", "boxe": "boxing", "swimming": "swimming", "swim": "swimming",
    "natation": "swimming", "piscine": "swimming",
}
ACTIVITY_LABELS = {
    "en": {a: a for a in ACTIVITIES},
    "fr": {"yoga": "yoga", "pilates": "pilates", "spinning": "vélo (spinning)", "boxing": "boxe",
           "swimming": "natation"},
}


@dataclass(frozen=True)
class StudioClass:
    """One weekly class: what, which day, at what time, how many places."""

    activity: str
    day: str
    time: str
    places: int = 12


TIMETABLE: tuple[StudioClass, ...] = (
    StudioClass("yoga", "monday", "18:00"), StudioClass("yoga", "wednesday", "07:30"),
    StudioClass("yoga", "saturday", "10:00"), StudioClass("pilates", "tuesday", "12:15"),
    StudioClass("pilates", "thursday", "18:30"), StudioClass("spinning", "monday", "07:00"),
    StudioClass("spinning", "friday", "19:00"), StudioClass("boxing", "wednesday", "20:00"),
    StudioClass("boxing", "saturday", "11:00"), StudioClass("swimming", "tuesday", "08:00"),
    StudioClass("swimming", "sunday", "09:30"),
)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", fold_accents(text))


def find_activity(text: str) -> str | None:
    return next((_ACTIVITY_WORDS[w] for w in _words(text) if w in _ACTIVITY_WORDS), None)


def find_day(text: str) -> str | None:
    return next((_DAY_WORDS[w] for w in _words(text) if w in _DAY_WORDS), None)


def find_time(text: str) -> str | None:
    """`18:00`, `18h`, `18h30`, `7.30`, `6pm` → `HH:MM`."""
    folded = fold_accents(text)
    match = re.search(r"\b(\d{1,2})\s*(?:[:h.]\s*(\d{2})?|\s*(am|pm))", folded)
    if not match:
        return None
    hour, minute, half = int(match.group(1)), int(match.group(2) or 0), match.group(3)
    if half == "pm" and hour < 12:
        hour += 12
    if hour > 23 or minute > 59:
        return None
    return f"{hour:02d}:{minute:02d}"


def normalise_day(value: str) -> str | None:
    return find_day(value) if value else None


def classes(activity: str | None = None, day: str | None = None) -> list[StudioClass]:
    """The timetable filtered by activity and/or day (None: any)."""
    return [c for c in TIMETABLE if (not activity or c.activity == activity) and (not day or c.day == day)]


def lookup(activity: str, day: str, time: str | None = None) -> StudioClass | None:
    """The class on that day (at that time when given), None when the studio has none."""
    act, d = find_activity(activity) or activity, normalise_day(day) or day
    found = [c for c in classes(act, d) if time is None or c.time == (find_time(time) or time)]
    return found[0] if found else None
