"""Structured outputs asked of a model (splitter, worker, judge, lesson writer).

Malformed replies fail validation before anything reaches the graph state; the caller then
retries (transient) or records the failure on the unit.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class HitVerdict(BaseModel):
    """Keep or discard one search hit, always with a reason."""

    hit_id: str
    keep: bool
    reason: str = Field(description="why it is (not) about the price being changed")


class UnitBrief(BaseModel):
    """A self-contained one-line instruction for one article."""

    path: str
    brief: str = Field(description="one line: goal, where in the article, what must stay unchanged")


class SplitPlan(BaseModel):
    """The splitter's answer: a verdict for every hit and a brief for every kept article."""

    verdicts: list[HitVerdict]
    briefs: list[UnitBrief]


class RewrittenArticle(BaseModel):
    """A worker's answer: the complete article, rewritten."""

    text: str = Field(description="the full text of the article and nothing else")


class JudgeVerdict(BaseModel):
    """A judge's single pass/fail answer about one article."""

    contradicts: bool = Field(description="true if the article still contradicts the new value")
    problems: list[str] = Field(default_factory=list,
                                description="each: paragraph number, the exact text, what it should be")
    needs_person: bool = Field(False, description="true if fixing it needs a decision the brief does not give")


class LessonDraft(BaseModel):
    """A short lesson for every worker's brief."""

    text: str = Field(description="one short instruction (at most 30 words)")
