"""A package's public names imported on first use: a package whose modules load LangGraph,
LangChain or Chroma can be imported by `relais --help` (for its settings or its CLI) without them."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any


def lazy_attributes(package: str, where: dict[str, str]) -> Callable[[str], Any]:
    """The package's module-level `__getattr__`: `name` from module `where[name]`, loaded then."""

    def __getattr__(name: str) -> Any:
        if name in where:
            return getattr(import_module(where[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
