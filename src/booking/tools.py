"""The agent's three tools. `find_classes` only reads; `book_class` and `cancel_booking` write,
so the agent puts them behind a person's approval, and they write keyed by their tool call id."""

from __future__ import annotations

from typing import Annotated

from langchain_core.tools import BaseTool, InjectedToolCallId, tool

from booking.catalog import (
    ACTIVITIES,
    DAYS,
    classes,
    find_activity,
    find_time,
    lookup,
    normalise_day,
)
from booking.store import BookingStore

FIND, BOOK, CANCEL = "find_classes", "book_class", "cancel_booking"


def make_tools(store: BookingStore) -> list[BaseTool]:
    """The tools bound to one store (the served graph's, or a test's temporary one)."""

    @tool(FIND)
    def find_classes(activity: str = "", day: str = "") -> str:
        """List the studio's classes, optionally for one activity and/or one day of the week."""
        act = find_activity(activity) if activity else None
        d = normalise_day(day) if day else None
        if activity and act is None:
            return f"Unknown activity {activity!r}. Activities: {', '.join(ACTIVITIES)}."
        found = classes(act, d)
        if not found:
            return "No class matches."
        return "\n".join(f"- {c.activity}, {c.day} {c.time} ({c.places} places)" for c in found)

    @tool(BOOK)
    def book_class(
        activity: str, day: str, time: str, tool_call_id: Annotated[str, InjectedToolCallId], name: str = ""
    ) -> str:
        """Book a place in a class: activity (e.g. yoga), day of the week, start time HH:MM, optional name."""
        act, d, t = find_activity(activity), normalise_day(day), find_time(time) or time
        if act is None or d is None or d not in DAYS:
            return f"Not booked: unknown activity or day ({activity!r}, {day!r})."
        found = lookup(act, d, t)
        if found is None:
            times = ", ".join(f"{c.day} {c.time}" for c in classes(act)) or "none"
            return f"Not booked: there is no {act} class on {d} at {t}. {act} classes: {times}."
        booking, _ = store.book(tool_call_id, found.activity, found.day, found.time, name.strip())
        return f"Booked #{booking.id}: {booking.activity}, {booking.day} {booking.time}" + (
            f" for {booking.name}" if booking.name else ""
        ) + "."

    @tool(CANCEL)
    def cancel_booking(booking_id: int, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Cancel an existing booking by its number."""
        cancelled = store.cancel(tool_call_id, int(booking_id))
        if cancelled is None:
            return f"Not cancelled: there is no active booking #{booking_id}."
        return f"Cancelled #{cancelled.id}: {cancelled.activity}, {cancelled.day} {cancelled.time}."

    return [find_classes, book_class, cancel_booking]
