"""Exercise catalogue for the rule-based workout provider: names (EN/FR), equipment, and the
tags an injury rules out. Candidates are listed per movement pattern, preferred first.

Tags: impact (jumps, running), lunge (split stance), deep_knee (deep knee bend), knee_load
(step-ups), overhead (arms above the head), shoulder_stress (wide pressing, dips), spinal_load
(barbell on the back or heavy hinge), wrist_load, elbow_load, ankle_load.
"""

from __future__ import annotations

from dataclasses import dataclass

GYM, DB, BW = "gym", "dumbbells", "bodyweight"
ALL = frozenset({GYM, DB, BW})


@dataclass(frozen=True)
class Exercise:
    key: str
    en: str
    fr: str
    equipment: frozenset[str]
    tags: frozenset[str] = frozenset()
    kind: str = "compound"  # compound | accessory | core | calves | conditioning
    dose_en: str | None = None  # fixed prescription (core holds), else from the goal
    dose_fr: str | None = None


def _ex(key: str, en: str, fr: str, equipment: set[str] | frozenset[str], tags: set[str] = set(),
        kind: str = "compound", dose: tuple[str, str] | None = None) -> Exercise:
    return Exercise(key, en, fr, frozenset(equipment), frozenset(tags), kind,
                    dose[0] if dose else None, dose[1] if dose else None)


