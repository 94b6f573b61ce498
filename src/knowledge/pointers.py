"""Pointers in passages ("Read X", "See X", "Lisez X", "(see X)"): never quoted as an answer,
followed to the article they name (the composer's candidates include the linked article)."""

from __future__ import annotations

import posixpath
import re
from typing import Any

from knowledge.fragments import POINTER
from knowledge.passage_units import Unit, units_of
from knowledge.retrieval import Hit
from relais.sentences import split_sentences

MAX_POINTERS = 3  # linked articles followed per answer
_INLINE_POINTER = re.compile(
    r"\s*\((?:please\s+)?(?:see|read|voir|lisez|consultez|details in)\b(?:[^()]|\([^()]*\))*\)|"  # "(see [X](x.md))"
    r"[:;,]\s*(?:please\s+|veuillez\s+)?(?:see|read|refer\s+to|voir|lisez|lire|consultez|consulter)\s+(?:[^.;]|\.(?=\S))*(?=[.;]|$)",
    re.IGNORECASE)
# What a sentence keeps of itself when its main clause was the pointer: "For more information, see
# X." or "If you use SSO, see X." leaves a lead-in ("For more information.") that says nothing.
_LEAD_IN = re.compile(
    r"(?:for|if|to|when|whenever|once|in|as|before|after|unless|pour|si|s['’]il|s['’]ils|afin|dans|en|"
    r"quand|lorsque|lorsqu['’]\w+|avant|après|une fois)\b", re.IGNORECASE)
_SENTENCE_START = re.compile(r"(?:^|(?<=[.!?…])\s+)(?=\S)")


def _strip_inline(text: str) -> str:
    """`text` without its inline pointers; a sentence left with only its lead-in goes whole."""
    out: list[str] = []
    pos = 0
    for match in _INLINE_POINTER.finditer(text):
        head = text[pos:match.start()]
        starts = [m.end() for m in _SENTENCE_START.finditer(head)]
        start = starts[-1] if starts else 0
        lead = head[start:]
        if match.group(0).lstrip().startswith(",") and _LEAD_IN.match(lead) and not re.search(r"[,;:]", lead):
            head = head[:start]
            pos = match.end() + (1 if text[match.end():match.end() + 1] in (".", ";") else 0)
        else:
            pos = match.end()
        out.append(head)
    out.append(text[pos:])
    return "".join(out)


def strip_pointers(text: str) -> str:
    cleaned = _strip_inline(text).strip()
    sentences = split_sentences(cleaned)
    if len(sentences) > 1:  # "… do not roll over. See Personal training." — the pointer goes
        kept = [p for p in sentences if not POINTER.match(p.lstrip("(- "))]
        cleaned = " ".join(kept) if kept else cleaned
    if cleaned != text.strip() and cleaned and not re.search(r"[.!?…:]$", cleaned):
        cleaned += "."
    return cleaned


def is_pointer(unit: Unit) -> bool:
    """A "See X" sentence or item, or an item or list under a pointer lead-in ("Read more:")."""
    if unit.kind in ("item", "list") and unit.lead and POINTER.match(unit.lead.lstrip("(- ")):
        return True
    return unit.kind in ("sentence", "item") and bool(POINTER.match(unit.text.lstrip("(- ")))


def resolve_target(target: str, label: str, hit: Hit, kb: Any) -> str | None:
    """The source path a pointer names (a relative link, or an article title)."""
    if target and not re.match(r"^[a-z]+://|^mailto:", target, re.IGNORECASE):
        path = target.split("#")[0]
        if path:
            return posixpath.normpath(posixpath.join(posixpath.dirname(hit.source), path))
    return kb.source_titles().get(label.strip().lower()) if kb is not None else None


def pointer_targets(hits: list[Hit], kb: Any) -> list[tuple[str, float]]:
    """(source, rank) of the articles that pointer sentences of the hits send to."""
    if kb is None or not hasattr(kb, "source_chunks"):
        return []
    have = {h.source for h in hits}
    targets: list[tuple[str, float]] = []
    for rank, hit in enumerate(hits):
        for unit in units_of(hit.text):
            if unit.kind not in ("sentence", "item") or not (is_pointer(unit) or _INLINE_POINTER.search(unit.text)):
                continue
            links = unit.links or [(m, "") for m in re.findall(r"(?:read|see|lisez|voir)\s+([^.;()]+)", unit.text,
                                                                 re.IGNORECASE)]
            for label, target in links:
                source = resolve_target(target, label, hit, kb)
                if source and source not in have and all(s != source for s, _ in targets):
                    targets.append((source, rank + 0.5))
    return targets[:MAX_POINTERS]
