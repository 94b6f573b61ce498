"""Prompts for the four team steps. Builders take plain values, never a memory object.

Each builder receives only what its team may see: the public transcript plus that team's own
private material, handed over by the node from `DebateMemory.private(team)`. The first line
of every system prompt names the step and the team (`You are the CRITIQUE agent of the CONS
team`), which keeps logs readable and lets tests tell the steps apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from debate.memory import PublishedArgument
from debate.schemas import PersonaCard, Team, team_label

TRANSCRIPT_WINDOW = 6
"""Arguments of the public transcript quoted in full (older ones are only counted)."""

_ROLE_TEXT = {
    "draft": (
        "Write your team's argument for this round: one focused argument of about 120-250 words "
        "that advances your side and answers the opponent's latest argument if there is one. "
        "Stay in your persona if you have one. Rest it on evidence your team has NOT used in "
        "earlier rounds, and list each piece of evidence separately."
    ),
    "persona": (
        "You own your team's adversarial identity (its persona): the anchor every argument of "
        "your team is checked against. Read the current persona and the opponent's latest moves, "
        "then decide: 'keep' it if it still serves, or 'evolve' a new strategic persona when the "
        "opponent's moves or the critic's feedback call for a different angle. Consistency across "
        "rounds is measured, so change only for a reason you can state. If there is no persona "
        "yet, create one (decision 'evolve')."
    ),
    "thinking": (
        "Stress-test the draft before the critic sees it. Find logical gaps (steps that do not "
        "follow), weak evidence chains (unsourced, anecdotal, overstated, or already used by "
        "your team in an earlier round) and rhetorical inconsistencies (tone or claims that "
        "contradict the persona or your team's earlier rounds). Then write the revised argument "
        "that fixes them; if the critic gave feedback, address every point. Your notes are "
        "private and never published."
    ),
    "critique": (
        "You are a deliberately hostile internal auditor: your only job is to find reasons to "
        "reject your own team's argument before the opponent does. Reject it if the logic is "
        "circular (the conclusion hides in a premise), if it is inconsistent with the persona "
        "(identity, strategy, constraints, tone), if it reasons from the same evidence as your "
        "team's previous round, if its evidence is weak or unsupported, or if it ignores the "
        "opponent's latest argument. Approve only when no serious reason survives. When you "
        "reject, give concrete feedback saying what to fix and list the grounds in `reasons` "
        "(circular_logic, persona_inconsistency, evidence_reuse, weak_evidence, "
        "ignores_opponent, other). When you approve, you may put the final wording in "
        "`revised_argument` (tightening only, no new claims)."
    ),
}


@dataclass(frozen=True)
class TeamView:
    """What one team may see when it works: public record + its own private memory."""

    motion: str
    team: Team
    round: int
    rounds: int
    transcript: list[PublishedArgument]
    persona: PersonaCard | None = None
    own_earlier_evidence: list[str] = field(default_factory=list)


def system_prompt(node: str, view: TeamView, extra: str = "") -> str:
    side = "FOR" if view.team == "pros" else "AGAINST"
    lines = [
        (
            f"You are the {node.upper()} agent of the {view.team.upper()} team "
            "in a formal two-team debate."
        ),
        f'Motion: "{view.motion}"',
        (
            f"Your team ({team_label(view.team)}) argues {side} the motion. "
            f"Round {view.round} of {view.rounds}."
        ),
        "Write in the language of the motion.",
        "",
        _ROLE_TEXT[node],
    ]
    if extra:
        lines += ["", extra]
    return "\n".join(lines)


def render_transcript(arguments: list[PublishedArgument]) -> str:
    if not arguments:
        return "(no argument published yet)"
    shown = arguments[-TRANSCRIPT_WINDOW:]
    head = (
        [f"({len(arguments) - len(shown)} earlier arguments not shown)"]
        if len(arguments) > len(shown)
        else []
    )
    return "\n\n".join(head + [_render_argument(a) for a in shown])


def _render_argument(arg: PublishedArgument) -> str:
    text = f"[Round {arg.round} · {team_label(arg.team)}]\n{arg.argument}"
    if arg.evidence:
        text += "\nEvidence: " + "; ".join(arg.evidence)
    return text


def render_persona(persona: PersonaCard | None) -> str:
    if persona is None:
        return "(none yet)"
    text = f"{persona.name}: {persona.identity}\nStrategy: {persona.strategy}"
    if persona.constraints:
        text += "\nConstraints: " + "; ".join(persona.constraints)
    return text


def _section(title: str, body: str) -> str:
    return f"## {title}\n{body.strip() or '(empty)'}"


def _bullets(items: list[str]) -> str:
    return "\n".join(f"- {item}" for item in items) if items else "(none)"


def _messages(system: str, sections: list[str]) -> list[BaseMessage]:
    body = "\n\n".join(sections) + "\n\nAnswer with the structured fields only."
    return [SystemMessage(content=system), HumanMessage(content=body)]


def _opponent_latest(view: TeamView) -> PublishedArgument | None:
    theirs = [a for a in view.transcript if a.team != view.team]
    return theirs[-1] if theirs else None


def _common(view: TeamView) -> list[str]:
    latest = _opponent_latest(view)
    return [
        _section("Public transcript so far", render_transcript(view.transcript)),
        _section(
            "Opponent's latest argument", _render_argument(latest) if latest else "(none yet)"
        ),
        _section("Your persona", render_persona(view.persona)),
        _section(
            "Evidence your team already used in earlier rounds", _bullets(view.own_earlier_evidence)
        ),
    ]


def draft_messages(view: TeamView) -> list[BaseMessage]:
    return _messages(system_prompt("draft", view), _common(view))


def persona_messages(
    view: TeamView, feedback: str | None, changes_so_far: int
) -> list[BaseMessage]:
    sections = _common(view)
    sections.append(_section("Persona changes your team made so far", str(changes_so_far)))
    if feedback:
        sections.append(_section("The critic rejected your last pass", feedback))
    return _messages(system_prompt("persona", view), sections)


def thinking_messages(
    view: TeamView,
    draft: str,
    evidence: list[str],
    feedback: str | None,
    suggestion: str | None,
    budget_tokens: int,
) -> list[BaseMessage]:
    sections = _common(view) + [
        _section("Draft to stress-test", draft),
        _section("Its evidence", _bullets(evidence)),
    ]
    if feedback:
        sections.append(_section("The critic rejected your last pass", feedback))
    if suggestion:
        sections.append(_section("The critic's suggested rewrite", suggestion))
    extra = f"Your thinking budget is about {budget_tokens} tokens in total."
    return _messages(system_prompt("thinking", view, extra), sections)


def critique_messages(
    view: TeamView,
    argument: str,
    evidence: list[str],
    notes: str,
    previous_own: PublishedArgument | None,
    repeated: list[tuple[str, str]],
) -> list[BaseMessage]:
    sections = _common(view) + [
        _section("Argument under audit", argument),
        _section("Its evidence", _bullets(evidence)),
        _section("Your team's private stress-test notes", notes),
        _section(
            "Your team's previous-round argument",
            _render_argument(previous_own) if previous_own else "(none: first round)",
        ),
        _section(
            "Automatic check: evidence that repeats your team's earlier rounds",
            _bullets([f"{new!r} ~ earlier {old!r}" for new, old in repeated]),
        ),
    ]
    return _messages(system_prompt("critique", view), sections)


_WORD = re.compile(r"\w+", re.UNICODE)


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2}


def repeated_evidence(
    current: list[str], earlier: list[str], threshold: float = 0.6
) -> list[tuple[str, str]]:
    """Pairs (current, earlier) whose word sets overlap enough to count as the same evidence.

    Overlap is |A∩B| / min(|A|, |B|), so a reworded or trimmed citation of the same source
    still matches; the critic decides what to make of it.
    """
    pairs: list[tuple[str, str]] = []
    earlier_words = [(e, _words(e)) for e in earlier]
    for item in current:
        words = _words(item)
        if not words:
            continue
        for old, old_words in earlier_words:
            if old_words and len(words & old_words) / min(len(words), len(old_words)) >= threshold:
                pairs.append((item, old))
                break
    return pairs
