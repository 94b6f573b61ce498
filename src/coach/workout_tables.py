"""The workout rules' tables: volume per goal, doses, splits, cardio plans, days, rest and progression (EN/FR)."""

from __future__ import annotations

# goal → (strength days, cardio sessions) when the person did not say how many days they have
DEFAULT_VOLUME = {
    "mixed": (4, 2),
    "muscle": (4, 1),
    "fat_loss": (3, 3),
    "endurance": (2, 3),
    "general": (3, 2),
}

DOSES = {  # goal → kind → sets × reps
    "mixed": {"compound": "4 × 8–10", "accessory": "3 × 10–12", "calves": "3 × 12–15"},
    "muscle": {"compound": "4 × 6–10", "accessory": "3 × 10–12", "calves": "4 × 10–15"},
    "fat_loss": {"compound": "3 × 10–12", "accessory": "3 × 12–15", "calves": "3 × 15"},
    "endurance": {"compound": "3 × 10–12", "accessory": "2 × 12–15", "calves": "3 × 15–20"},
    "general": {"compound": "3 × 8–12", "accessory": "3 × 10–12", "calves": "3 × 12–15"},
}

TEMPLATES: dict[str, tuple[tuple[str, str], list[tuple[str, int]]]] = {
    "full_a": (
        ("Full body A", "Corps entier A"),
        [("squat", 0), ("h_push", 0), ("h_pull", 0), ("hinge", 2), ("core", 0)],
    ),
    "full_b": (
        ("Full body B", "Corps entier B"),
        [("hinge", 0), ("v_push", 0), ("v_pull", 0), ("single_leg", 0), ("core", 1)],
    ),
    "full_c": (
        ("Full body C", "Corps entier C"),
        [("squat", 1), ("incline_push", 0), ("h_pull", 1), ("single_leg", 1), ("core", 2)],
    ),
    "upper_a": (
        ("Upper body A", "Haut du corps A"),
        [("h_push", 0), ("h_pull", 0), ("v_push", 0), ("v_pull", 0), ("biceps", 0), ("triceps", 0)],
    ),
    "lower_a": (
        ("Lower body A", "Bas du corps A"),
        [
            ("squat", 0),
            ("hinge", 0),
            ("single_leg", 0),
            ("leg_curl", 0),
            ("calves", 0),
            ("core", 0),
        ],
    ),
    "upper_b": (
        ("Upper body B", "Haut du corps B"),
        [
            ("incline_push", 0),
            ("v_pull", 1),
            ("h_pull", 1),
            ("lateral", 0),
            ("biceps", 1),
            ("triceps", 1),
        ],
    ),
    "lower_b": (
        ("Lower body B", "Bas du corps B"),
        [
            ("hinge", 2),
            ("squat", 1),
            ("single_leg", 1),
            ("leg_curl", 1),
            ("calves", 1),
            ("core", 1),
        ],
    ),
    "push": (
        ("Push", "Poussée"),
        [("h_push", 0), ("v_push", 0), ("incline_push", 0), ("lateral", 0), ("triceps", 0)],
    ),
    "pull": (
        ("Pull", "Tirage"),
        [("v_pull", 0), ("h_pull", 0), ("h_pull", 1), ("lateral", 1), ("biceps", 0)],
    ),
    "legs": (
        ("Legs", "Jambes"),
        [
            ("squat", 0),
            ("hinge", 0),
            ("single_leg", 0),
            ("leg_curl", 0),
            ("calves", 0),
            ("core", 0),
        ],
    ),
    "push_b": (
        ("Push B", "Poussée B"),
        [("incline_push", 0), ("v_push", 1), ("h_push", 1), ("lateral", 0), ("triceps", 1)],
    ),
    "pull_b": (
        ("Pull B", "Tirage B"),
        [("h_pull", 1), ("v_pull", 1), ("h_pull", 2), ("lateral", 1), ("biceps", 1)],
    ),
    "legs_b": (
        ("Legs B", "Jambes B"),
        [
            ("hinge", 2),
            ("squat", 1),
            ("single_leg", 1),
            ("leg_curl", 1),
            ("calves", 1),
            ("core", 1),
        ],
    ),
}
SPLITS = {
    1: (("Full body", "Corps entier"), ["full_a"]),
    2: (("Full body A/B", "Corps entier A/B"), ["full_a", "full_b"]),
    3: (("Full body A/B/C", "Corps entier A/B/C"), ["full_a", "full_b", "full_c"]),
    4: (
        ("Upper/lower split", "Split haut/bas du corps"),
        ["upper_a", "lower_a", "upper_b", "lower_b"],
    ),
    5: (
        ("Upper/lower + push/pull/legs", "Haut/bas + poussée/tirage/jambes"),
        ["upper_a", "lower_a", "push", "pull", "legs"],
    ),
    6: (
        ("Push/pull/legs × 2", "Poussée/tirage/jambes × 2"),
        ["push", "pull", "legs", "push_b", "pull_b", "legs_b"],
    ),
}

