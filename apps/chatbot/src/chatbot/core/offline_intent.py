"""Offline intent classification: nearest labelled examples in sentence-embedding space.

The few-shot file (`RELAIS_INTENTS_FILE`, YAML list of `{text, label}`) is the whole model:
swap it with the knowledge base. Each question is compared with every example; the score is
the mean similarity of its top-k ALTER neighbours minus that of its top-k NORMAL neighbours,
and ALTER wins above `INTENT_THRESHOLD`. The encoder is the packaged multilingual USE: on the
held-out EN/FR set it scores 96.8% (k=3) where MiniLM, English-only, scores 81% and the two
combined 95.7% (see README, Quality).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np
import yaml

from chatbot.core.intent_classifier import IntentType
from relais.embeddings import Embedder, get_embedder
from relais.settings import Settings, get_settings

DEFAULT_ENCODERS = ("use-multilingual",)


@dataclass(frozen=True)
class IntentExample:
    text: str
    label: IntentType


@dataclass(frozen=True)
class IntentResult:
    intent: IntentType
    score: float  # > threshold means ALTER; the margin between the two classes
    nearest: str  # the closest example, for explanations
    engine: str = "offline:nearest-example"


def load_examples(path: Path) -> list[IntentExample]:
    """Read the few-shot file; a clear error if it is missing or malformed."""
    if not path.is_file():
        raise FileNotFoundError(f"intent examples file not found: {path} (set RELAIS_INTENTS_FILE)")
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    items = raw.get("examples", raw) if isinstance(raw, dict) else raw
    examples: list[IntentExample] = []
    for i, item in enumerate(items or []):
        try:
            examples.append(IntentExample(str(item["text"]).strip(), IntentType(str(item["label"]).upper())))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{path}: example #{i + 1} needs text and label NORMAL|ALTER") from exc
    labels = {e.label for e in examples}
    if labels != {IntentType.NORMAL, IntentType.ALTER}:
        raise ValueError(f"{path}: needs examples of both NORMAL and ALTER")
    return examples


def format_few_shots(examples: Sequence[IntentExample], limit: int = 16) -> str:
    """A few examples of each label as prompt text for the LLM classifier."""
    lines: list[str] = []
    for label in (IntentType.NORMAL, IntentType.ALTER):
        picked = [e for e in examples if e.label is label][: limit // 2]
        lines += [f"Q: {e.text}\nA: {'ALTER ...' if label is IntentType.ALTER else '(answer from context)'}" for e in picked]
    return "\n".join(lines)


@lru_cache(maxsize=4)
def _few_shots_text(path: str, mtime: float) -> str:
    return format_few_shots(load_examples(Path(path)))


def few_shots_for(path: Path) -> str:
    """The few-shot prompt text for the examples file, read once (again only if it changes)."""
    resolved = path.expanduser().resolve()
    return _few_shots_text(str(resolved), resolved.stat().st_mtime if resolved.exists() else 0.0)


class NearestExampleClassifier:
    """k-nearest labelled examples over one or more packaged sentence encoders."""

    def __init__(
        self,
        examples: Sequence[IntentExample],
        encoders: Sequence[Embedder],
        k: int = 3,
        threshold: float = 0.0,
    ) -> None:
        self.examples = list(examples)
        self.encoders = list(encoders)
        self.k = k
        self.threshold = threshold
        self._labels = np.array([e.label is IntentType.ALTER for e in self.examples])
        self._matrix = self._encode([e.text for e in self.examples])

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        parts = [encoder.embed_documents(list(texts)) for encoder in self.encoders]
        joined = np.hstack(parts) / np.sqrt(len(parts))  # each part is unit-norm
        return joined.astype(np.float32)

    def classify(self, text: str) -> IntentResult:
        sims = self._matrix @ self._encode([text])[0]
        alter = np.sort(sims[self._labels])[::-1][: self.k]
        normal = np.sort(sims[~self._labels])[::-1][: self.k]
        score = float(alter.mean() - normal.mean())
        intent = IntentType.ALTER if score > self.threshold else IntentType.NORMAL
        return IntentResult(intent, score, self.examples[int(np.argmax(sims))].text)


@lru_cache(maxsize=4)
def _cached_classifier(path: str, mtime: float, threshold: float) -> NearestExampleClassifier:
    encoders = [get_embedder(name) for name in DEFAULT_ENCODERS]
    return NearestExampleClassifier(load_examples(Path(path)), encoders, threshold=threshold)


def get_offline_classifier(settings: Settings | None = None) -> NearestExampleClassifier:
    """The process-wide classifier for the configured few-shot file (rebuilt if it changes)."""
    settings = settings or get_settings()
    path = settings.relais_intents_file.expanduser().resolve()
    mtime = path.stat().st_mtime if path.exists() else 0.0
    return _cached_classifier(str(path), mtime, settings.intent_threshold)
