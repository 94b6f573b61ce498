"""The booking agent: `create_agent` + three tools, writes behind `HumanInTheLoopMiddleware`.

`find_classes` runs at once; `book_class` (approve / edit / reject) and `cancel_booking`
(approve / reject) pause the run with LangChain's standard approval interrupt, so any client
that speaks that format — Relais, agent-chat-ui — can ask the person first.

Served by a LangGraph server the graph is compiled without a checkpointer (the server brings
its own); in-process it needs one for the interrupt (default: in memory).
"""

from __future__ import annotations

from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware, InterruptOnConfig
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import ToolCall
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.state import CompiledStateGraph

from booking.catalog import ACTIVITY_LABELS, DAY_LABELS
from booking.engine import OfflineBookingModel
from booking.settings import BookingSettings, booking_settings
from booking.store import BookingStore
from booking.tools import BOOK, CANCEL, make_tools
from relais.language import detect_language

SYSTEM_PROMPT = (
    "You are the booking assistant of a fitness studio. Use `find_classes` to see the timetable, "
    "`book_class` to book a class (activity, day of the week, start time HH:MM) and `cancel_booking` to "
    "cancel a booking by its number. A person approves every booking and cancellation before it happens: "
    "call the tool directly, do not ask for confirmation in words. Reply in the person's language, briefly."
)
_DESCRIPTIONS = {
    BOOK: {"en": "Book {activity} on {day} at {time}.", "fr": "Réserver {activity} le {day} à {time}."},
    CANCEL: {"en": "Cancel booking #{booking_id}.", "fr": "Annuler la réservation n° {booking_id}."},
}


def _describe(tool_call: ToolCall, state: Any, runtime: Any) -> str:
    """What the person approves, in their language (the card also shows the raw arguments)."""
    humans = [str(m.content) for m in state.get("messages", []) if getattr(m, "type", "") == "human"]
    language = detect_language(humans[-1], default="en") if humans else "en"
    args = dict(tool_call.get("args") or {})
    if tool_call["name"] == BOOK:
        args["activity"] = ACTIVITY_LABELS[language].get(str(args.get("activity")), args.get("activity", "?"))
        args["day"] = DAY_LABELS[language].get(str(args.get("day")), args.get("day", "?"))
    template = _DESCRIPTIONS.get(tool_call["name"], {}).get(language, "{name}")
    try:
        return template.format(**{"time": "?", "booking_id": "?", **args})
    except (KeyError, IndexError):
        return tool_call["name"]


APPROVALS: dict[str, InterruptOnConfig] = {
    BOOK: {"allowed_decisions": ["approve", "edit", "reject"], "description": _describe},
    CANCEL: {"allowed_decisions": ["approve", "reject"], "description": _describe},
}


def default_store(settings: BookingSettings | None = None) -> BookingStore:
    return BookingStore((settings or booking_settings()).store_path)


def build_booking_agent(
    model: BaseChatModel | None = None,
    checkpointer: BaseCheckpointSaver | None = None,
    *,
    store: BookingStore | None = None,
    served: bool = False,
) -> CompiledStateGraph:
    """Compile the agent. `model=None` is the offline engine; `served=True` compiles without a
    checkpointer (a LangGraph server refuses a graph that brings its own)."""
    saver = None if served else (checkpointer if checkpointer is not None else InMemorySaver())
    return create_agent(
        model if model is not None else OfflineBookingModel(),
        tools=make_tools(store or default_store()),
        system_prompt=SYSTEM_PROMPT,
        middleware=[HumanInTheLoopMiddleware(interrupt_on=dict(APPROVALS))],
        checkpointer=saver,
        name="booking",
    )
