"""A class-booking agent (seed 004's "système de réservation"): LangChain `create_agent` with
tool approvals through `HumanInTheLoopMiddleware`, and a SQLite store whose rows prove
exactly-once. No UI code here: the agent is served by a LangGraph server or by Relais.

Public surface (imported lazily: `relais --help` imports `booking.settings`, hence this package,
and the agent would load LangChain and LangGraph, about +10 s on a loaded 2-core machine):
`APPROVALS`, `BookingStore`, `build_booking_agent`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from relais.lazy import lazy_attributes

__all__ = ["APPROVALS", "BookingStore", "build_booking_agent"]

_WHERE = {
    "APPROVALS": "booking.agent",
    "build_booking_agent": "booking.agent",
    "BookingStore": "booking.store",
}

if TYPE_CHECKING:  # pragma: no cover
    from booking.agent import APPROVALS, build_booking_agent
    from booking.store import BookingStore


__getattr__ = lazy_attributes(__name__, _WHERE)
