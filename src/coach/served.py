"""The coach as `langgraph.json` serves it: no checkpointer (the server's), the model from the
settings (`relais.models`; none configured → the offline engine), retries as in `CoachRunner`."""

from __future__ import annotations

from coach.graph import build_coach_graph
from relais.models import chat_model
from relais.retry import RetryPolicy
from relais.settings import get_settings

_model = chat_model(temperature=0)
graph = build_coach_graph(
    _model, served=True, retry=RetryPolicy.for_model_calls(get_settings()) if _model is not None else None
)
