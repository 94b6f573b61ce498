"""The coach's request and plan schemas, and the provider protocols that compute plans.

Kept apart from the LangChain tools (`coach.tools`) so a provider (the rule-based ones, or a
real fitness/nutrition API) depends on the schemas only, never on the tools that call it.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from pydantic import BaseModel, Field

from coach.constraints import Diet, Equipment, Goal
from coach.language import Language


# --- requests ----------------------------------------------------------------------------------
class WorkoutRequest(BaseModel):
    """What a workout provider needs."""

    goal: Goal = "general"
    days_per_week: int | None = Field(None, ge=1, le=7)
    equipment: Equipment = "gym"
    injuries: list[str] = Field(default_factory=list)
    strength_per_week: int | None = Field(None, ge=0, le=7)  # only when the person split them
    cardio_per_week: int | None = Field(None, ge=0, le=7)
    session_minutes: int | None = Field(None, ge=10, le=180)
    language: Language = "en"


class MealRequest(BaseModel):
    """What a nutrition provider needs."""

    goal: Goal = "general"
    diet: Diet = "omnivore"
    allergies: list[str] = Field(default_factory=list)
    intolerances: list[str] = Field(default_factory=list)
    avoid: list[str] = Field(default_factory=list)
    weight_kg: float | None = None
    meals_per_day: int | None = Field(None, ge=1, le=8)
    target_kcal: int | None = Field(None, ge=1000, le=6000)
    target_weight_kg: float | None = None
    days: int = Field(1, ge=1, le=7)  # "meals for the week" → 7: the days after the first vary
    language: Language = "en"


# --- plans -------------------------------------------------------------------------------------
class ExerciseItem(BaseModel):
    key: str
    name: str
    sets_reps: str
    tags: list[str] = Field(default_factory=list)


class Session(BaseModel):
    title: str
    exercises: list[ExerciseItem]
    finisher: str | None = None


class CardioSession(BaseModel):
    title: str
    activity: str
    activity_key: str
    prescription: str
    tags: list[str] = Field(default_factory=list)


class WorkoutPlan(BaseModel):
    """A week of training: split, sessions (exercises with sets × reps), cardio and schedule."""

    goal: Goal
    equipment: Equipment
    injuries: list[str]
    strength_days: int
    split: str
    session_minutes: int | None = None
    sessions_per_week: int = 0  # strength days + separate cardio days (finishers ride along)
    sessions: list[Session]
    cardio: list[CardioSession]
    schedule: list[str]
    rest: str
    progression: str
    adaptations: list[str] = Field(default_factory=list)
    assumptions: list[str] = Field(default_factory=list)
    language: Language = "en"


class FoodPortion(BaseModel):
    key: str
    label: str
    grams: int
    tags: list[str] = Field(default_factory=list)


class Meal(BaseModel):
    slot: str
    time: str
    name: str
    items: list[FoodPortion]
    kcal: int
    protein_g: int
    carbs_g: int
    fat_g: int


class DayMenu(BaseModel):
    """Another day of the same plan: its meals (same targets and restrictions) and their total."""

    meals: list[Meal]
    total_kcal: int
    total_protein_g: int


class MealPlan(BaseModel):
    """A day of meals and snacks meeting a kcal/macro target and every food restriction; for a
    period (a week) the following days' menus, varied, in `next_days`."""

    goal: Goal
    diet: Diet
    allergies: list[str]
    intolerances: list[str]
    avoid: list[str]
    excluded_tags: list[str]
    target_kcal: int
    target_protein_g: int
    target_carbs_g: int
    target_fat_g: int
    meals: list[Meal]
    total_kcal: int
    total_protein_g: int
    total_carbs_g: int
    total_fat_g: int
    timing: str
    notes: list[str] = Field(default_factory=list)
    next_days: list[DayMenu] = Field(default_factory=list)
    language: Language = "en"


# --- provider protocols --------------------------------------------------------------------------
@runtime_checkable
class WorkoutProvider(Protocol):
    def workout_plan(self, request: WorkoutRequest) -> WorkoutPlan: ...


@runtime_checkable
class NutritionProvider(Protocol):
    def meal_plan(self, request: MealRequest) -> MealPlan: ...