PATTERNS: dict[str, list[Exercise]] = {
    "squat": [
        _ex("back_squat", "Barbell back squat", "Squat barre sur le dos", {GYM}, {"deep_knee", "spinal_load"}),
        _ex("goblet_squat", "Goblet squat", "Goblet squat (haltère contre la poitrine)", {GYM, DB}, {"deep_knee"}),
        _ex("leg_press", "Leg press", "Presse à cuisses", {GYM}, {"deep_knee"}),
        _ex("box_squat_high", "Box squat to a high bench (pain-free range)",
            "Squat assis-debout sur banc haut (amplitude sans douleur)", ALL),
        _ex("air_squat", "Bodyweight squat", "Squat au poids du corps", {BW}, {"deep_knee"}),
    ],
    "hinge": [
        _ex("rdl", "Romanian deadlift", "Soulevé de terre roumain", {GYM}, {"spinal_load"}),
        _ex("db_rdl", "Dumbbell Romanian deadlift", "Soulevé de terre roumain aux haltères", {GYM, DB}, {"spinal_load"}),
        _ex("hip_thrust", "Hip thrust", "Hip thrust", {GYM, DB}),
        _ex("glute_bridge", "Glute bridge", "Pont fessier", {BW, DB}),
        _ex("back_extension", "45° back extension", "Extension lombaire à 45°", {GYM}, {"spinal_load"}),
    ],
    "single_leg": [
        _ex("walking_lunge", "Walking lunges", "Fentes marchées", {GYM, DB}, {"lunge", "deep_knee"}),
        _ex("split_squat", "Bulgarian split squat", "Squat bulgare", {GYM, DB, BW}, {"lunge", "deep_knee"}),
        _ex("reverse_lunge", "Reverse lunges", "Fentes arrière", {BW, DB}, {"lunge"}),
        _ex("step_up", "Step-ups onto a low box", "Montées sur step bas", ALL, {"knee_load"}),
        _ex("single_leg_bridge", "Single-leg glute bridge", "Pont fessier sur une jambe", ALL, kind="accessory"),
    ],
    "leg_curl": [
        _ex("leg_curl", "Lying leg curl", "Leg curl allongé", {GYM}, kind="accessory"),
        _ex("sl_rdl", "Single-leg Romanian deadlift (light)", "Soulevé de terre roumain sur une jambe (léger)",
            {DB}, {"ankle_load"}, kind="accessory"),
        _ex("slider_curl", "Sliding hamstring curl (towel on the floor)",
            "Leg curl glissé (serviette au sol)", {BW, DB}, kind="accessory"),
        _ex("bridge_hold", "Glute bridge hold", "Pont fessier tenu", ALL, kind="accessory",
            dose=("3 × 30–45 s", "3 × 30–45 s")),
    ],
    "calves": [
        _ex("calf_raise", "Standing calf raise", "Mollets debout", ALL, {"ankle_load"}, kind="calves"),
        _ex("seated_calf", "Seated calf raise", "Mollets assis", {GYM, DB}, kind="calves"),
    ],
    "h_push": [
        _ex("bench_press", "Barbell bench press", "Développé couché barre", {GYM}, {"shoulder_stress", "wrist_load"}),
        _ex("db_bench", "Dumbbell bench press", "Développé couché haltères", {GYM, DB}, {"shoulder_stress"}),
        _ex("pushup", "Push-ups", "Pompes", {BW}, {"wrist_load"}),
        _ex("db_floor_press", "Neutral-grip dumbbell floor press", "Développé au sol haltères, prise neutre",
            {GYM, DB}),
        _ex("handle_pushup", "Incline push-ups on handles (pain-free range)",
            "Pompes inclinées sur poignées (amplitude sans douleur)", {BW}),
    ],
    "incline_push": [
        _ex("incline_db", "Incline dumbbell press", "Développé incliné haltères", {GYM, DB}, {"shoulder_stress"}),
        _ex("machine_press", "Machine chest press", "Presse pectoraux à la machine", {GYM}),
        _ex("decline_pushup", "Feet-elevated push-ups", "Pompes pieds surélevés", {BW}, {"wrist_load", "shoulder_stress"}),
        _ex("db_floor_press", "Neutral-grip dumbbell floor press", "Développé au sol haltères, prise neutre", {DB}),
        _ex("incline_pushup", "Incline push-ups (hands on a bench)", "Pompes inclinées (mains sur un banc)", {BW}, {"wrist_load"}),
        _ex("knee_pushup_fists", "Push-ups on fists or handles", "Pompes sur les poings ou poignées", {BW}),
    ],
    "v_push": [
        _ex("ohp", "Standing barbell overhead press", "Développé militaire debout", {GYM}, {"overhead", "spinal_load"}),
        _ex("db_shoulder_press", "Seated dumbbell shoulder press", "Développé épaules assis haltères",
            {GYM, DB}, {"overhead"}),
        _ex("pike_pushup", "Pike push-ups", "Pompes piquées (pike)", {BW}, {"overhead", "wrist_load"}),
        _ex("landmine_press", "Half-kneeling landmine press", "Landmine press à genou", {GYM}, {"shoulder_stress"}),
        _ex("face_pull", "Cable face pulls (light)", "Face pulls à la poulie (léger)", {GYM}, kind="accessory"),
        _ex("external_rotation", "Band or light-dumbbell external rotations",
            "Rotations externes à l'élastique ou haltère léger", {DB, BW}, kind="accessory"),
    ],
    "h_pull": [
        _ex("barbell_row", "Barbell bent-over row", "Rowing barre buste penché", {GYM}, {"spinal_load"}),
        _ex("chest_supported_row", "Chest-supported dumbbell row", "Rowing haltères buste appuyé", {GYM, DB}),
        _ex("cable_row", "Seated cable row", "Tirage horizontal à la poulie", {GYM}),
        _ex("one_arm_row", "One-arm dumbbell row", "Rowing un bras haltère", {GYM, DB}),
        _ex("inverted_row", "Inverted rows under a sturdy table", "Tractions australiennes sous une table solide", {BW}),
        _ex("towel_row", "Door-frame towel rows", "Tirage à la serviette sur cadre de porte", {BW}),
    ],
    "v_pull": [
        _ex("pullup", "Pull-ups (assisted if needed)", "Tractions (assistées si besoin)", {GYM}, {"overhead", "shoulder_stress"}),
        _ex("lat_pulldown", "Lat pulldown", "Tirage vertical", {GYM}, {"overhead"}),
        _ex("db_pullover", "Dumbbell pullover", "Pull-over haltère", {DB}, {"overhead", "shoulder_stress"}),
        _ex("straight_arm_pulldown", "Straight-arm cable pulldown (to hip level)",
            "Tirage bras tendus à la poulie (jusqu'aux hanches)", {GYM}, kind="accessory"),
        _ex("one_arm_row_v", "One-arm dumbbell row, elbow tucked", "Rowing un bras haltère, coude serré", {DB}),
        _ex("prone_pull", "Prone lat pulls (lying face down)", "Tirages dorsaux allongé sur le ventre", {BW}, kind="accessory"),
    ],
    "lateral": [
        _ex("lateral_raise", "Dumbbell lateral raise", "Élévations latérales haltères", {GYM, DB}, {"shoulder_stress"},
            kind="accessory"),
        _ex("rear_delt_fly", "Rear-delt fly", "Oiseau (deltoïdes postérieurs)", {GYM, DB}, kind="accessory"),
        _ex("prone_t", "Prone T raises (no weight)", "Élévations en T allongé (sans charge)", {BW}, kind="accessory"),
    ],
    "biceps": [
        _ex("db_curl", "Dumbbell curl", "Curl haltères", {GYM, DB}, {"elbow_load"}, kind="accessory"),
        _ex("hammer_curl", "Hammer curl", "Curl marteau", {GYM, DB}, {"elbow_load"}, kind="accessory"),
        _ex("chinup_row", "Underhand inverted rows", "Tractions australiennes en supination", {BW}, {"elbow_load"},
            kind="accessory"),
    ],
    "triceps": [
        _ex("pushdown", "Cable triceps pushdown", "Extension triceps à la poulie", {GYM}, {"elbow_load"}, kind="accessory"),
        _ex("db_kickback", "Dumbbell kickback", "Kickback haltère", {GYM, DB}, {"elbow_load"}, kind="accessory"),
        _ex("close_pushup", "Close-grip push-ups", "Pompes serrées", {BW}, {"wrist_load", "elbow_load"}, kind="accessory"),
    ],
    "core": [
        _ex("plank", "Forearm plank", "Gainage sur les avant-bras", ALL, kind="core", dose=("3 × 30–45 s", "3 × 30–45 s")),
        _ex("dead_bug", "Dead bug", "Dead bug", ALL, kind="core", dose=("3 × 8–10 per side", "3 × 8–10 par côté")),
        _ex("side_plank", "Side plank", "Gainage latéral", ALL, kind="core", dose=("3 × 20–30 s per side", "3 × 20–30 s par côté")),
        _ex("pallof", "Pallof press", "Pallof press", {GYM}, kind="core", dose=("3 × 10 per side", "3 × 10 par côté")),
        _ex("bird_dog", "Bird dog", "Bird dog (quadrupédie bras-jambe opposés)", ALL, kind="core",
            dose=("3 × 8 per side", "3 × 8 par côté")),
    ],
    "conditioning": [
        _ex("kb_swing", "Kettlebell or dumbbell swings", "Swings kettlebell ou haltère", {GYM, DB}, {"spinal_load"},
            kind="conditioning", dose=("3 × 15", "3 × 15")),
        _ex("jump_squat", "Jump squats", "Squats sautés", {BW}, {"impact", "deep_knee"}, kind="conditioning"),
        _ex("burpee", "Burpees", "Burpees", {BW}, {"impact", "wrist_load"}, kind="conditioning"),
        _ex("mountain_climber", "Mountain climbers", "Mountain climbers", ALL, {"wrist_load"}, kind="conditioning"),
        _ex("bike_sprint", "Bike sprints", "Sprints sur vélo", {GYM}, kind="conditioning",
            dose=("8 × 20 s hard / 40 s easy", "8 × 20 s fort / 40 s facile")),
        _ex("march", "Fast high-knee march", "Marche rapide genoux hauts", {BW, DB}, kind="conditioning",
            dose=("4 × 40 s", "4 × 40 s")),
        _ex("shadow_box", "Shadow boxing", "Shadow boxing", ALL, kind="conditioning", dose=("4 × 40 s", "4 × 40 s")),
    ],
}


