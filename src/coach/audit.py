"""The coach's side of the handoff audit: its route contract, what each advisor must receive, and
the result verifiers that know the coach's domain (which foods an allergy or a diet excludes,
which exercises an injury rules out). `handoff_audit` stays generic and calls these through its
`ResultVerifier` interface.

What each verifier judges is what the turn *promised*:

- `answered`: every advisor turn ends with a reply in words;
- `plan_delivered`: a turn where the advisor called its tool promised a plan, so the tool must
  have returned a valid one (an acknowledgement turn calls no tool: it is not judged as a plan);
- `respects_food_restrictions`: nothing the person's allergies, intolerances, dislikes or diet
  exclude is in the plan's foods or recommended in the reply. The exclusions are the coach's own
  (`Constraints.food_exclusions`), the very ones its planner honours: a peanut allergy excludes
  peanuts, not almonds; "nuts" excludes both;
- `respects_injuries`: no exercise the coach's catalogue rules out for an injured area is in the
  plan or recommended in the reply.

The reply is scanned with `handoff_audit.textscan` (a mention after "avoid", "no", "sans"... or a
"peanut-free"/"lait de soja" form does not count); word lists come from the coach's own tables.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from pydantic import ValidationError

from coach._exercises import CARDIO, INJURY_EXCLUDES, PATTERNS
from coach._foods import FOODS
from coach._vocabulary import FOOD_WORDS
from coach.constraints import Constraints, constraints_from_messages
from coach.plans import MealPlan, WorkoutPlan
from coach.state import AGENTS, NUTRITION, WORKOUT
from coach.tools import MEAL_TOOL, WORKOUT_TOOL
from handoff_audit.langgraph_adapter import RouteContract
from handoff_audit.textscan import Lexicon, recommended_mentions
from handoff_audit.verifiers import Check, TurnOutcome

ROUTER_CONTRACT_NAME = "coach.router/v2"  # v2: context = history + constraints (goal optional)
HUMAN_CONTRACT_NAME = "coach.human/v1"
ADVISOR_CONTEXT = ("history", "constraints")
"""What an advisor needs to answer: the conversation and the constraints read from it. The goal
is optional: without one the advisors assume a general goal and say so in their reply."""


# --- context ------------------------------------------------------------------------------------


def advisor_context(destination: str, received: Mapping[str, Any]) -> dict[str, Any]:
    """The context an advisor received, from the state its node was given.

    `history`: the messages, present when they hold the person's message; `constraints`: what
    the conversation says (an empty set of constraints is still information received); `goal`:
    reported when stated, never required.
    """
    messages = [m for m in received.get("messages") or [] if isinstance(m, BaseMessage)]
    has_request = any(isinstance(m, HumanMessage) for m in messages)
    found = constraints_from_messages(messages) if has_request else None
    return {
        "history": messages if has_request else None,
        "constraints": found,
        "goal": found.goal if found else None,
    }


# --- word lists from the coach's own tables -----------------------------------------------------

_PLANT_BEFORE = (
    "soy", "soya", "oat", "almond", "coconut", "rice", "plant", "vegan", "vegetal", "dairy",
    "lactose", "gluten", "meat", "egg", "nut", "peanut", "free", "sans", "meatless", "faux",
)  # fmt: skip
_PLANT_AFTER = (
    "de soja", "au soja", "d'avoine", "de coco", "d'amande", "d'amandes", "de riz", "vegetal",
    "vegetale", "vegetaux", "vegan", "vegane", "vegetarien", "vegetarienne", "de muscade",
    "de cacahuete", "de cacahuetes", "sans lactose", "sans gluten",
)  # fmt: skip
_STATED = (
    "allergy", "allergies", "allergic", "allergie", "allergies", "allergique", "allergiques",
    "intolerance", "intolerances", "intolerant", "intolerante", "diet", "regime", "excluded",
    "exclus", "exclues",
)  # fmt: skip
"""Words that restate the person's constraint ("Allergies: peanuts"), not recommend the food."""
_EXTRA_FOOD_WORDS: dict[str, tuple[str, ...]] = {
    "meat": ("meat", "meats", "viande*", "charcuterie", "sausage*", "saucisse*", "steak*"),
    "honey": ("honey", "miel"),
}
_MEAT_TAGS = ("poultry", "red_meat", "pork")


def _clean_name(name: str) -> str:
    """`Greek yogurt 0 %` → `Greek yogurt`; `brown rice (cooked)` → `brown rice`."""
    name = re.sub(r"\([^)]*\)", " ", name)
    return " ".join(w for w in name.split() if not re.fullmatch(r"[\d.,%×x–-]+", w))


@lru_cache(maxsize=None)
def food_lexicon(tag: str) -> Lexicon:
    """Words that name a food carrying `tag`: the router/constraint vocabulary and the food table."""
    terms = list(FOOD_WORDS.get(tag, ())) + list(_EXTRA_FOOD_WORDS.get(tag, ()))
    if tag == "meat":
        terms += [t for meat in _MEAT_TAGS for t in FOOD_WORDS.get(meat, ())]
    terms += [
        _clean_name(name)
        for food in FOODS.values()
        if tag in food.tags
        for name in (food.en, food.fr)
    ]
    terms = [t for t in terms if t and t not in ("dairy", "lactose") or t == tag]
    return Lexicon.of(
        terms or [tag], safe_before=_PLANT_BEFORE, safe_after=_PLANT_AFTER, negators=_STATED
    )


