"""The team steps as graph nodes: draft, then the inner loop Persona → Thinking → Critique,
then publish (approved) or forfeit (loop-lock).

A node built for one team reads only `memory.private(team)` and the public transcript, calls
the model through `StructuredCaller` (validated, retried), and only then writes memory and
returns its state update. Progress goes to LangGraph's custom stream, not into the state.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from langgraph.config import get_stream_writer

from debate import prompts
from debate.config import DebateConfig
from debate.events import (
    ArgumentPublished,
    LoopLocked,
    RetryScheduled,
    RoundStarted,
    StepDone,
    StepStarted,
)
from debate.llm import StructuredCaller
from debate.memory import DebateMemory, PublishedArgument
from debate.schemas import (
    CritiqueOutput,
    DraftOutput,
    PersonaOutput,
    Team,
    ThinkingOutput,
    team_label,
)
from debate.state import LOOP_LOCK_POLICY, DebateState, LoopLockRecord, TurnRecord
from relais.retry import ModelOutputError

Node = Callable[[DebateState], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class NodeContext:
    """What the nodes need at run time: config, memory, and the two model callers."""

    config: DebateConfig
    memory: DebateMemory
    debater: StructuredCaller  # draft, persona, critique
    thinker: StructuredCaller  # thinking (max_tokens = thinking_budget)


def emit(event: object) -> None:
    """Send a progress event to the run's custom stream (no-op outside a streamed run)."""
    try:
        get_stream_writer()(event)
    except RuntimeError:  # called outside a graph run (e.g. a unit test of a helper)
        pass


def _cleared_work() -> dict[str, Any]:
    """The active team's work in hand, reset when its turn ends (the other team never sees it)."""
    return {
        "draft": None,
        "feedback": None,
        "suggestion": None,
        "is_approved": None,
        "approved_text": None,
        "attempt": 0,
    }


def _advance(state: DebateState) -> dict[str, Any]:
    if state["team"] == "pros":
        return {"team": "cons"}
    return {"team": "pros", "round": state["round"] + 1}


def _where(team: Team, node: str, round_: int, attempt: int) -> str:
    pass_txt = f", pass {attempt}" if attempt else ""
    return f"{team_label(team)} {node} (round {round_}{pass_txt})"


