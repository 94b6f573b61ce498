"""Exercise catalogue for the rule-based workout provider, loaded from `data/exercises.yaml`.

Each exercise has EN/FR names, the equipment it needs and the tags an injury can rule out;
candidates are listed per movement pattern, preferred first. Editing the YAML changes the
programmes without touching code; the loader checks the file's shape once, at import.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

DATA = Path(__file__).parent / "data" / "exercises.yaml"
EQUIPMENT = frozenset({"gym", "dumbbells", "bodyweight"})
KINDS = frozenset({"compound", "accessory", "core", "calves", "conditioning"})


@dataclass(frozen=True)
class Exercise:
    key: str
    en: str
    fr: str
    equipment: frozenset[str]
    tags: frozenset[str] = frozenset()
    kind: str = "compound"
    dose_en: str | None = None  # a fixed prescription (holds, intervals); else sets × reps by goal
    dose_fr: str | None = None


@dataclass(frozen=True)
class CardioMode:
    key: str
    en: str
    fr: str
    equipment: frozenset[str]
    tags: frozenset[str] = frozenset()


def _exercise(row: dict[str, Any]) -> Exercise:
    equipment = frozenset(row["equipment"])
    if not equipment <= EQUIPMENT or row.get("kind", "compound") not in KINDS:
        raise ValueError(f"{DATA.name}: bad equipment or kind in {row}")
    dose = row.get("dose") or [None, None]
    return Exercise(
        row["key"],
        row["en"],
        row["fr"],
        equipment,
        frozenset(row.get("tags", [])),
        row.get("kind", "compound"),
        dose[0],
        dose[1],
    )


def _load() -> tuple[
    dict[str, list[Exercise]],
    list[CardioMode],
    dict[str, frozenset[str]],
    dict[str, tuple[str, str]],
]:
    raw = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    patterns = {name: [_exercise(r) for r in rows] for name, rows in raw["patterns"].items()}
    cardio = [
        CardioMode(
            r["key"], r["en"], r["fr"], frozenset(r["equipment"]), frozenset(r.get("tags", []))
        )
        for r in raw["cardio"]
    ]
    excludes = {area: frozenset(v["excludes"]) for area, v in raw["injuries"].items()}
    notes = {area: (v["note_en"], v["note_fr"]) for area, v in raw["injuries"].items()}
    if "unspecified" not in excludes:
        raise ValueError(f"{DATA.name}: injuries needs an 'unspecified' entry")
    return patterns, cardio, excludes, notes


PATTERNS, CARDIO, INJURY_EXCLUDES, INJURY_NOTES = _load()
