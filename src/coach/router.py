"""Deterministic EN/FR keyword router: which advisor answers the person's last message.

Rules, in order (the same message always gives the same hop, and no model is ever called):

1. Both domains match → **nutrition** (the conflict rule). A message that mentions food *and*
   training ("what should I eat before the gym?", "protein to support my workout plan") asks
   about eating around training; the training words are context, the question is about food.
2. Only nutrition keywords match → ``nutrition_advisor``; only workout keywords → ``workout_advisor``.
3. Neither matches ("tell me more", "adjust it") → ``last_active_agent``, the advisor already in
   charge of the thread.
4. Neither matches on a new thread (no last agent) → ``workout_advisor``: people who open a
   fitness app usually ask about training first.

Before these rules, `coach.scope` sets aside what the coach cannot help with: no domain word,
no constraint, no acknowledgement and — with an advisor in charge — no follow-up cue
("What is the capital of Peru?", "🙂") is ``out_of_scope``; membership, billing and app
questions are ``help_center``. The advisor in charge (or the workout advisor on a new thread)
then answers with a short reply saying so, and ``last_active_agent`` is left as it was.

Keywords live in `data/router_keywords.yaml`: accent-free stems in the notation of
`coach._text`, covering English and French forms (eat/eating/manger/mangé, reps/répétitions,
injury/blessure, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from coach._text import find_keywords, normalize
from coach.followups import changes_constraints
from coach.keywords import NUTRITION_KEYWORDS, WORKOUT_KEYWORDS
from coach.scope import OUT_OF_SCOPE, scope_of
from coach.state import AGENTS, NUTRITION, WORKOUT, AgentName


@dataclass(frozen=True)
class RouteDecision:
    """The chosen advisor and why — for the CLI, logs and tests."""

    agent: AgentName
    # "conflict_rule" | "nutrition_keywords" | "workout_keywords" | "fallback_last" | "new_thread"
    # | "out_of_scope" | "help_center" (the coach can't help: a short reply, no plan)
    reason: str
    workout_hits: tuple[str, ...] = field(default_factory=tuple)
    nutrition_hits: tuple[str, ...] = field(default_factory=tuple)

    def as_dict(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "reason": self.reason,
            "workout_hits": list(self.workout_hits),
            "nutrition_hits": list(self.nutrition_hits),
        }


def normalize_agent(value: Any) -> AgentName | None:
    """Accept `workout_advisor`, `workout`, `nutrition`, None/"" (new thread)..."""
    if value is None:
        return None
    text = str(value).strip().lower()
    if text in ("", "none", "null"):
        return None
    for agent in AGENTS:
        if text == agent or text == agent.split("_")[0]:
            return agent
    raise ValueError(f"unknown agent {value!r}; expected one of {AGENTS}")


def explain_route(text: str, last_active_agent: str | None = None, *, answers: bool = False) -> RouteDecision:
    """Route `text` and say which rule decided (see the module docstring). `answers`: the
    message changes the conversation's constraints (in scope whatever its words)."""
    norm = normalize(text)
    workout = tuple(dict.fromkeys(h.keyword for h in find_keywords(norm, WORKOUT_KEYWORDS)))
    nutrition = tuple(dict.fromkeys(h.keyword for h in find_keywords(norm, NUTRITION_KEYWORDS)))
    in_charge = normalize_agent(last_active_agent)
    scope = "in_scope" if answers else scope_of(text, workout + nutrition, in_charge is not None)
    if scope != "in_scope":
        return RouteDecision(in_charge or WORKOUT, scope, workout, nutrition)
    if workout and nutrition:
        return RouteDecision(NUTRITION, "conflict_rule", workout, nutrition)
    if nutrition:
        return RouteDecision(NUTRITION, "nutrition_keywords", workout, nutrition)
    if workout:
        return RouteDecision(WORKOUT, "workout_keywords", workout, nutrition)
    last = normalize_agent(last_active_agent)
    if last is not None:
        return RouteDecision(last, "fallback_last", workout, nutrition)
    return RouteDecision(WORKOUT, "new_thread", workout, nutrition)


def explain_turn(messages: list[Any], last_active_agent: str | None = None) -> RouteDecision:
    """Route the person's last message in its conversation: a reply that answers the coach's
    question ("Shellfish." after "which food?") is in scope even without a domain word."""
    text = last_human_text(messages)
    decision = explain_route(text, last_active_agent)
    if decision.reason in OUT_OF_SCOPE and changes_constraints(messages):
        return explain_route(text, last_active_agent, answers=True)
    return decision


def route(text: str, last_active_agent: str | None = None) -> AgentName:
    """The advisor that should answer `text` (deterministic; never calls a model)."""
    return explain_route(text, last_active_agent).agent


def claims_request(text: str) -> bool:
    """The message asks the coach for something: a workout or nutrition word in it (what an
    agent service routing between several agents sends here)."""
    norm = normalize(text)
    return bool(find_keywords(norm, WORKOUT_KEYWORDS) or find_keywords(norm, NUTRITION_KEYWORDS))


def last_human_text(messages: list[Any]) -> str:
    """The content of the most recent human message (what the router reads)."""
    for message in reversed(messages):
        if getattr(message, "type", None) == "human":
            content = message.content
            if isinstance(content, list):
                return " ".join(
                    str(b.get("text", "")) if isinstance(b, dict) else str(b) for b in content
                )
            return str(content)
    return ""


def router_node(state: dict[str, Any]) -> dict[str, Any]:
    """Graph node: picks the advisor for the last human message, records it as in charge and
    records the decision itself (destination + rule) for the handoff audit."""
    decision = explain_turn(state.get("messages", []), state.get("last_active_agent"))
    return {
        # out of scope: the advisor in charge stays in charge (nothing but the message changes)
        **({} if decision.reason in OUT_OF_SCOPE else {"last_active_agent": decision.agent}),
        "route_decision": {"destination": decision.agent, "rule": decision.reason},
    }


def next_advisor(state: dict[str, Any]) -> AgentName:
    """Conditional edge after the router node."""
    return state.get("last_active_agent") or WORKOUT