class TeamNodes:
    """The six nodes of one team, as methods; each reads the run's context when it runs."""

    STEPS = ("draft", "persona", "thinking", "critique", "publish", "forfeit")

    def __init__(self, team: Team, get_ctx: Callable[[], NodeContext]) -> None:
        self.team = team
        self.get_ctx = get_ctx

    def view(self, state: DebateState, before: tuple[int, int]) -> prompts.TeamView:
        ctx = self.get_ctx()
        shared = ctx.memory.shared.arguments()
        return prompts.TeamView(
            motion=state["motion"],
            team=self.team,
            round=state["round"],
            rounds=state["rounds"],
            transcript=shared,
            persona=ctx.memory.private(self.team).persona(before=before),
            own_earlier_evidence=[
                e
                for a in shared
                if a.team == self.team and a.round < state["round"]
                for e in a.evidence
            ],
        )

    def retry_reporter(
        self, state: DebateState, node: str, attempt: int
    ) -> Callable[[int, BaseException, float], None]:
        max_tries = self.get_ctx().config.max_retries

        def report(failed_try: int, exc: BaseException, wait_s: float) -> None:
            emit(
                RetryScheduled(
                    state["round"],
                    self.team,
                    node,
                    failed_try,
                    max_tries,
                    f"{type(exc).__name__}: {str(exc)[:200]}",
                    wait_s,
                )
            )

        return report

    def check_team(self, state: DebateState) -> None:
        if state["team"] != self.team:  # a wiring bug, never a model problem
            raise RuntimeError(f"{self.team} node ran during {state['team']}'s turn")

    async def draft(self, state: DebateState) -> dict[str, Any]:
        self.check_team(state)
        ctx, round_ = self.get_ctx(), state["round"]
        if self.team == "pros":
            emit(RoundStarted(round_, state["rounds"]))
        emit(StepStarted(round_, self.team, "draft", 0))
        out, tries = await ctx.debater.call(
            DraftOutput,
            prompts.draft_messages(self.view(state, (round_, 1))),
            where=_where(self.team, "draft", round_, 0),
            on_retry=self.retry_reporter(state, "draft", 0),
        )
        emit(
            StepDone(
                round_,
                self.team,
                "draft",
                0,
                _short(out.argument),
                out.argument,
                {"evidence": out.evidence},
            )
        )
        return {
            **_cleared_work(),
            "draft": {"text": out.argument, "evidence": out.evidence},
            "llm_calls": tries,
            "retries": tries - 1,
        }

    async def persona(self, state: DebateState) -> dict[str, Any]:
        self.check_team(state)
        ctx, round_, attempt = self.get_ctx(), state["round"], state["attempt"] + 1
        team_memory = ctx.memory.private(self.team)
        v = self.view(state, (round_, attempt))
        changes = sum(
            1 for d in state["persona_decisions"] if d["team"] == self.team and d["changed"]
        )

        def needs_persona(out: PersonaOutput) -> None:
            if v.persona is None and out.persona is None:
                raise ModelOutputError("no persona exists yet: the reply must define one")

        emit(StepStarted(round_, self.team, "persona", attempt))
        out, tries = await ctx.debater.call(
            PersonaOutput,
            prompts.persona_messages(v, state["feedback"], changes),
            where=_where(self.team, "persona", round_, attempt),
            check=needs_persona,
            on_retry=self.retry_reporter(state, "persona", attempt),
        )
        card, changed = team_memory.record_persona(round_, attempt, out)
        verb = "evolved into" if changed else ("created" if v.persona is None else "kept")
        emit(
            StepDone(
                round_,
                self.team,
                "persona",
                attempt,
                f"{verb} persona “{card.name}”",
                f"Decision: {out.decision} ({verb})\n\n{prompts.render_persona(card)}"
                f"\n\nWhy: {out.rationale}",
                {"decision": out.decision, "changed": changed, "persona": card.model_dump()},
            )
        )
        return {
            "attempt": attempt,
            "llm_calls": tries,
            "retries": tries - 1,
            "persona_decisions": [
                {
                    "round": round_,
                    "team": self.team,
                    "attempt": attempt,
                    "decision": out.decision,
                    "changed": changed,
                }
            ],
        }

    async def thinking(self, state: DebateState) -> dict[str, Any]:
        self.check_team(state)
        ctx, round_, attempt = self.get_ctx(), state["round"], state["attempt"]
        current = state["draft"] or {"text": "", "evidence": []}
        emit(StepStarted(round_, self.team, "thinking", attempt))
        out, tries = await ctx.thinker.call(
            ThinkingOutput,
            prompts.thinking_messages(
                self.view(state, (round_, attempt + 1)),
                current["text"],
                current["evidence"],
                state["feedback"],
                state["suggestion"],
                ctx.config.thinking_budget,
            ),
            where=_where(self.team, "thinking", round_, attempt),
            on_retry=self.retry_reporter(state, "thinking", attempt),
        )
        ctx.memory.private(self.team).record_thinking(round_, attempt, out)
        found = len(out.logical_gaps) + len(out.weak_evidence) + len(out.rhetorical_inconsistencies)
        emit(
            StepDone(
                round_,
                self.team,
                "thinking",
                attempt,
                f"{found} weakness(es) found, argument revised",
                _thinking_detail(out),
                {"weaknesses": found},
            )
        )
        evidence = out.evidence or current["evidence"]
        return {
            "draft": {"text": out.revised_argument, "evidence": evidence},
            "llm_calls": tries,
            "retries": tries - 1,
        }

    async def critique(self, state: DebateState) -> dict[str, Any]:
        self.check_team(state)
        ctx, round_, attempt = self.get_ctx(), state["round"], state["attempt"]
        team_memory = ctx.memory.private(self.team)
        current = state["draft"] or {"text": "", "evidence": []}
        v = self.view(state, (round_, attempt + 1))
        notes = team_memory.thinking(round_, attempt)
        previous_own = ctx.memory.shared.latest_by(self.team, before_round=round_)
        repeated = prompts.repeated_evidence(current["evidence"], v.own_earlier_evidence)
        emit(StepStarted(round_, self.team, "critique", attempt))
        out, tries = await ctx.debater.call(
            CritiqueOutput,
            prompts.critique_messages(
                v,
                current["text"],
                current["evidence"],
                _thinking_detail(notes) if notes else "",
                previous_own,
                repeated,
            ),
            where=_where(self.team, "critique", round_, attempt),
            on_retry=self.retry_reporter(state, "critique", attempt),
        )
        team_memory.record_critique(round_, attempt, current["text"], out)
        verdict = "approved" if out.is_approved else "rejected"
        detail = f"Verdict: {verdict.upper()}\n\n{out.critique_feedback}"
        if out.reasons:
            detail += "\n\nGrounds: " + ", ".join(out.reasons)
        emit(
            StepDone(
                round_,
                self.team,
                "critique",
                attempt,
                verdict + (f": {_short(out.critique_feedback)}" if not out.is_approved else ""),
                detail,
                {"is_approved": out.is_approved, "reasons": out.reasons},
            )
        )
        update: dict[str, Any] = {
            "is_approved": out.is_approved,
            "llm_calls": tries,
            "retries": tries - 1,
        }
        if out.is_approved:
            update["approved_text"] = (out.revised_argument or "").strip() or current["text"]
        else:
            update.update(feedback=out.critique_feedback, suggestion=out.revised_argument)
        return update

    async def publish(self, state: DebateState) -> dict[str, Any]:
        self.check_team(state)
        ctx, round_ = self.get_ctx(), state["round"]
        text = state["approved_text"] or ""
        evidence = (state["draft"] or {"evidence": []})["evidence"]
        ctx.memory.shared.publish(
            PublishedArgument(round=round_, team=self.team, argument=text, evidence=evidence)
        )
        emit(ArgumentPublished(round_, self.team, text, list(evidence), state["attempt"]))
        turn: TurnRecord = {
            "round": round_,
            "team": self.team,
            "outcome": "approved",
            "attempts": state["attempt"],
        }
        return {**_cleared_work(), **_advance(state), "turns": [turn]}

    async def forfeit(self, state: DebateState) -> dict[str, Any]:
        self.check_team(state)
        round_ = state["round"]
        lock: LoopLockRecord = {
            "round": round_,
            "team": self.team,
            "attempts": state["attempt"],
            "last_feedback": state["feedback"] or "",
            "policy": LOOP_LOCK_POLICY,
        }
        emit(
            LoopLocked(round_, self.team, state["attempt"], lock["last_feedback"], LOOP_LOCK_POLICY)
        )
        turn: TurnRecord = {
            "round": round_,
            "team": self.team,
            "outcome": "forfeit",
            "attempts": state["attempt"],
        }
        return {**_cleared_work(), **_advance(state), "turns": [turn], "loop_locks": [lock]}


def make_team_nodes(team: Team, get_ctx: Callable[[], NodeContext]) -> dict[str, Node]:
    """The six nodes of one team, named `<team>_<step>`."""
    nodes = TeamNodes(team, get_ctx)
    return {f"{team}_{step}": getattr(nodes, step) for step in TeamNodes.STEPS}


def _short(text: str, limit: int = 90) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1] + "…"


def _thinking_detail(out: ThinkingOutput) -> str:
    parts = []
    for title, items in (
        ("Logical gaps", out.logical_gaps),
        ("Weak evidence", out.weak_evidence),
        ("Rhetorical inconsistencies", out.rhetorical_inconsistencies),
    ):
        parts.append(f"{title}:\n" + ("\n".join(f"- {i}" for i in items) if items else "- none"))
    if out.notes.strip():
        parts.append(f"Notes: {out.notes.strip()}")
    parts.append(f"Revised argument:\n{out.revised_argument}")
    return "\n\n".join(parts)
