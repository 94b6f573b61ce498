"""Choosing the components from settings: a model when one is configured, else offline."""

from __future__ import annotations

from pathlib import Path

from kb_update.graph import Components
from kb_update.job import Job
from kb_update.publish import knowledge_reingest
from knowledge.settings import KnowledgeSettings, knowledge_settings
from relais.models import chat_model
from relais.settings import secret_values


def components_for(job: Job, settings: KnowledgeSettings | None = None, *, reingest: bool = True) -> Components:
    """Model splitter/worker/judge/lessons with `relais.models.chat_model()`, or the offline set.

    The judge is a second model instance (temperature 0), distinct from the worker's.
    """
    settings = settings or knowledge_settings()
    hook = knowledge_reingest(settings) if reingest else None
    model = chat_model(settings.kit)
    if model is None:
        parts = Components.offline(job, reingest=hook)
    else:
        parts = Components.with_model(job, model, judge_model=chat_model(settings.kit, temperature=0.0), reingest=hook)
    parts.secrets = tuple(secret_values(settings))
    parts.journal = Path(settings.data_dir) / "kb_update_publishes.jsonl"
    parts.lesson_memory = Path(settings.data_dir) / "kb_update_lessons.json"
    return parts
