"""Each advisor's keywords, read once from `data/router_keywords.yaml`.

The router chooses an advisor with them; the constraint reader uses them to tell an
acknowledgement ("ok thanks") from a request. Both read them here, so neither imports the other.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from coach.state import AGENTS, NUTRITION, WORKOUT

KEYWORDS_FILE = Path(__file__).parent / "data" / "router_keywords.yaml"


def load_keywords(path: Path = KEYWORDS_FILE) -> dict[str, tuple[str, ...]]:
    """Each advisor's keywords (swap the file to route between another pair of experts)."""
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    missing = [agent for agent in AGENTS if not raw.get(agent)]
    if missing:
        raise ValueError(f"{path.name}: no keywords for {missing}")
    return {agent: tuple(str(k) for k in raw[agent]) for agent in AGENTS}


_KEYWORDS = load_keywords()
WORKOUT_KEYWORDS: tuple[str, ...] = _KEYWORDS[WORKOUT]
NUTRITION_KEYWORDS: tuple[str, ...] = _KEYWORDS[NUTRITION]
