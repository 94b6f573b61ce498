"""What each LLM node must answer, as pydantic models (`with_structured_output(Schema)`).

A reply that does not fit raises `ValidationError` inside the node, before anything reaches
the graph state or the memory files; the retry policy then asks again.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, field_validator, model_validator

Team = Literal["pros", "cons"]
TEAMS: tuple[Team, Team] = ("pros", "cons")


def opponent(team: Team) -> Team:
    return "cons" if team == "pros" else "pros"


def team_label(team: Team) -> str:
    return "Pros" if team == "pros" else "Cons"


class DraftOutput(BaseModel):
    """The team's first version of this round's argument."""

    argument: str = Field(
        min_length=1, description="The argument, as it would be said in the debate."
    )
    evidence: list[str] = Field(
        default_factory=list, description="Each fact, example or source the argument rests on."
    )


class PersonaCard(BaseModel):
    """The team's adversarial identity: the anchor later outputs are checked against."""

    name: str = Field(min_length=1, description="A short name for this persona.")
    identity: str = Field(min_length=1, description="Who speaks: background, values, voice.")
    strategy: str = Field(min_length=1, description="How this persona attacks and defends now.")
    constraints: list[str] = Field(
        default_factory=list, description="Behavioural rules the team's arguments must respect."
    )


class PersonaOutput(BaseModel):
    """Keep the current persona or evolve a new one from the opponent's latest moves."""

    decision: Literal["keep", "evolve"] = Field(
        description="'keep' the current persona, or 'evolve' into the persona given here."
    )
    persona: PersonaCard | None = Field(
        None, description="The new persona; required when evolving or when none exists yet."
    )
    rationale: str = Field(
        min_length=1, description="Why keep or evolve, given the opponent's moves."
    )

    @field_validator("decision", mode="before")
    @classmethod
    def _normalise(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @model_validator(mode="after")
    def _evolve_needs_persona(self) -> PersonaOutput:
        if self.decision == "evolve" and self.persona is None:
            raise ValueError("decision 'evolve' needs the new persona")
        return self


class ThinkingOutput(BaseModel):
    """The private stress test of the draft, and the argument it leads to."""

    logical_gaps: list[str] = Field(default_factory=list, description="Steps that do not follow.")
    weak_evidence: list[str] = Field(
        default_factory=list, description="Evidence chains that are thin, unsourced or overstated."
    )
    rhetorical_inconsistencies: list[str] = Field(
        default_factory=list,
        description="Tone or claims inconsistent with the persona or earlier rounds.",
    )
    notes: str = Field("", description="Private reasoning (never published).")
    revised_argument: str = Field(
        min_length=1, description="The argument after fixing what the stress test found."
    )
    evidence: list[str] = Field(
        default_factory=list, description="The evidence the revision rests on."
    )


class CritiqueOutput(BaseModel):
    """The hostile auditor's verdict; `is_approved` drives the graph's conditional edges."""

    is_approved: bool = Field(description="True only if no reason to reject survives scrutiny.")
    critique_feedback: str = Field(
        description="Why it is rejected (or what barely passed): concrete, actionable points."
    )
    revised_argument: str | None = Field(
        None,
        description="Optional: on approval, the final wording to publish; "
        "on rejection, a suggested rewrite.",
    )
    reasons: list[str] = Field(
        default_factory=list,
        description="Rejection grounds, e.g. circular_logic, persona_inconsistency, "
        "evidence_reuse, weak_evidence.",
    )

    @model_validator(mode="after")
    def _rejection_needs_feedback(self) -> CritiqueOutput:
        if not self.is_approved and not self.critique_feedback.strip():
            raise ValueError("a rejection must say why (critique_feedback is empty)")
        return self