@dataclass(frozen=True)
class CardioMode:
    key: str
    en: str
    fr: str
    equipment: frozenset[str]
    tags: frozenset[str] = frozenset()


CARDIO: list[CardioMode] = [
    CardioMode("run", "running", "course à pied", frozenset(ALL), frozenset({"impact", "ankle_load"})),
    CardioMode("rower", "rowing machine", "rameur", frozenset({GYM}), frozenset({"spinal_load", "deep_knee"})),
    CardioMode("incline_walk", "incline treadmill walk", "marche inclinée sur tapis", frozenset({GYM}),
               frozenset({"knee_load"})),
    CardioMode("jump_rope", "jump rope", "corde à sauter", frozenset({BW, DB}), frozenset({"impact", "ankle_load"})),
    CardioMode("brisk_walk", "brisk walking", "marche rapide", frozenset({BW, DB}), frozenset({"knee_load"})),
    CardioMode("bike", "stationary bike", "vélo d'appartement", frozenset({GYM}), frozenset()),
    CardioMode("cycling", "cycling", "vélo", frozenset({BW, DB}), frozenset()),
    CardioMode("elliptical", "elliptical trainer", "vélo elliptique", frozenset({GYM}), frozenset()),
    CardioMode("swim", "swimming", "natation", frozenset(ALL), frozenset({"overhead"})),
]