# (kind, title EN, title FR, prescription EN, prescription FR)
CARDIO_PLAN = {
    "mixed": [
        (
            "intervals",
            "Intervals",
            "Fractionné",
            "20 min: 10 × (1 min hard / 1 min easy)",
            "20 min : 10 × (1 min rapide / 1 min facile)",
        ),
        (
            "steady",
            "Steady cardio",
            "Cardio continu",
            "30–40 min at a conversational pace (zone 2)",
            "30–40 min à allure conversationnelle (zone 2)",
        ),
    ],
    "muscle": [
        (
            "steady",
            "Easy cardio",
            "Cardio léger",
            "20–30 min easy, for heart health and recovery",
            "20–30 min facile, pour le cœur et la récupération",
        )
    ],
    "fat_loss": [
        (
            "steady",
            "Steady cardio",
            "Cardio continu",
            "35–45 min at a conversational pace (zone 2)",
            "35–45 min à allure conversationnelle (zone 2)",
        ),
        (
            "intervals",
            "Intervals",
            "Fractionné",
            "20 min: 10 × (1 min hard / 1 min easy)",
            "20 min : 10 × (1 min rapide / 1 min facile)",
        ),
        ("steady", "Long easy cardio", "Cardio long et facile", "45 min easy", "45 min facile"),
    ],
    "endurance": [
        (
            "long",
            "Long easy session",
            "Sortie longue facile",
            "45–60 min easy (zone 2)",
            "45–60 min facile (zone 2)",
        ),
        (
            "tempo",
            "Tempo",
            "Tempo",
            "30 min: 10 easy, 15 comfortably hard, 5 easy",
            "30 min : 10 facile, 15 soutenu, 5 facile",
        ),
        (
            "intervals",
            "Intervals",
            "Fractionné",
            "6 × (3 min hard / 2 min easy)",
            "6 × (3 min rapide / 2 min facile)",
        ),
    ],
    "general": [
        (
            "steady",
            "Steady cardio",
            "Cardio continu",
            "30 min at a conversational pace",
            "30 min à allure conversationnelle",
        ),
        (
            "intervals",
            "Intervals",
            "Fractionné",
            "20 min: 8 × (1 min hard / 90 s easy)",
            "20 min : 8 × (1 min rapide / 90 s facile)",
        ),
    ],
}
CARDIO_PREFERENCE = {
    "intervals": ["run", "rower", "jump_rope", "bike", "cycling", "elliptical", "swim"],
    "steady": [
        "incline_walk",
        "brisk_walk",
        "run",
        "elliptical",
        "bike",
        "cycling",
        "rower",
        "swim",
    ],
    "long": ["run", "cycling", "bike", "elliptical", "swim", "brisk_walk"],
    "tempo": ["run", "rower", "bike", "cycling", "elliptical", "swim"],
}
DAY_NAMES = {
    "en": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
    "fr": ["Lun", "Mar", "Mer", "Jeu", "Ven", "Sam", "Dim"],
}
DAY_SLOTS = {
    1: [0],
    2: [0, 3],
    3: [0, 2, 4],
    4: [0, 1, 3, 4],
    5: [0, 1, 2, 4, 5],
    6: [0, 1, 2, 3, 4, 5],
    7: [0, 1, 2, 3, 4, 5, 6],
}

REST = {
    "mixed": (
        "Rest 90–120 s on the big lifts, 60 s on accessories.",
        "Repos 90–120 s sur les mouvements principaux, 60 s sur les accessoires.",
    ),
    "muscle": (
        "Rest about 2 min on the big lifts, 60–90 s on accessories.",
        "Repos d'environ 2 min sur les mouvements principaux, 60–90 s sur les accessoires.",
    ),
    "fat_loss": (
        "Rest 45–60 s; run the last three exercises as a circuit.",
        "Repos 45–60 s ; enchaînez les trois derniers exercices en circuit.",
    ),
    "endurance": ("Rest 60 s between sets.", "Repos 60 s entre les séries."),
    "general": ("Rest 60–90 s between sets.", "Repos 60–90 s entre les séries."),
}
PROGRESSION = (
    (
        "When you reach the top of the rep range on every set, add 2.5–5 % load (or 1–2 reps at bodyweight); "
        "every 5th week, lighten the load by a third to recover."
    ),
    (
        "Quand vous atteignez le haut de la fourchette de répétitions sur toutes les séries, ajoutez 2,5–5 % de "
        "charge (ou 1–2 répétitions au poids du corps) ; toutes les 5 semaines, allégez d'un tiers pour récupérer."
    ),
)
