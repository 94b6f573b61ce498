"""Relais kit: settings, the model seam, embeddings, retry policy and logging."""

from relais.models import EngineInfo, ModelNotConfigured, chat_model, engine_info, is_offline
from relais.settings import Settings, get_settings

__all__ = ["EngineInfo", "ModelNotConfigured", "Settings", "chat_model", "engine_info", "get_settings", "is_offline"]
