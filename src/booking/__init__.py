"""A class-booking agent (seed 004's "système de réservation"): LangChain `create_agent` with
tool approvals through `HumanInTheLoopMiddleware`, and a SQLite store whose rows prove
exactly-once. No UI code here: the agent is served by a LangGraph server or by Relais."""

from booking.agent import APPROVALS, build_booking_agent
from booking.store import BookingStore

__all__ = ["APPROVALS", "BookingStore", "build_booking_agent"]
