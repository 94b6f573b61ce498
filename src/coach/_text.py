"""Text normalisation and a tiny keyword matcher shared by the router and constraint extraction.

Why our own matcher: the router must be deterministic, explainable and dependency-free. Keywords
are written once, accent-free, in a small notation:

- ``word``      the exact token (``rep`` matches "rep", not "repeat");
- ``stem*``     any token starting with the stem (``muscl*`` → muscle, muscles, musclé);
- ``two words`` a phrase (each part may be a stem); ``-`` inside a keyword also matches a space
  or nothing (``push-up`` → push-up, push up, pushup);
- ``=literal``  matched as written, hyphen included (``=en-cas`` must not match "en cas de").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from relais.language import fold_accents as fold

_PUNCT = re.compile(r"[^a-z0-9\-\s]+")
_SPACES = re.compile(r"\s+")


def normalize(text: str) -> str:
    """Lower-case, accent-free, apostrophes and punctuation turned into spaces (hyphens kept)."""
    text = fold(text).replace("'", " ")
    text = _PUNCT.sub(" ", text)
    return _SPACES.sub(" ", text).strip()


def tokens(text: str) -> list[str]:
    """Normalised word tokens (hyphenated words are split into their parts)."""
    return [t for t in re.split(r"[\s\-]+", normalize(text)) if t]


def _part_regex(part: str) -> str:
    stem = part.endswith("*")
    word = part.rstrip("*")
    pieces = [re.escape(p) for p in word.split("-")]
    core = r"[\-\s]?".join(pieces)
    return core + (r"[a-z0-9]*" if stem else "")


@lru_cache(maxsize=4096)
def keyword_regex(keyword: str) -> re.Pattern[str]:
    """Compile one keyword of the notation above into a regex over normalised text."""
    if keyword.startswith("="):
        body = re.escape(normalize(keyword[1:]).replace(" ", "\0")).replace("\0", r"\s+")
        return re.compile(rf"(?<![a-z0-9\-]){body}(?![a-z0-9\-])")
    parts = fold(keyword).split()
    body = r"\s+".join(_part_regex(p) for p in parts)
    return re.compile(rf"(?<![a-z0-9]){body}(?![a-z0-9])")


@dataclass(frozen=True)
class Match:
    """One keyword hit: which keyword, and where in the normalised text."""

    keyword: str
    start: int
    end: int


def find_keywords(text_norm: str, keywords: Iterable[str]) -> list[Match]:
    """Every keyword of `keywords` present in already-normalised text, in text order."""
    return list(_find_keywords(text_norm, tuple(keywords)))


def has_any(text_norm: str, keywords: Iterable[str]) -> bool:
    return _has_any(text_norm, tuple(keywords))


# Constraints are re-read from the whole conversation every turn: memoising the per-text
# keyword scans keeps a long conversation's turn cost flat instead of growing with its length.
@lru_cache(maxsize=16384)
def _find_keywords(text_norm: str, keywords: tuple[str, ...]) -> tuple[Match, ...]:
    hits: list[Match] = []
    for kw in keywords:
        for m in keyword_regex(kw).finditer(text_norm):
            hits.append(Match(kw, m.start(), m.end()))
    return tuple(sorted(hits, key=lambda h: (h.start, -h.end)))


@lru_cache(maxsize=16384)
def _has_any(text_norm: str, keywords: tuple[str, ...]) -> bool:
    return any(keyword_regex(kw).search(text_norm) for kw in keywords)


_CLAUSE_SPLIT = re.compile(r"[.!?;\n]+|,\s*(?:but|mais|and|et)\s+|\s+(?:but|mais)\s+")


def clauses(text: str) -> list[str]:
    """A message cut into clauses, so a negation or a body part stays with its own statement."""
    return [c.strip() for c in _CLAUSE_SPLIT.split(text) if c and c.strip()]


_EMOJI_MODIFIERS = re.compile("[\U0001F3FB-\U0001F3FF\uFE0F\u200d\\s!.]+")


def only_emoji(text: str, allowed: frozenset[str]) -> bool:
    """`text` is nothing but emoji of `allowed` (skin tones, variation selectors, spaces aside)."""
    rest = _EMOJI_MODIFIERS.sub("", text or "")
    return bool(rest) and all(ch in allowed for ch in rest)
