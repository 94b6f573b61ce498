"""The knowledge base: ingest a folder, retrieve with hybrid search, answer offline, evaluate.

Public API (imported lazily, so `import knowledge.cli` stays light):

- `KnowledgeBase`, `Hit`, `get_knowledge_base`  — retrieval (`knowledge.retrieval`)
- `ingest_folder`, `IngestReport`                — incremental ingest (`knowledge.ingest`)
- `extractive_answer`, `ExtractiveAnswer`        — offline answers (`knowledge.extractive`)
- `detect_language`                              — EN/FR guess (`knowledge.language`)
- `evaluate_retrieval`                           — BEIR evaluation (`knowledge.evaluation`)
- errors: `KnowledgeError`, `KnowledgeBaseMissing`, `LoaderError`, `StoreUnavailable`
"""

from __future__ import annotations

from relais.lazy import lazy_attributes

_EXPORTS = {
    "KnowledgeBase": "knowledge.retrieval",
    "Hit": "knowledge.retrieval",
    "RetrievalConfig": "knowledge.retrieval",
    "get_knowledge_base": "knowledge.retrieval",
    "ingest_folder": "knowledge.ingest",
    "IngestReport": "knowledge.ingest",
    "extractive_answer": "knowledge.extractive",
    "ExtractiveAnswer": "knowledge.extractive",
    "not_found_message": "knowledge.extractive",
    "detect_language": "knowledge.language",
    "evaluate_retrieval": "knowledge.evaluation",
    "KnowledgeError": "knowledge.errors",
    "KnowledgeBaseMissing": "knowledge.errors",
    "LoaderError": "knowledge.errors",
    "StoreUnavailable": "knowledge.errors",
}

__all__ = [
    "ExtractiveAnswer",
    "Hit",
    "IngestReport",
    "KnowledgeBase",
    "KnowledgeBaseMissing",
    "KnowledgeError",
    "LoaderError",
    "RetrievalConfig",
    "StoreUnavailable",
    "detect_language",
    "evaluate_retrieval",
    "extractive_answer",
    "get_knowledge_base",
    "ingest_folder",
    "not_found_message",
]


__getattr__ = lazy_attributes(__name__, _EXPORTS)
