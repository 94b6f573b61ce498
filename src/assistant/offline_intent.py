"""Offline intent classification: nearest labelled examples in sentence-embedding space.

The few-shot file (`RELAIS_INTENTS_FILE`, YAML list of `{text, label}`) is the whole model:
swap it with the knowledge base. Each question is compared with every example; the score is
the mean similarity of its top-k ALTER neighbours minus that of its top-k NORMAL neighbours.
ALTER needs confidence, because the hand-off is one-way: the message must carry content
(`assistant.input_guard`, checked before any encoding), the score must exceed the margin
`INTENT_THRESHOLD`, and the nearest ALTER example must be at least `INTENT_MIN_SIMILARITY` close
— junk is far from every example, so its small positive margins mean nothing. The encoder is the packaged multilingual USE: on the
held-out EN/FR set it scores 96.8% (k=3) where MiniLM, English-only, scores 81% and the two
combined 95.7% (see README, Quality).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import yaml

from assistant.input_guard import InputGuard, Verdict, vocabulary
from assistant.intent_classifier import IntentType
from assistant.settings import AssistantSettings, assistant_settings
from relais.embeddings import Embedder, get_embedder

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
    guard: str = "content"  # the input guard's verdict; anything else is NORMAL without scoring


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
        min_similarity: float = 0.0,
    ) -> None:
        self.examples = list(examples)
        self.encoders = list(encoders)
        self.k = k
        self.threshold = threshold
        self.min_similarity = min_similarity
        self.guard = InputGuard(vocabulary(e.text for e in self.examples))
        self._labels = np.array([e.label is IntentType.ALTER for e in self.examples])
        self._matrix = self._encode([e.text for e in self.examples])

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        parts = [encoder.embed_documents(list(texts)) for encoder in self.encoders]
        joined = np.hstack(parts) / np.sqrt(len(parts))  # each part is unit-norm
        return joined.astype(np.float32)

    def _encode_question(self, text: str) -> np.ndarray:
        """One question, through each encoder's query path: simultaneous questions share one
        forward pass (`relais.embeddings.QueryBatcher`) instead of queueing one by one."""
        parts = [encoder.embed_query(text) for encoder in self.encoders]
        return (np.hstack(parts) / np.sqrt(len(parts))).astype(np.float32)

    def assess(self, text: str) -> Verdict:
        """The input guard's verdict, with the examples' words as known vocabulary."""
        return self.guard.assess(text)

    def classify(self, text: str) -> IntentResult:
        verdict = self.assess(text)
        if not verdict.has_content:
            return IntentResult(IntentType.NORMAL, -1.0, "", guard=verdict.kind)  # -1: not scored
        sims = self._matrix @ self._encode_question(text)
        alter = np.sort(sims[self._labels])[::-1][: self.k]
        normal = np.sort(sims[~self._labels])[::-1][: self.k]
        score = float(alter.mean() - normal.mean())
        confident = score > self.threshold and float(alter[0]) >= self.min_similarity
        intent = IntentType.ALTER if confident else IntentType.NORMAL
        return IntentResult(intent, score, self.examples[int(np.argmax(sims))].text)


@lru_cache(maxsize=4)
def _cached_classifier(path: str, mtime: float, threshold: float, min_similarity: float) -> NearestExampleClassifier:
    encoders = [get_embedder(name) for name in DEFAULT_ENCODERS]
    return NearestExampleClassifier(
        load_examples(Path(path)), encoders, threshold=threshold, min_similarity=min_similarity
    )


def get_offline_classifier(settings: AssistantSettings | None = None) -> NearestExampleClassifier:
    """The process-wide classifier for the configured few-shot file (rebuilt if it changes)."""
    settings = settings or assistant_settings()
    path = settings.relais_intents_file.expanduser().resolve()
    mtime = path.stat().st_mtime if path.exists() else 0.0
    return _cached_classifier(str(path), mtime, settings.intent_threshold, settings.intent_min_similarity)


@lru_cache(maxsize=4)
def _cached_guard(path: str, mtime: float) -> InputGuard:
    return InputGuard(vocabulary(e.text for e in load_examples(Path(path))))


def get_input_guard(settings: AssistantSettings | None = None) -> InputGuard:
    """The guard over the few-shot file's words, without loading any encoder (the LLM path)."""
    settings = settings or assistant_settings()
    path = settings.relais_intents_file.expanduser().resolve()
    mtime = path.stat().st_mtime if path.exists() else 0.0
    return _cached_guard(str(path), mtime)