# Injury → tags it rules out; and the reassurance shown (phrased positively: never name what is excluded).
INJURY_EXCLUDES: dict[str, frozenset[str]] = {
    "knee": frozenset({"impact", "lunge", "deep_knee", "knee_load"}),
    "ankle": frozenset({"impact", "ankle_load", "lunge"}),
    "hip": frozenset({"impact", "lunge", "deep_knee"}),
    "back": frozenset({"spinal_load", "impact"}),
    "shoulder": frozenset({"overhead", "shoulder_stress"}),
    "elbow": frozenset({"elbow_load"}),
    "wrist": frozenset({"wrist_load"}),
    "neck": frozenset({"spinal_load", "overhead"}),
    "unspecified": frozenset({"impact"}),
}

INJURY_NOTES: dict[str, tuple[str, str]] = {
    "knee": ("Knee-friendly: low-impact cardio, hip-dominant leg work and a pain-free range of motion only.",
             "Genou ménagé : cardio sans impact, travail des jambes centré sur les hanches, amplitude sans douleur."),
    "ankle": ("Ankle/foot-friendly: low-impact cardio and both feet planted for leg work.",
              "Cheville/pied ménagés : cardio sans impact, les deux pieds au sol pour les jambes."),
    "hip": ("Hip-friendly: both feet planted, moderate depth, low-impact cardio.",
            "Hanche ménagée : appuis bilatéraux, amplitude modérée, cardio sans impact."),
    "back": ("Back-friendly: supported and machine variations keep load off your spine; brace your core on every rep.",
             "Dos ménagé : variantes guidées ou appuyées qui soulagent la colonne ; gainez-vous à chaque répétition."),
    "shoulder": ("Shoulder-friendly: pressing stays below shoulder height with a neutral grip, plus rotator-cuff work.",
                 "Épaule ménagée : poussées sous la hauteur des épaules en prise neutre, plus du travail de coiffe."),
    "elbow": ("Elbow-friendly: no direct arm isolation for now; compound pulls and presses at moderate load.",
              "Coude ménagé : pas d'isolation des bras pour l'instant ; tirages et poussées à charge modérée."),
    "wrist": ("Wrist-friendly: dumbbells or handles with a neutral wrist, nothing on flat palms.",
              "Poignet ménagé : haltères ou poignées, poignet neutre, rien à plat sur les paumes."),
    "neck": ("Neck-friendly: nothing loaded on your upper back, arms stay below head height.",
             "Cou ménagé : aucune charge sur le haut du dos, bras sous la hauteur de la tête."),
    "unspecified": ("You mentioned an injury: everything is low-impact and controlled until you tell me which area it is.",
                    "Vous avez signalé une blessure : tout reste sans impact et contrôlé jusqu'à ce que vous précisiez la zone."),
}
