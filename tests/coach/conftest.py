"""Shared helpers for the coach tests: the seed conversation and event collection."""

from __future__ import annotations

from typing import Any

from relais.events import AgentEvent, TextChunk

SEED_TURNS = [
    "Build muscle, lose fat — suggest a workout plan",
    "What should I eat to support this workout plan?",
    "I'm vegetarian, adjust the meal suggestion",
]

MEAT_AND_FISH = (
    "chicken",
    "beef",
    "turkey",
    "pork",
    "bacon",
    "ham ",
    "salmon",
    "tuna",
    "shrimp",
    "fish",
    "meat",
    "poulet",
    "bœuf",
    "dinde",
    "saumon",
    "thon",
    "crevette",
    "viande",
    "poisson",
)


async def collect(runner: Any, thread_id: str, message: str, **kwargs: Any) -> list[AgentEvent]:
    """Every event of one turn."""
    return [event async for event in runner.run_turn(thread_id, message, **kwargs)]


def text_of(events: list[AgentEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextChunk))


def kinds(events: list[AgentEvent]) -> list[str]:
    """Event type names with consecutive duplicates collapsed (TextChunk × n → one)."""
    out: list[str] = []
    for event in events:
        name = type(event).__name__
        if not out or out[-1] != name:
            out.append(name)
    return out
