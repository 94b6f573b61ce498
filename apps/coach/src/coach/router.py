"""Deterministic EN/FR keyword router: which advisor answers the person's last message.

Rules, in order (the same message always gives the same hop, and no model is ever called):

1. Both domains match → **nutrition** (the conflict rule). A message that mentions food *and*
   training ("what should I eat before the gym?", "protein to support my workout plan") asks
   about eating around training; the training words are context, the question is about food.
2. Only nutrition keywords match → ``nutrition_advisor``; only workout keywords → ``workout_advisor``.
3. Neither matches ("tell me more", "adjust it") → ``last_active_agent``, the advisor already in
   charge of the thread.
4. Neither matches on a new thread (no last agent) → ``workout_advisor``: people who open a
   fitness app usually ask about training first.

Keywords are accent-free stems in the notation of `coach._text` and cover English and French
forms (eat/eating/manger/mangé, reps/répétitions, injury/blessure, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from coach._text import find_keywords, normalize
from coach.state import AGENTS, NUTRITION, WORKOUT, AgentName

WORKOUT_KEYWORDS: tuple[str, ...] = (
    # English
    "workout*", "work out", "working out", "exercis*", "train", "trains", "training", "trainer*",
    "gym*", "rep", "reps", "sets", "set of", "squat*", "deadlift*", "bench press*", "bench",
    "lunge*", "push-up*", "pull-up*", "chin-up*", "plank*", "cardio*", "hiit", "interval*",
    "run", "runs", "running", "runner*", "jog*", "sprint*", "swim*", "cycling", "bike", "biking",
    "muscl*", "strength", "stronger", "lift", "lifts", "lifting", "weightlift*", "weights",
    "split", "routine*", "stretch*", "mobility", "warm-up*", "cooldown", "cool-down",
    "injur*", "knee*", "shoulder*", "back pain", "lower back", "sore*", "sprain*", "tendon*",
    "hurt", "hurts", "hurting", "ache", "aches", "aching", "in pain", "painful", "pain in my",
    "abs", "glute", "glutes", "gluteal", "hamstring*", "quad", "quads", "bicep*", "tricep*", "chest day", "leg day",
    "dumbbell*", "barbell*", "kettlebell*", "treadmill*", "rowing machine", "marathon*",
    "endurance", "stamina", "flexibility", "yoga", "pilates", "rest day*", "hypertroph*",
    "bodyweight", "calisthenic*", "physio*", "fitness plan", "exercise plan", "sport*",
    "get fit", "fitter", "in shape", "tone up", "toning", "posture", "session", "sessions",
    # French
    "entrain*", "seance*", "exercice*", "muscu*", "salle de sport", "salle de gym", "repetition*",
    "serie", "series", "fente*", "pompe*", "traction*", "gainage", "courir", "course a pied",
    "footing", "jogging", "natation", "nager", "velo", "fractionne*", "force", "haltere*",
    "blesse*", "blessu*", "genou*", "epaule*", "mal au dos", "mal au", "mal a la", "mal aux", "douleur*", "dos", "lombaire*", "cheville*", "poignet*",
    "etirement*", "echauffement*", "abdo*", "fessier*", "jambe*", "pectora*", "cuisse*",
    "souplesse", "kine*", "sportif*", "sportive*", "en forme", "remise en forme", "tonifier",
)

NUTRITION_KEYWORDS: tuple[str, ...] = (
    # English
    "eat", "eats", "eating", "ate", "eaten", "food*", "meal*", "diet*", "nutrition*", "nutrient*",
    "protein*", "calori*", "kcal", "macro*", "carb*", "fats", "fibre", "fiber", "sugar*",
    "breakfast*", "lunch*", "dinner*", "supper", "brunch", "snack*", "vegetarian*", "vegan*",
    "veggie*", "pescatarian*", "pescetarian*", "plant-based", "allerg*", "intoleran*", "lactose",
    "gluten*", "dairy", "peanut*", "nuts", "egg", "eggs", "recipe*", "cook*", "grocer*",
    "supplement*", "creatine", "whey", "hydrat*", "drink*", "water", "vitamin*", "keto",
    "fasting", "menu*", "portion*", "tofu", "chicken", "rice", "fruit*", "vegetable*",
    "hungry", "hunger", "appetite", "cheat meal*", "halal", "kosher", "coeliac", "celiac",
    "oat", "oats", "oatmeal", "porridge", "banana*", "coffee", "caffeine", "pasta", "bread",
    "yogurt*", "yoghurt*", "cheese*", "meat*", "fish", "salmon", "tuna", "beef", "pork", "milk*",
    "smoothie*", "shake", "shakes", "protein bar*", "juice*", "alcohol", "beer*", "wine", "potato*",
    "avocado*", "salad*", "soup*", "sandwich*", "pizza*", "burger*", "sweets", "dessert*",
    "chocolate*", "lentil*", "bean", "beans", "legume*",
    # French
    "manger", "mange", "manges", "mangent", "mangeons", "mangez", "mangé", "nourri*",
    "aliment*", "repas", "regime*", "proteine*", "glucide*", "lipide*", "petit dejeuner",
    "petit-dej*", "dejeuner", "diner", "collation*", "gouter", "=en-cas", "encas", "vegetarien*",
    "vegetalien*", "vege", "veggie", "allergi*", "intoleran*", "laitier*", "oeuf*", "noix",
    "arachide*", "cacahu*", "recette*", "cuisin*", "complement* alimentaire*", "boire",
    "boisson*", "eau", "sucre*", "faim", "appetit", "legume*", "feculent*", "viande*",
    "poisson*", "poulet", "riz", "fromage*", "pates", "cafe", "jus", "alcool", "biere*", "vin",
    "soupe*", "salade*", "pomme*", "banane*", "avoine", "flocons", "chocolat*", "gateau*",
    "sucreries", "patate*", "yaourt*", "lait", "lentille*", "haricot*", "tofu",
)


@dataclass(frozen=True)
class RouteDecision:
    """The chosen advisor and why — for the CLI, logs and tests."""

    agent: AgentName
    reason: str  # "conflict_rule" | "nutrition_keywords" | "workout_keywords" | "fallback_last" | "new_thread"
    workout_hits: tuple[str, ...] = field(default_factory=tuple)
    nutrition_hits: tuple[str, ...] = field(default_factory=tuple)

    def as_dict(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "reason": self.reason,
            "workout_hits": list(self.workout_hits),
            "nutrition_hits": list(self.nutrition_hits),
        }


def normalize_agent(value: Any) -> AgentName | None:
    """Accept `workout_advisor`, `workout`, `nutrition`, None/"" (new thread)..."""
    if value is None:
        return None
    text = str(value).strip().lower()
    if text in ("", "none", "null"):
        return None
    for agent in AGENTS:
        if text == agent or text == agent.split("_")[0]:
            return agent
    raise ValueError(f"unknown agent {value!r}; expected one of {AGENTS}")


def explain_route(text: str, last_active_agent: str | None = None) -> RouteDecision:
    """Route `text` and say which rule decided (see the module docstring)."""
    norm = normalize(text)
    workout = tuple(dict.fromkeys(h.keyword for h in find_keywords(norm, WORKOUT_KEYWORDS)))
    nutrition = tuple(dict.fromkeys(h.keyword for h in find_keywords(norm, NUTRITION_KEYWORDS)))
    if workout and nutrition:
        return RouteDecision(NUTRITION, "conflict_rule", workout, nutrition)
    if nutrition:
        return RouteDecision(NUTRITION, "nutrition_keywords", workout, nutrition)
    if workout:
        return RouteDecision(WORKOUT, "workout_keywords", workout, nutrition)
    last = normalize_agent(last_active_agent)
    if last is not None:
        return RouteDecision(last, "fallback_last", workout, nutrition)
    return RouteDecision(WORKOUT, "new_thread", workout, nutrition)


def route(text: str, last_active_agent: str | None = None) -> AgentName:
    """The advisor that should answer `text` (deterministic; never calls a model)."""
    return explain_route(text, last_active_agent).agent


def last_human_text(messages: list[Any]) -> str:
    """The content of the most recent human message (what the router reads)."""
    for message in reversed(messages):
        if getattr(message, "type", None) == "human":
            content = message.content
            if isinstance(content, list):
                return " ".join(
                    str(b.get("text", "")) if isinstance(b, dict) else str(b) for b in content
                )
            return str(content)
    return ""


def router_node(state: dict[str, Any]) -> dict[str, Any]:
    """Graph node: picks the advisor for the last human message and records it as in charge."""
    agent = route(last_human_text(state.get("messages", [])), state.get("last_active_agent"))
    return {"last_active_agent": agent}


def next_advisor(state: dict[str, Any]) -> AgentName:
    """Conditional edge after the router node."""
    return state.get("last_active_agent") or WORKOUT
