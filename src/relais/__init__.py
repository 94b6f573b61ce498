"""Relais kit: settings, the model seam, embeddings, retry policy, events and logging.

Submodules are imported lazily so `relais --help` and light commands stay fast.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "Settings": "relais.settings",
    "get_settings": "relais.settings",
    "EngineInfo": "relais.models",
    "ModelNotConfigured": "relais.models",
    "chat_model": "relais.models",
    "engine_info": "relais.models",
    "is_offline": "relais.models",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(name)
