"""Task-specific result verifiers: plain functions over the reply text and the user's constraints.

Why: a polished final message is not evidence that the task was done right. Each verifier reads
the reply at verification time and returns pass/fail; the receipt keeps only the verifier's name
and that boolean (`verify()` builds the `ResultCheck`). Constraints are plain data: a mapping
(`diet`, `allergies`, `injuries`, or flags such as `vegetarian: True`), an object with such
attributes (a dataclass or pydantic model), or a flat list of tags ("vegetarian", "knee injury",
"allergy:peanut"); `normalize_constraints` reads all of them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from handoff_audit.builders import utcnow
from handoff_audit.receipt import ResultCheck
from handoff_audit.textscan import Lexicon, fold, recommended_mentions, tokens, words

# --- constraints ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Constraints:
    """What the verifiers need to know, normalised: diets, allergens and injured body parts."""

    diets: frozenset[str] = frozenset()
    allergies: frozenset[str] = frozenset()
    injuries: frozenset[str] = frozenset()


_DIET_WORDS = {
    "vegetarian": "vegetarian",
    "vegetarien": "vegetarian",
    "vegetarienne": "vegetarian",
    "veggie": "vegetarian",
    "vegan": "vegan",
    "vegane": "vegan",
    "vegetalien": "vegan",
    "vegetalienne": "vegan",
    "pescatarian": "pescatarian",
    "pescetarian": "pescatarian",
    "pescetarien": "pescatarian",
    "pescetarienne": "pescatarian",
}
_BODY_PARTS = {
    "knee": "knee",
    "knees": "knee",
    "genou": "knee",
    "genoux": "knee",
    "menisque": "knee",
    "acl": "knee",
    "shoulder": "shoulder",
    "shoulders": "shoulder",
    "epaule": "shoulder",
    "epaules": "shoulder",
    "rotator": "shoulder",
    "back": "back",
    "lower": "back",
    "spine": "back",
    "dos": "back",
    "lombaire": "back",
    "lombaires": "back",
    "hernie": "back",
    "lumbar": "back",
}
_ALLERGEN_ALIASES = {
    "peanut": "peanut",
    "peanuts": "peanut",
    "arachide": "peanut",
    "arachides": "peanut",
    "cacahuete": "peanut",
    "cacahuetes": "peanut",
    "groundnut": "peanut",
    "nut": "tree_nut",
    "nuts": "tree_nut",
    "tree_nut": "tree_nut",
    "tree nut": "tree_nut",
    "tree nuts": "tree_nut",
    "noix": "tree_nut",
    "fruits a coque": "tree_nut",
    "almond": "tree_nut",
    "dairy": "dairy",
    "milk": "dairy",
    "lactose": "dairy",
    "lait": "dairy",
    "laitier": "dairy",
    "laitiers": "dairy",
    "produits laitiers": "dairy",
    "casein": "dairy",
    "egg": "egg",
    "eggs": "egg",
    "oeuf": "egg",
    "oeufs": "egg",
    "gluten": "gluten",
    "wheat": "gluten",
    "ble": "gluten",
    "celiac": "gluten",
    "coeliac": "gluten",
    "soy": "soy",
    "soya": "soy",
    "soja": "soy",
    "fish": "fish",
    "poisson": "fish",
    "poissons": "fish",
    "shellfish": "shellfish",
    "crustacean": "shellfish",
    "crustaceans": "shellfish",
    "crustace": "shellfish",
    "crustaces": "shellfish",
    "seafood": "shellfish",
    "fruits de mer": "shellfish",
    "fruit de mer": "shellfish",
    "mollusque": "shellfish",
    "sesame": "sesame",
    "meat": "meat",
    "viande": "meat",
    "red meat": "red_meat",
    "red_meat": "red_meat",
    "pork": "pork",
    "porc": "pork",
    "poultry": "poultry",
    "volaille": "poultry",
}
_UNKNOWN = frozenset({"unspecified", "unknown", "none", "other", "autre", "non precise"})
_ALLERGY_MARKERS = ("allerg", "intoleran", "intolerant")
_INJURY_MARKERS = (
    "injur",
    "bless",
    "pain",
    "douleur",
    "hurt",
    "tendin",
    "sprain",
    "entorse",
    "operat",
)


def _as_mapping(obj: Any) -> Mapping[str, Any] | None:
    if isinstance(obj, Mapping):
        return obj
    if hasattr(obj, "model_dump"):
        return obj.model_dump()
    if hasattr(obj, "__dataclass_fields__") or hasattr(obj, "__dict__"):
        return {k: v for k, v in vars(obj).items() if not k.startswith("_")}
    return None


def _strings(value: Any) -> list[str]:
    if value is None or value is False:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [str(k) for k, v in value.items() if v]
    if isinstance(value, Iterable):
        return [s for item in value for s in _strings(item)]
    return [str(value)]


def _allergen_key(text: str) -> str:
    folded = " ".join(tokens(text))
    for marker in (
        "allergy to ",
        "allergic to ",
        "allergie aux ",
        "allergie au ",
        "allergie a ",
        "allergique aux ",
        "allergique au ",
        "allergique a ",
        "intolerance to ",
        "intolerance au ",
        "intolerance aux ",
        "intolerance a ",
        "intolerant to ",
    ):
        folded = folded.removeprefix(marker)
    folded = re.sub(
        r"\b(allergy|allergie|allergique|allergic|intolerance|intolerant|free)\b", " ", folded
    )
    folded = " ".join(folded.split())
    if folded in _ALLERGEN_ALIASES:
        return _ALLERGEN_ALIASES[folded]
    for word in folded.split():
        if word in _ALLERGEN_ALIASES:
            return _ALLERGEN_ALIASES[word]
    return folded


def _classify_tag(tag: str, into: dict[str, set[str]], hint: str | None = None) -> None:
    """Sort one free tag into diets / allergies / injuries (hint: the mapping key it came from)."""
    text = fold(tag)
    if text.startswith(("allergy:", "allergie:", "allergen:", "intolerance:")):
        into["allergies"].add(_allergen_key(text.split(":", 1)[1]))
        return
    if text.startswith(("injury:", "blessure:")):
        hint, text = "injuries", text.split(":", 1)[1]
    words = tokens(text)
    if hint == "allergies" or any(m in text for m in _ALLERGY_MARKERS):
        key = _allergen_key(text)
        if key and key not in _UNKNOWN:
            into["allergies"].add(key)
        return
    parts = {_BODY_PARTS[w] for w in words if w in _BODY_PARTS}
    only_body_parts = bool(words) and all(
        w in _BODY_PARTS or w in ("left", "right", "gauche", "droit", "droite") for w in words
    )
    if hint == "injuries" or (
        parts and (only_body_parts or any(m in text for m in _INJURY_MARKERS))
    ):
        into["injuries"].update(parts or {" ".join(words)})
        return
    diets = {_DIET_WORDS[w] for w in words if w in _DIET_WORDS}
    if diets:
        into["diets"].update(diets)
    elif hint == "diets" and words:
        into["diets"].add(" ".join(words))


_KEY_HINTS = {
    "diet": "diets",
    "diets": "diets",
    "regime": "diets",
    "restrictions": "diets",
    "dietary_restrictions": "diets",
    "restriction": "diets",
    "allergies": "allergies",
    "allergy": "allergies",
    "allergens": "allergies",
    "intolerances": "allergies",
    "intolerance": "allergies",
    "allergenes": "allergies",
    "avoid": "allergies",
    "exclusions": "allergies",
    "excluded_foods": "allergies",
    "injuries": "injuries",
    "injury": "injuries",
    "blessures": "injuries",
    "blessure": "injuries",
}


def normalize_constraints(obj: Any) -> Constraints:
    """Read constraints from a mapping, an object with attributes, or a list of tags."""
    if isinstance(obj, Constraints):
        return obj
    into: dict[str, set[str]] = {"diets": set(), "allergies": set(), "injuries": set()}
    mapping = None if isinstance(obj, (str, list, tuple, set, frozenset)) else _as_mapping(obj)
    if mapping is not None:
        for key, value in mapping.items():
            folded_key = fold(str(key))
            if folded_key in _DIET_WORDS and value is True:
                into["diets"].add(_DIET_WORDS[folded_key])
                continue
            hint = _KEY_HINTS.get(folded_key)
            if hint is None and folded_key not in ("constraints", "tags", "notes"):
                continue
            for item in _strings(value):
                _classify_tag(item, into, hint)
    else:
        for item in _strings(obj):
            _classify_tag(item, into)
    return Constraints(
        frozenset(into["diets"]), frozenset(into["allergies"]), frozenset(into["injuries"])
    )


# --- lexicons (EN + FR, matched accent- and case-insensitively) ------------------------------

_PLANT = (
    "vegan",
    "vegetarian",
    "veggie",
    "plant",
    "based",
    "soy",
    "soya",
    "oat",
    "almond",
    "coconut",
    "rice",
    "cashew",
    "mock",
    "faux",
    "imitation",
    "meatless",
    "tofu",
    "seitan",
    "tempeh",
    "lentil",
    "bean",
    "chickpea",
    "mushroom",
    "peanut",
    "nut",
    "hazelnut",
    "cocoa",
    "shea",
    "apple",
    "sunflower",
    "pea",
    "quorn",
)
_PLANT_AFTER = (
    "de soja",
    "au soja",
    "d'avoine",
    "de coco",
    "d'amande",
    "d'amandes",
    "de riz",
    "de cacahuete",
    "de cacahuetes",
    "d'arachide",
    "de noix",
    "de noisette",
    "de pois",
    "de lentilles",
    "de tofu",
    "vegetal",
    "vegetale",
)

MEAT = Lexicon.of(
    words(
        """
        chicken beef pork lamb mutton veal turkey duck goose venison bacon ham sausage
        salami pepperoni prosciutto chorizo steak mince meatball jerky meat poultry brisket
        ribs pastrami poulet boeuf porc agneau mouton veau dinde canard oie lard lardon
        jambon saucisse saucisson viande volaille escalope merguez
    """
    )
    + ["pork chop", "ground beef", "blanc de poulet", "steak hache"],
    safe_before=_PLANT,
    safe_after=_PLANT_AFTER,
)
FISH = Lexicon.of(
    words(
        """
        fish salmon tuna cod sardine mackerel trout tilapia anchovy anchovies shrimp prawn
        crab lobster seafood shellfish mussel oyster clam scallop squid octopus halibut
        haddock poisson saumon thon cabillaud maquereau truite anchois crevette crabe homard
        moule huitre calamar poulpe colin merlu
    """
    )
    + ["fruits de mer", "fish sauce", "sauce poisson"],
    safe_before=_PLANT,
    safe_after=_PLANT_AFTER,
)
ANIMAL_PRODUCTS = Lexicon.of(
    words(
        """
        egg eggs dairy milk cheese yogurt yoghurt butter cream whey casein ghee honey paneer
        skyr kefir omelette omelet mayonnaise ricotta mozzarella feta parmesan cheddar oeuf
        lait laitier fromage yaourt beurre creme lactoserum miel
    """
    )
    + ["cottage cheese", "greek yogurt", "produits laitiers", "fromage blanc", "blanc d'oeuf"],
    safe_before=_PLANT,
    safe_after=_PLANT_AFTER,
)
KNEE_RISKS = Lexicon.of(
    words(
        """
        lunge lunges lunging jump jumps jumping burpee burpees plyometric plyometrics plyo
        bounding fente fentes saut sauts sauter pliometrie pliometrique pliometriques
    """
    )
    + [
        "split squat",
        "pistol squat",
        "box jump",
        "jump squat",
        "jumping jack",
        "jump rope",
        "corde a sauter",
        "squat saute",
        "squats sautes",
    ],
)
SHOULDER_RISKS = Lexicon.of(
    [
        "overhead press",
        "military press",
        "shoulder press",
        "push press",
        "arnold press",
        "handstand push up",
        "upright row",
        "snatch",
        "jerk",
        "behind the neck",
        "overhead squat",
        "developpe militaire",
        "developpe epaules",
        "developpe nuque",
        "rowing menton",
        "dips",
    ],
)
BACK_RISKS = Lexicon.of(
    [
        "deadlift",
        "good morning",
        "bent over row",
        "back squat",
        "barbell row",
        "romanian deadlift",
        "souleve de terre",
        "rowing barre",
        "soulevé de terre jambes tendues",
        "hyperextension",
    ],
)
_ALLERGENS: dict[str, Lexicon] = {
    "peanut": Lexicon.of(
        ["peanut", "groundnut", "arachide", "cacahuete", "peanut butter", "satay"]
    ),
    "tree_nut": Lexicon.of(
        words(
            """
        almond walnut cashew hazelnut pecan pistachio macadamia nut nuts praline marzipan
        nutella amande noisette cajou pistache noix
    """
        )
        + ["pine nut", "brazil nut", "noix de cajou"],
        safe_before=("coco", "coconut", "nutmeg", "muscade", "free"),
        safe_after=("de coco", "de muscade"),
    ),
    "dairy": Lexicon.of(
        words(
            """
        milk cheese yogurt yoghurt butter cream whey casein ghee paneer skyr kefir ricotta
        mozzarella feta parmesan cheddar lait laitier fromage yaourt beurre creme lactoserum
    """
        )
        + ["cottage cheese", "greek yogurt", "produits laitiers", "fromage blanc"],
        safe_before=_PLANT + ("lactose", "dairy"),
        safe_after=_PLANT_AFTER,
    ),
    "egg": Lexicon.of(
        ["egg", "eggs", "omelette", "omelet", "meringue", "mayonnaise", "oeuf", "blanc d'oeuf"],
        safe_before=("plant", "vegan", "flax", "chia"),
    ),
    "gluten": Lexicon.of(
        words(
            """
        wheat bread pasta barley rye couscous seitan bulgur semolina spelt bagel croissant
        ble pain pates orge seigle semoule epeautre farine flour
    """
        ),
        safe_before=(
            "gluten",
            "rice",
            "corn",
            "chickpea",
            "lentil",
            "almond",
            "buckwheat",
            "oat",
            "coconut",
            "sans",
        ),
        safe_after=(
            "sans gluten",
            "de riz",
            "de sarrasin",
            "de mais",
            "de pois chiche",
            "d'amande",
        ),
    ),
    "soy": Lexicon.of(
        ["soy", "soya", "tofu", "edamame", "tempeh", "miso", "soja", "soy sauce", "sauce soja"]
    ),
    "fish": FISH,
    "shellfish": Lexicon.of(
        words(
            """
        shrimp prawn crab lobster shellfish mussel oyster clam scallop crayfish langoustine
        crevette crabe homard moule huitre ecrevisse
    """
        )
        + ["fruits de mer", "seafood"]
    ),
    "meat": MEAT,
    "red_meat": Lexicon.of(
        words(
            "beef pork lamb mutton veal venison steak bacon ham boeuf porc agneau veau jambon lard"
        ),
        safe_before=_PLANT,
        safe_after=_PLANT_AFTER,
    ),
    "pork": Lexicon.of(
        words(
            "pork bacon ham prosciutto chorizo salami pepperoni porc jambon lard lardon saucisson"
        ),
        safe_before=_PLANT,
        safe_after=_PLANT_AFTER,
    ),
    "poultry": Lexicon.of(
        words("poultry chicken turkey duck goose volaille poulet dinde canard oie"),
        safe_before=_PLANT,
        safe_after=_PLANT_AFTER,
    ),
    "sesame": Lexicon.of(["sesame", "tahini", "tahin", "hummus", "houmous", "halva"]),
}


def allergen_lexicon(allergen: str) -> Lexicon:
    """The lexicon for a normalised allergen; an unknown one is matched as its own words."""
    return _ALLERGENS.get(allergen) or Lexicon.of([allergen])


# --- verifiers --------------------------------------------------------------------------------

ConstraintsLike = Any


def no_meat_when_vegetarian(reply_text: str, constraints: ConstraintsLike) -> bool:
    """Vegetarian/vegan: no meat or fish recommended. Pescatarian: no meat. Otherwise passes."""
    c = normalize_constraints(constraints)
    if c.diets & {"vegetarian", "vegan"}:
        return not recommended_mentions(reply_text, MEAT | FISH)
    if "pescatarian" in c.diets:
        return not recommended_mentions(reply_text, MEAT)
    return True


def no_animal_products_when_vegan(reply_text: str, constraints: ConstraintsLike) -> bool:
    """Vegan: no eggs, dairy or honey recommended (plant milks and nut butters are fine)."""
    if "vegan" not in normalize_constraints(constraints).diets:
        return True
    return not recommended_mentions(reply_text, ANIMAL_PRODUCTS)


def no_allergen(reply_text: str, constraints: ConstraintsLike) -> bool:
    """No declared allergen (or a food that contains it) is recommended."""
    c = normalize_constraints(constraints)
    return not any(recommended_mentions(reply_text, allergen_lexicon(a)) for a in c.allergies)


def no_lunges_with_knee_injury(reply_text: str, constraints: ConstraintsLike) -> bool:
    """Knee injury: no lunges, jumps or plyometrics recommended."""
    if "knee" not in normalize_constraints(constraints).injuries:
        return True
    return not recommended_mentions(reply_text, KNEE_RISKS)


def no_overhead_with_shoulder_injury(reply_text: str, constraints: ConstraintsLike) -> bool:
    """Shoulder injury: no overhead pressing recommended."""
    if "shoulder" not in normalize_constraints(constraints).injuries:
        return True
    return not recommended_mentions(reply_text, SHOULDER_RISKS)


def no_spinal_loading_with_back_injury(reply_text: str, constraints: ConstraintsLike) -> bool:
    """Back injury: no deadlifts, good mornings or loaded bent-over rows recommended."""
    if "back" not in normalize_constraints(constraints).injuries:
        return True
    return not recommended_mentions(reply_text, BACK_RISKS)


_WORKOUT_TERMS = Lexicon.of(
    words(
        """
        sets reps repetitions exercise exercises workout training session sessions squat
        squats cardio split warm cooldown rest push pull press row plank circuit minutes
        series repetitions seance seances entrainement exercice echauffement recuperation
        gainage
    """
    )
)
_MEAL_TERMS = Lexicon.of(
    words(
        """
        kcal calories protein proteins carbs carbohydrates fat fats macros meal meals
        breakfast lunch dinner snack snacks grams proteines glucides lipides repas dejeuner
        diner collation collations grammes
    """
    )
    + ["petit dejeuner"]
)


def delivers_workout_plan(reply_text: str, constraints: ConstraintsLike = None) -> bool:
    """The workout advisor's reply actually contains a programme (at least 3 distinct training terms)."""
    return len(set(recommended_mentions(reply_text, _WORKOUT_TERMS, window=0))) >= 3


