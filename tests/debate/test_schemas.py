"""Structured outputs reject what the graph could not route or store."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from debate.prompts import repeated_evidence
from debate.schemas import CritiqueOutput, PersonaOutput


def test_critique_rejection_must_say_why() -> None:
    with pytest.raises(ValidationError):
        CritiqueOutput(is_approved=False, critique_feedback="  ")
    assert CritiqueOutput(is_approved=True, critique_feedback="").revised_argument is None
    with pytest.raises(ValidationError):
        CritiqueOutput.model_validate({"critique_feedback": "missing the verdict"})


def test_persona_evolve_needs_a_persona_and_decision_is_normalised() -> None:
    with pytest.raises(ValidationError):
        PersonaOutput(decision="evolve", rationale="new angle")
    assert (
        PersonaOutput.model_validate({"decision": " Keep ", "rationale": "fine"}).decision == "keep"
    )
    with pytest.raises(ValidationError):
        PersonaOutput.model_validate({"decision": "maybe", "rationale": "?"})


def test_repeated_evidence_matches_reworded_citations_only() -> None:
    earlier = ["OECD 2019 report on urban congestion costs", "Paris air quality data 2022"]
    current = ["the OECD 2019 report on congestion costs", "Oslo car-free centre pilot results"]
    assert repeated_evidence(current, earlier) == [(current[0], earlier[0])]
    assert repeated_evidence(current, []) == []
