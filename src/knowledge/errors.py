"""Errors of the knowledge base, each carrying a message a user can act on."""

from __future__ import annotations


class KnowledgeError(RuntimeError):
    """Base class: anything the knowledge base reports to a user."""


class LoaderError(KnowledgeError):
    """A file could not be turned into text; `reason` says why (shown in the ingest report)."""

    def __init__(self, path: object, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class KnowledgeBaseMissing(KnowledgeError):
    """The knowledge-base folder is missing or holds no supported file."""


class StoreUnavailable(KnowledgeError):
    """The vector store cannot be opened or written (bad path, permissions, server down)."""
