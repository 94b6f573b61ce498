"""Debate memory on disk: one public transcript, and private files per team.

- `shared_memory.json`: the official record, approved arguments only; both teams read it.
- `<team>/persona.json`, `<team>/thinking.json`, `<team>/critique.json`: private. They are
  reachable only through `DebateMemory.private(team)`, so a node built for one team cannot
  read the other team's files by accident: prompts are built from that handle alone.

Every write goes to a temp file in the same folder, then `os.replace` (atomic on POSIX and
Windows): a crash leaves the previous JSON or the new one, never half of one. Entries are keyed
by (round, attempt) and replaced on rewrite, so a node re-run after a resume is idempotent.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from debate.schemas import CritiqueOutput, PersonaCard, PersonaOutput, Team, ThinkingOutput

SHARED_FILE = "shared_memory.json"
PRIVATE_FILES = ("persona.json", "thinking.json", "critique.json")


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON so readers never see a partial file (temp file + fsync + os.replace)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, ensure_ascii=False, indent=2)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_json(path: Path, default: Any) -> Any:
    if not path.exists():
        return default
    return json.loads(path.read_text(encoding="utf-8"))


class PublishedArgument(BaseModel):
    """One approved argument in the public transcript."""

    round: int
    team: Team
    argument: str
    evidence: list[str] = Field(default_factory=list)


def _key(entry: dict[str, Any]) -> tuple[int, int]:
    return int(entry["round"]), int(entry.get("attempt", 0))


def _upsert(entries: list[dict[str, Any]], entry: dict[str, Any]) -> list[dict[str, Any]]:
    """Replace the entry with the same (round, attempt), keep the list ordered by that key."""
    kept = [e for e in entries if _key(e) != _key(entry)]
    return sorted([*kept, entry], key=_key)


class SharedMemory:
    """The public transcript: approved arguments in the order they were published."""

    def __init__(self, root: Path) -> None:
        self.path = root / SHARED_FILE

    def arguments(self) -> list[PublishedArgument]:
        data = read_json(self.path, {"arguments": []})
        return [PublishedArgument.model_validate(a) for a in data["arguments"]]

    def publish(self, argument: PublishedArgument) -> None:
        """Append (or replace the same round+team, so a re-run never duplicates)."""
        existing = [
            a for a in self.arguments() if (a.round, a.team) != (argument.round, argument.team)
        ]
        ordered = sorted([*existing, argument], key=lambda a: (a.round, a.team != "pros"))
        write_json_atomic(self.path, {"arguments": [a.model_dump() for a in ordered]})

    def latest_by(self, team: Team, before_round: int | None = None) -> PublishedArgument | None:
        args = [a for a in self.arguments() if a.team == team]
        if before_round is not None:
            args = [a for a in args if a.round < before_round]
        return args[-1] if args else None

    def ensure(self) -> None:
        if not self.path.exists():
            write_json_atomic(self.path, {"arguments": []})


class TeamMemory:
    """One team's private files. Obtain it only via `DebateMemory.private(team)`."""

    def __init__(self, root: Path, team: Team) -> None:
        self.team = team
        self.dir = root / team
        self.persona_path = self.dir / "persona.json"
        self.thinking_path = self.dir / "thinking.json"
        self.critique_path = self.dir / "critique.json"

    # --- persona.json ------------------------------------------------------------------
    def _persona_doc(self) -> dict[str, Any]:
        return read_json(self.persona_path, {"team": self.team, "current": None, "decisions": []})

    def persona(self, before: tuple[int, int] | None = None) -> PersonaCard | None:
        """The current persona, or the one in force before decision `(round, attempt)`."""
        decisions = self._persona_doc()["decisions"]
        if before is not None:
            decisions = [d for d in decisions if _key(d) < before]
        for decision in reversed(decisions):
            if decision.get("persona"):
                return PersonaCard.model_validate(decision["persona"])
        return None

    def record_persona(
        self, round_: int, attempt: int, output: PersonaOutput
    ) -> tuple[PersonaCard, bool]:
        """Store the decision; returns the persona now in force and whether it changed."""
        previous = self.persona(before=(round_, attempt))
        if output.decision == "keep" and previous is not None:
            card, changed = previous, False
        elif output.persona is not None:
            card = output.persona
            changed = previous is not None and card.model_dump() != previous.model_dump()
        else:  # "keep" with nothing to keep: the caller validated this cannot happen
            raise ValueError("no persona to keep")
        doc = self._persona_doc()
        entry = {
            "round": round_,
            "attempt": attempt,
            "decision": output.decision,
            "rationale": output.rationale,
            "persona": card.model_dump(),
            "changed": changed,
        }
        doc["decisions"] = _upsert(doc["decisions"], entry)
        doc["current"] = _last_persona(doc["decisions"])
        write_json_atomic(self.persona_path, doc)
        return card, changed

    def persona_decisions(self) -> list[dict[str, Any]]:
        return list(self._persona_doc()["decisions"])

    # --- thinking.json -------------------------------------------------------------------
    def record_thinking(self, round_: int, attempt: int, output: ThinkingOutput) -> None:
        doc = read_json(self.thinking_path, {"team": self.team, "entries": []})
        entry = {"round": round_, "attempt": attempt, **output.model_dump()}
        doc["entries"] = _upsert(doc["entries"], entry)
        write_json_atomic(self.thinking_path, doc)

    def thinking(self, round_: int, attempt: int) -> ThinkingOutput | None:
        doc = read_json(self.thinking_path, {"entries": []})
        for entry in doc["entries"]:
            if _key(entry) == (round_, attempt):
                fields = {k: v for k, v in entry.items() if k not in ("round", "attempt")}
                return ThinkingOutput.model_validate(fields)
        return None

    # --- critique.json -------------------------------------------------------------------
    def record_critique(
        self, round_: int, attempt: int, audited: str, output: CritiqueOutput
    ) -> None:
        doc = read_json(self.critique_path, {"team": self.team, "entries": []})
        entry = {
            "round": round_,
            "attempt": attempt,
            "audited_argument": audited,
            **output.model_dump(),
        }
        doc["entries"] = _upsert(doc["entries"], entry)
        write_json_atomic(self.critique_path, doc)

    def critiques(self, round_: int | None = None) -> list[dict[str, Any]]:
        entries = read_json(self.critique_path, {"entries": []})["entries"]
        return [e for e in entries if round_ is None or e["round"] == round_]

    def ensure(self) -> None:
        """Create the three files empty, so a fresh run directory shows its full layout."""
        if not self.persona_path.exists():
            write_json_atomic(
                self.persona_path, {"team": self.team, "current": None, "decisions": []}
            )
        for path in (self.thinking_path, self.critique_path):
            if not path.exists():
                write_json_atomic(path, {"team": self.team, "entries": []})


def _last_persona(decisions: list[dict[str, Any]]) -> dict[str, Any] | None:
    for decision in reversed(decisions):
        if decision.get("persona"):
            return decision["persona"]
    return None


class DebateMemory:
    """The memory of one debate run, rooted in its output directory."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.shared = SharedMemory(self.root)
        self._teams: dict[str, TeamMemory] = {}

    def private(self, team: Team) -> TeamMemory:
        """The private memory of `team` — the only way to read persona/thinking/critique."""
        if team not in ("pros", "cons"):
            raise ValueError(f"unknown team {team!r}")
        if team not in self._teams:
            self._teams[team] = TeamMemory(self.root, team)
        return self._teams[team]

    def ensure(self) -> None:
        self.shared.ensure()
        for team in ("pros", "cons"):
            self.private(team).ensure()  # type: ignore[arg-type]