@lru_cache(maxsize=None)
def risky_exercise_lexicon(area: str) -> Lexicon:
    """Names (EN/FR) of the catalogue's exercises and cardio an injured `area` rules out."""
    excluded = INJURY_EXCLUDES.get(area, INJURY_EXCLUDES["unspecified"])
    items = [e for rows in PATTERNS.values() for e in rows] + list(CARDIO)
    names = [
        _clean_name(name)
        for item in items
        if item.tags & excluded
        for name in (item.en, item.fr)
    ]
    return Lexicon.of([n for n in names if n] or [area])


# --- reading the turn ---------------------------------------------------------------------------


def _constraints(outcome: TurnOutcome) -> Constraints:
    return constraints_from_messages(list(outcome.state.get("messages") or []))


def _tool_name(destination: str) -> str:
    return WORKOUT_TOOL if destination == WORKOUT else MEAL_TOOL


def _called_tool(outcome: TurnOutcome) -> bool:
    return any(
        isinstance(m, AIMessage) and m.tool_calls and (m.name in (None, outcome.destination))
        for m in outcome.produced
    )


def _plans(outcome: TurnOutcome) -> list[WorkoutPlan | MealPlan]:
    """The plans the advisor's tool returned this turn (error results and non-plans skipped)."""
    schema = WorkoutPlan if outcome.destination == WORKOUT else MealPlan
    plans: list[WorkoutPlan | MealPlan] = []
    for message in outcome.produced:
        if not isinstance(message, ToolMessage) or getattr(message, "status", None) == "error":
            continue
        if message.name not in (None, _tool_name(outcome.destination)):
            continue
        try:
            plans.append(schema.model_validate_json(str(message.content)))
        except (ValidationError, ValueError):
            continue
    return plans


def _plan_tags(plan: WorkoutPlan | MealPlan) -> set[str]:
    if isinstance(plan, MealPlan):
        return {tag for meal in plan.meals for item in meal.items for tag in item.tags}
    tags = {tag for s in plan.sessions for e in s.exercises for tag in e.tags}
    return tags | {tag for c in plan.cardio for tag in c.tags}


# --- verifiers ----------------------------------------------------------------------------------


def answered(outcome: TurnOutcome) -> bool:
    return bool(outcome.reply.strip())


def plan_delivered(outcome: TurnOutcome) -> bool:
    return bool(_plans(outcome))


def respects_food_restrictions(outcome: TurnOutcome) -> bool:
    excluded = _constraints(outcome).food_exclusions()
    if any(_plan_tags(p) & excluded for p in _plans(outcome) if isinstance(p, MealPlan)):
        return False
    return not any(recommended_mentions(outcome.reply, food_lexicon(tag)) for tag in excluded)


def _injury_tags(areas: Iterable[str]) -> set[str]:
    return {t for a in areas for t in INJURY_EXCLUDES.get(a, INJURY_EXCLUDES["unspecified"])}


def respects_injuries(outcome: TurnOutcome) -> bool:
    areas = _constraints(outcome).injuries
    excluded = _injury_tags(areas)
    if any(_plan_tags(p) & excluded for p in _plans(outcome) if isinstance(p, WorkoutPlan)):
        return False
    return not any(recommended_mentions(outcome.reply, risky_exercise_lexicon(a)) for a in areas)


COACH_VERIFIERS = (
    Check("answered", answered),
    Check("plan_delivered", plan_delivered, _called_tool),
    Check(
        "respects_food_restrictions",
        respects_food_restrictions,
        lambda o: bool(_constraints(o).food_exclusions()),
    ),
    Check(
        "respects_injuries",
        respects_injuries,
        lambda o: o.destination == WORKOUT and bool(_constraints(o).injuries),
    ),
)

COACH_ROUTER_CONTRACT = RouteContract(
    name=ROUTER_CONTRACT_NAME,
    routes=AGENTS,
    required_context={WORKOUT: ADVISOR_CONTEXT, NUTRITION: ADVISOR_CONTEXT},
    control_key="last_active_agent",
    default_agent=WORKOUT,
    router_node="router",
    decision_key="route_decision",
    context_of=advisor_context,
    verifiers=COACH_VERIFIERS,
)
"""The coach's router: two advisors, a new thread starts with the workout advisor."""

__all__ = [
    "ADVISOR_CONTEXT",
    "COACH_ROUTER_CONTRACT",
    "COACH_VERIFIERS",
    "HUMAN_CONTRACT_NAME",
    "advisor_context",
    "answered",
    "food_lexicon",
    "plan_delivered",
    "respects_food_restrictions",
    "respects_injuries",
    "risky_exercise_lexicon",
]
