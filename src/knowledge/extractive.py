"""The offline answer engine's entry point: an answer composed from the retrieved passages.

With no generative model configured, Relais still answers usefully: `knowledge.composer` picks
the units of the retrieved passages that state what was asked and makes them read as an answer
(antecedents, table headers, followed pointers, steps and code blocks kept whole, yes/no first),
with numbered sources. When nothing clears the bar, or the question's subject is nowhere in the
base (`knowledge.coverage`), it says so, in the question's language.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from knowledge.coverage import (
    MIN_ABSENT_WORDS,
    MIN_KNOWN_SHARE,
    MIN_SHARED_WITH_NAME,
    most_shared,
    names_spoken_of,
    question_coverage,
    shares_no_word,
    unaliased,
)
from knowledge.encoder_choice import configured_model
from knowledge.language import detect_language
from knowledge.related import related_articles
from knowledge.retrieval import Hit
from knowledge.settings import knowledge_settings
from relais.embeddings import Embedder, get_embedder
from relais.settings import get_settings

NOT_FOUND = {
    "en": "I couldn't find this in the knowledge base.",
    "fr": "Je n'ai pas trouvé cette information dans la base de connaissances.",
}


@dataclass
class ExtractiveAnswer:
    text: str
    sources: list[Hit] = field(default_factory=list)
    found: bool = False
    related: list[Hit] = field(default_factory=list)  # "see also": retrieved close behind, not cited
    weak: bool = False  # found, but barely relevant: counted with the knowledge gaps


def not_found_message(question: str) -> str:
    return NOT_FOUND[detect_language(question)]


def subject_in_base(question: str, hits: list[Hit], embedder: Embedder | None, kb: Any,
                    cache_dir: Path | None = None) -> bool:
    """Whether the base speaks of what `question` is about (`knowledge.coverage`); True when `kb`
    has no lexical index to tell. A model answering from the same passages needs the same test:
    passages that only read close to the question are no context for it."""
    index = kb.lexical() if kb is not None and hasattr(kb, "lexical") else None
    if index is None:
        return True
    embedder = embedder or getattr(kb, "embedder", None) or get_embedder(configured_model(knowledge_settings()))
    if cache_dir is None:
        cache_dir = get_settings().data_dir / "embeddings"
    coverage = question_coverage(question, index)
    language = detect_language(question)
    passages = [h.chunk().index_text for h in hits]
    if coverage.absent_words >= MIN_ABSENT_WORDS and shares_no_word(question, passages, index, language):
        return False
    texts = [h.text for h in hits[:3]]
    missing = unaliased(coverage.missing_names, texts, embedder, cache_dir)
    if missing and most_shared(question, passages[:3], index, language) < MIN_SHARED_WITH_NAME:
        return False  # a name the base never uses, and what was found barely shares a word with the rest
    return coverage.known_share >= MIN_KNOWN_SHARE and names_spoken_of(missing, texts, embedder, cache_dir, question)


def extractive_answer(question: str, hits: list[Hit], embedder: Embedder | None = None,
                      max_sentences: int = 3, cache_dir: Path | None = None, kb: Any = None) -> ExtractiveAnswer:
    """The answer to `question` composed from `hits` (`knowledge.composer`), or an honest not-found.

    `kb` (the KnowledgeBase) lets the composer follow "Read X" pointers to the linked article.
    Unit vectors go through the embedding cache (default `<data dir>/embeddings`): the same
    chunks come back across questions, so only the question is encoded most of the time.
    """
    # lazy: +0.35 s on `import chatbot.app`, whose page is served before the background warm-up answers
    from knowledge.composer import compose

    question = (question or "").strip()
    if not question or not hits:
        return ExtractiveAnswer(not_found_message(question), [], False)
    embedder = embedder or get_embedder(configured_model(knowledge_settings()))
    if cache_dir is None:
        cache_dir = get_settings().data_dir / "embeddings"
    if not subject_in_base(question, hits, embedder, kb, cache_dir):
        return ExtractiveAnswer(not_found_message(question), [], False)
    result = compose(question, hits, embedder, cache_dir, kb=kb, max_units=max_sentences,
                     not_found=not_found_message(question))
    related = related_articles(hits, result.sources) if result.found else []
    return ExtractiveAnswer(result.text, result.sources, result.found, related, result.found and result.weak)
