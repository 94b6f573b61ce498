"""The booking agent as `langgraph.json` serves it: no checkpointer (the server's), the model
from the settings (`relais.models`; none configured → the offline engine)."""

from __future__ import annotations

from booking.agent import build_booking_agent
from relais.models import chat_model

graph = build_booking_agent(chat_model(temperature=0), served=True)