def delivers_meal_plan(reply_text: str, constraints: ConstraintsLike = None) -> bool:
    """The nutrition advisor's reply actually contains a meal plan (at least 3 distinct nutrition terms)."""
    return len(set(recommended_mentions(reply_text, _MEAL_TERMS, window=0))) >= 3


@dataclass(frozen=True)
class VerifierSpec:
    """A verifier and when it applies (to these constraints, for this recipient)."""

    name: str
    check: Callable[[str, ConstraintsLike], bool]
    applies: Callable[[Constraints, str | None], bool]


VERIFIERS: dict[str, VerifierSpec] = {
    spec.name: spec
    for spec in (
        VerifierSpec(
            "no_meat_when_vegetarian",
            no_meat_when_vegetarian,
            lambda c, r: bool(c.diets & {"vegetarian", "vegan", "pescatarian"}),
        ),
        VerifierSpec(
            "no_animal_products_when_vegan",
            no_animal_products_when_vegan,
            lambda c, r: "vegan" in c.diets,
        ),
        VerifierSpec("no_allergen", no_allergen, lambda c, r: bool(c.allergies)),
        VerifierSpec(
            "no_lunges_with_knee_injury",
            no_lunges_with_knee_injury,
            lambda c, r: "knee" in c.injuries,
        ),
        VerifierSpec(
            "no_overhead_with_shoulder_injury",
            no_overhead_with_shoulder_injury,
            lambda c, r: "shoulder" in c.injuries,
        ),
        VerifierSpec(
            "no_spinal_loading_with_back_injury",
            no_spinal_loading_with_back_injury,
            lambda c, r: "back" in c.injuries,
        ),
        VerifierSpec(
            "delivers_workout_plan", delivers_workout_plan, lambda c, r: r == "workout_advisor"
        ),
        VerifierSpec(
            "delivers_meal_plan", delivers_meal_plan, lambda c, r: r == "nutrition_advisor"
        ),
    )
}
"""Every verifier by name; the coach's advisors are the default recipients of the delivery checks."""


def applicable_verifiers(constraints: ConstraintsLike, recipient: str | None = None) -> list[str]:
    """Names of the verifiers that apply to these constraints and this destination."""
    c = normalize_constraints(constraints)
    return [name for name, spec in VERIFIERS.items() if spec.applies(c, recipient)]


def verify(
    reply_text: str,
    constraints: ConstraintsLike,
    recipient: str | None = None,
    names: Iterable[str] | None = None,
    at: datetime | None = None,
) -> ResultCheck | None:
    """Run the applicable verifiers; the result records `a+b+c` and whether all passed, no text.

    Returns None when no verifier applies (the receipt then has no result, which the
    classifier treats as not verified).
    """
    chosen = list(names) if names is not None else applicable_verifiers(constraints, recipient)
    if not chosen:
        return None
    c = normalize_constraints(constraints)
    passed = all(VERIFIERS[name].check(reply_text, c) for name in chosen)
    return ResultCheck(verifier="+".join(chosen), passed=passed, checked_at=at or utcnow())
