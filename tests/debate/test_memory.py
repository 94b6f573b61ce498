"""Memory: public transcript, private per-team files, atomic and idempotent writes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from debate.memory import DebateMemory, PublishedArgument, write_json_atomic
from debate.schemas import CritiqueOutput, PersonaCard, PersonaOutput, ThinkingOutput


def card(name: str) -> PersonaCard:
    return PersonaCard(name=name, identity="i", strategy="s")


def test_a_crash_while_writing_leaves_the_previous_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "shared_memory.json"
    write_json_atomic(path, {"arguments": [{"n": 1}]})

    def crash(*args: object) -> None:
        raise OSError("disk died between write and rename")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        write_json_atomic(path, {"arguments": [{"n": 1}, {"n": 2}]})
    assert json.loads(path.read_text()) == {"arguments": [{"n": 1}]}
    assert [p.name for p in tmp_path.iterdir()] == ["shared_memory.json"]  # no temp file left


def test_publish_orders_pros_before_cons_and_never_duplicates(tmp_path: Path) -> None:
    memory = DebateMemory(tmp_path)
    memory.shared.publish(PublishedArgument(round=1, team="cons", argument="c1"))
    memory.shared.publish(PublishedArgument(round=1, team="pros", argument="p1"))
    memory.shared.publish(PublishedArgument(round=1, team="pros", argument="p1 again"))  # a re-run
    assert [(a.team, a.argument) for a in memory.shared.arguments()] == [
        ("pros", "p1 again"),
        ("cons", "c1"),
    ]
    assert memory.shared.latest_by("pros").argument == "p1 again"  # type: ignore[union-attr]
    assert memory.shared.latest_by("pros", before_round=1) is None


def test_private_files_are_per_team_and_need_the_team_identity(tmp_path: Path) -> None:
    memory = DebateMemory(tmp_path)
    memory.private("pros").record_thinking(
        1, 1, ThinkingOutput(revised_argument="a", notes="pros only")
    )
    memory.private("pros").record_critique(
        1, 1, "a", CritiqueOutput(is_approved=False, critique_feedback="no")
    )
    assert memory.private("cons").thinking(1, 1) is None
    assert memory.private("cons").critiques() == []
    assert memory.private("pros").thinking(1, 1).notes == "pros only"  # type: ignore[union-attr]
    assert (tmp_path / "pros" / "thinking.json").exists() and not (
        tmp_path / "cons" / "thinking.json"
    ).exists()
    with pytest.raises(ValueError):
        memory.private("judges")  # type: ignore[arg-type]


def test_persona_keep_evolve_and_rerun_of_the_same_pass(tmp_path: Path) -> None:
    team = DebateMemory(tmp_path).private("pros")
    assert team.record_persona(
        1, 1, PersonaOutput(decision="evolve", persona=card("A"), rationale="r")
    ) == (card("A"), False)
    assert team.record_persona(2, 1, PersonaOutput(decision="keep", rationale="r")) == (
        card("A"),
        False,
    )
    assert team.record_persona(
        3, 1, PersonaOutput(decision="evolve", persona=card("B"), rationale="r")
    ) == (card("B"), True)
    # the same pass re-run after a resume: same answer, no double count, history unchanged
    assert team.record_persona(
        3, 1, PersonaOutput(decision="evolve", persona=card("B"), rationale="r")
    ) == (card("B"), True)
    doc = json.loads(team.persona_path.read_text())
    assert [(d["round"], d["changed"]) for d in doc["decisions"]] == [
        (1, False),
        (2, False),
        (3, True),
    ]
    assert doc["current"]["name"] == "B"
    assert team.persona(before=(3, 1)) == card("A")
