"""What a turn needs from the knowledge base and from a hand-off audit, as protocols: the
orchestrator is typed against these, so a test (or another store) can stand in without the
orchestrator importing Chroma or the audit's receipts at module load."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, AsyncIterator, Protocol, Sequence

if TYPE_CHECKING:  # types only: the knowledge base loads the encoder and Chroma on first use
    from knowledge.retrieval import Hit
    from relais.embeddings import Embedder


class KnowledgeSource(Protocol):
    """The searchable knowledge base (`knowledge.retrieval.KnowledgeBase`)."""

    embedder: Embedder

    def is_empty(self) -> bool:
        """True before anything is indexed: the turn then says so instead of answering."""
        ...

    def search(self, query: str, top_k: int | None = None, mode: str | None = None) -> list[Hit]:
        """The best passages for `query`, best first."""
        ...


class HandoffAudit(Protocol):
    """Evidence of one hand-off (`handoff_audit.ForwardAudit`): what was sent, what came back."""

    def sent(self, *, message: str | None, user_id: str | None, history: Sequence[Any] | None,
             thread_id: str | None = None, **extra: Any) -> None:
        """The request's context, recorded before the agent is called."""
        ...

    def watch(self, events: AsyncIterator[Any]) -> AsyncIterator[Any]:
        """The agent's events passed through unchanged while observed."""
        ...
