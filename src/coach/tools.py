"""The advisors' tools behind a stable interface: request and plan schemas, provider protocols,
and the two LangChain tools (`workout_plan`, `meal_plan`).

The graph only knows the tools' names and arguments. What computes a plan is a *provider*: the
rule-based ones shipped here, or a real fitness/nutrition API later — pass another provider to
`make_workout_tool` / `make_meal_tool` (or `build_coach_graph(..., workout_provider=...)`) and
nothing else changes.

Both tools read the constraints found in the whole conversation (injected graph state, invisible
to the model) and merge them with the model's arguments, the stricter side winning: a model
that forgets "vegetarian" or "knee" cannot make a plan ignore it.
"""

from __future__ import annotations

from typing import Annotated, Any

from langchain_core.messages import AnyMessage
from langchain_core.tools import BaseTool, tool
from langgraph.prebuilt import InjectedState

from coach._text import has_any, normalize
from coach._vocabulary import BODY_PART_WORDS, FOOD_WORDS
from coach.constraints import (
    Constraints,
    Diet,
    Equipment,
    Goal,
    constraints_from_messages,
)
from coach.nutrition_rules import RuleBasedNutritionProvider
from coach.plans import MealRequest, NutritionProvider, WorkoutProvider, WorkoutRequest
from coach.workout_rules import RuleBasedWorkoutProvider

WORKOUT_TOOL = "workout_plan"
MEAL_TOOL = "meal_plan"


# --- merging model arguments with the conversation --------------------------------------------
_DIET_STRICTNESS = {"omnivore": 0, "pescatarian": 1, "vegetarian": 2, "vegan": 3}


def _areas(values: list[str] | None) -> set[str]:
    out: set[str] = set()
    for value in values or []:
        norm = normalize(str(value))
        found = {area for area, words in BODY_PART_WORDS.items() if has_any(norm, words)}
        out |= found or ({norm} if norm in BODY_PART_WORDS else {"unspecified"})
    return out


def _foods(values: list[str] | None) -> set[str]:
    out: set[str] = set()
    for value in values or []:
        norm = normalize(str(value)).replace(" ", "_")
        if norm in FOOD_WORDS:
            out.add(norm)
            continue
        text = normalize(str(value))
        out |= {key for key, words in FOOD_WORDS.items() if has_any(text, words)}
    return out


def workout_request(args: dict[str, Any], found: Constraints) -> WorkoutRequest:
    """Model arguments + conversation constraints → the provider's request."""
    injuries = _areas(args.get("injuries")) | set(found.injuries)
    if len(injuries) > 1:
        injuries.discard("unspecified")
    return WorkoutRequest(
        goal=args.get("goal") or found.goal or "general",
        days_per_week=args.get("days_per_week") or found.days_per_week,
        equipment=args.get("equipment") or found.equipment or "gym",
        injuries=sorted(injuries),
        strength_per_week=found.strength_per_week,
        cardio_per_week=found.cardio_per_week,
        session_minutes=found.session_minutes,
        language=found.language,
    )


def meal_request(args: dict[str, Any], found: Constraints) -> MealRequest:
    """Model arguments + conversation constraints → the provider's request (stricter wins)."""
    diets = [d for d in (args.get("diet"), found.diet) if d in _DIET_STRICTNESS]
    diet = max(diets, key=_DIET_STRICTNESS.__getitem__) if diets else "omnivore"
    return MealRequest(
        goal=args.get("goal") or found.goal or "general",
        diet=diet,
        allergies=sorted(_foods(args.get("allergies")) | set(found.allergies)),
        intolerances=sorted(_foods(args.get("intolerances")) | set(found.intolerances)),
        avoid=sorted(set(found.avoid)),
        weight_kg=found.weight_kg,
        meals_per_day=found.meals_per_day,
        days=found.meal_days or 1,
        target_kcal=found.target_kcal,
        target_weight_kg=found.target_weight_kg,
        language=found.language,
    )


# --- the tools ---------------------------------------------------------------------------------
def make_workout_tool(provider: WorkoutProvider | None = None) -> BaseTool:
    """The workout advisor's one tool, backed by `provider` (rule-based by default)."""
    if provider is None:
        provider = RuleBasedWorkoutProvider()
    chosen: WorkoutProvider = provider

    @tool(WORKOUT_TOOL)
    def workout_plan(
        goal: Goal | None = None,
        days_per_week: int | None = None,
        equipment: Equipment | None = None,
        injuries: list[str] | None = None,
        messages: Annotated[list[AnyMessage] | None, InjectedState("messages")] = None,
    ) -> str:
        """Build a weekly training programme (split, exercises with sets x reps, cardio sessions).

        Args:
            goal: muscle, fat_loss, endurance, mixed (build muscle and lose fat) or general.
            days_per_week: training days available per week (1-7).
            equipment: gym, dumbbells or bodyweight.
            injuries: body areas to protect, e.g. ["knee", "shoulder"].
        """
        args = {
            "goal": goal,
            "days_per_week": days_per_week,
            "equipment": equipment,
            "injuries": injuries,
        }
        request = workout_request(args, constraints_from_messages(messages or []))
        return chosen.workout_plan(request).model_dump_json()

    return workout_plan


def make_meal_tool(provider: NutritionProvider | None = None) -> BaseTool:
    """The nutrition advisor's one tool, backed by `provider` (rule-based by default)."""
    if provider is None:
        provider = RuleBasedNutritionProvider()
    chosen: NutritionProvider = provider

    @tool(MEAL_TOOL)
    def meal_plan(
        goal: Goal | None = None,
        diet: Diet | None = None,
        allergies: list[str] | None = None,
        intolerances: list[str] | None = None,
        messages: Annotated[list[AnyMessage] | None, InjectedState("messages")] = None,
    ) -> str:
        """Build a day of meals and snacks with daily kcal and macros, respecting the diet (and the
        following days' menus, varied, when the person asked for a period such as a week).

        Args:
            goal: muscle, fat_loss, endurance, mixed (build muscle and lose fat) or general.
            diet: omnivore, pescatarian, vegetarian or vegan.
            allergies: foods that must never appear, e.g. ["peanuts", "sesame"].
            intolerances: foods to leave out, e.g. ["lactose", "gluten"].
        """
        args = {"goal": goal, "diet": diet, "allergies": allergies, "intolerances": intolerances}
        request = meal_request(args, constraints_from_messages(messages or []))
        return chosen.meal_plan(request).model_dump_json()

    return meal_plan


def tool_args_from_constraints(tool_name: str, found: Constraints) -> dict[str, Any]:
    """The arguments the offline engine passes (only what is known, so labels stay short)."""
    if tool_name == WORKOUT_TOOL:
        args: dict[str, Any] = {
            "goal": found.goal or "general",
            "days_per_week": found.days_per_week,
            "equipment": found.equipment,
            "injuries": found.injuries,
        }
    else:
        args = {
            "goal": found.goal or "general",
            "diet": found.diet,
            "allergies": found.allergies,
            "intolerances": found.intolerances,
        }
    return {k: v for k, v in args.items() if v not in (None, [], "")}


def __getattr__(name: str) -> BaseTool:
    """`coach.tools.workout_plan` / `meal_plan`: the default rule-based tools, built on first use."""
    if name in (WORKOUT_TOOL, MEAL_TOOL):
        made = make_workout_tool() if name == WORKOUT_TOOL else make_meal_tool()
        globals()[name] = made
        return made
    raise AttributeError(f"module 'coach.tools' has no attribute {name!r}")
