"""The knowledge base's settings: where the documents are, how they are cut, indexed and searched."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field

from relais.settings import BlankIsNone, PackageSettings, cached_settings

AUTO = "auto"  # the encoder follows the documents' language (`knowledge.encoder_choice`)


class KnowledgeSettings(PackageSettings):
    """Settings of `knowledge` (the data folder is the kit's: `data_dir`)."""

    relais_kb_dir: Path = Field(Path("data/knowledge"), description="Knowledge base folder.")
    relais_kb_extensions: str = Field(
        "", description="More file suffixes mapped to a built-in loader: '.mdoc=.md,.adoc=.txt'."
    )
    relais_embedding_model: Literal["auto", "minilm", "use-multilingual"] = "auto"
    relais_query_languages: str = Field(
        "en,fr", description="Languages people ask in (default: the UI's); others than the encoder reads get a multilingual index."
    )

    chroma_host: Annotated[str | None, BlankIsNone] = None
    chroma_port: int = 8000
    relais_collection: str = "relais_kb"
    retrieval_mode: Literal["hybrid", "dense", "bm25"] = "hybrid"
    retrieval_top_k: int = 5
    retrieval_min_score: float = 0.25
    retrieval_min_margin: float = 0.2
    retrieval_fusion: Literal["convex", "rrf"] = "convex"
    retrieval_dense_weight: float = 0.6
    retrieval_lexical_weight: float = 0.4
    retrieval_normalise: Literal["max", "minmax", "zscore"] = "max"
    retrieval_rrf_k: float = 60.0
    retrieval_depth: int = 100
    chunk_size: int = 900
    chunk_overlap: int = 150
    max_file_mb: float = 10.0
    max_question_chars: int = 4000
    relais_prefill_budget_s: float = Field(
        0.0, description="Seconds an ingest may spend encoding the answer composer's sentences in advance; "
        "0 = off (the app encodes them in the background once its warm start is done).",
    )

    @property
    def chroma_dir(self) -> Path:
        return self.data_dir / "chroma"

    @property
    def lexical_dir(self) -> Path:
        return self.data_dir / "lexical"

    @property
    def kb_extensions(self) -> dict[str, str]:
        """RELAIS_KB_EXTENSIONS as {'.mdoc': '.md'} (suffixes lower-cased, dots added)."""
        mapping: dict[str, str] = {}
        for item in self.relais_kb_extensions.split(","):
            if "=" in item:
                extra, builtin = (part.strip().lower() for part in item.split("=", 1))
                if extra and builtin:
                    mapping["." + extra.lstrip(".")] = "." + builtin.lstrip(".")
        return mapping

    @property
    def chosen_encoder(self) -> str | None:
        """The encoder RELAIS_EMBEDDING_MODEL names, or None for `auto` (the one place that says
        what `auto` means: the documents decide, `knowledge.encoder_choice`)."""
        return None if self.relais_embedding_model == AUTO else self.relais_embedding_model


knowledge_settings = cached_settings(KnowledgeSettings)
"""The process-wide knowledge settings (cached; tests call `relais.settings.clear_settings_caches()`)."""
