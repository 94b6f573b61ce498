"""Chainlit rendering of Relais events (the only place that turns events into UI)."""
