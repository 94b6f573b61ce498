"""The debate graph: rounds of Pros then Cons, each through a hostile refinement loop.

    <team>_draft → <team>_persona → <team>_thinking → <team>_critique
    <team>_critique ─approved→ <team>_publish      (shared memory gets the argument)
                    ─rejected→ <team>_persona      (the loop restarts at Persona)
                    ─loop_lock→ <team>_forfeit     (cap reached: the team forfeits the turn)
    pros_publish | pros_forfeit → cons_draft
    cons_publish | cons_forfeit ─next_round→ pros_draft, ─end→ END

The two critique edges read `is_approved`, copied into the state from the critique's
structured output.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, Protocol

from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph

from debate.config import DebateConfig
from debate.llm import StructuredCaller
from debate.memory import DebateMemory
from debate.nodes import NodeContext, make_team_nodes
from debate.state import DebateState
from relais.models import ModelNotConfigured


class ModelFactory(Protocol):
    """Same keywords as `relais.models.chat_model`, which is the default factory."""

    def __call__(
        self, *, model_name: str | None, temperature: float, max_tokens: int
    ) -> BaseChatModel | None: ...


def route_after_critique(
    cap: int,
) -> Callable[[DebateState], Literal["approved", "rejected", "loop_lock"]]:
    def route(state: DebateState) -> Literal["approved", "rejected", "loop_lock"]:
        if state["is_approved"]:
            return "approved"
        return "loop_lock" if state["attempt"] >= cap else "rejected"

    return route


def route_after_cons(state: DebateState) -> Literal["next_round", "end"]:
    return "end" if state["round"] > state["rounds"] else "next_round"


def build_state_graph(get_ctx: Callable[[], NodeContext], refinement_cap: int) -> StateGraph:
    """The uncompiled graph; `get_ctx` is only called when a node runs."""
    graph = StateGraph(DebateState)
    for team in ("pros", "cons"):
        for name, node in make_team_nodes(team, get_ctx).items():  # type: ignore[arg-type]
            graph.add_node(name, node)
        graph.add_edge(f"{team}_draft", f"{team}_persona")
        graph.add_edge(f"{team}_persona", f"{team}_thinking")
        graph.add_edge(f"{team}_thinking", f"{team}_critique")
        graph.add_conditional_edges(
            f"{team}_critique",
            route_after_critique(refinement_cap),
            {
                "approved": f"{team}_publish",
                "rejected": f"{team}_persona",
                "loop_lock": f"{team}_forfeit",
            },
        )
    graph.add_edge(START, "pros_draft")
    graph.add_edge("pros_publish", "cons_draft")
    graph.add_edge("pros_forfeit", "cons_draft")
    for done in ("cons_publish", "cons_forfeit"):
        graph.add_conditional_edges(
            done, route_after_cons, {"next_round": "pros_draft", "end": END}
        )
    return graph


class ModelSetupError(RuntimeError):
    """The configured model could not be created (provider package missing, key absent...)."""


def make_models(
    model_factory: ModelFactory, config: DebateConfig
) -> tuple[BaseChatModel, BaseChatModel]:
    """The debaters' model and the thinker's (same model, `max_tokens=thinking_budget`)."""
    try:
        debater = model_factory(
            model_name=config.model_name,
            temperature=config.temperature,
            max_tokens=config.max_tokens,
        )
        thinker = model_factory(
            model_name=config.model_name,
            temperature=config.temperature,
            max_tokens=config.thinking_budget,
        )
    except ModelNotConfigured:
        raise
    except Exception as exc:
        name = config.model_name or "the configured model"
        raise ModelSetupError(f"cannot create {name}: {type(exc).__name__}: {exc}") from exc
    if debater is None or thinker is None:
        raise ModelNotConfigured("A debate")
    return debater, thinker


def build_debate_graph(
    model_factory: ModelFactory,
    config: DebateConfig,
    memory: DebateMemory,
    checkpointer: Any = None,
) -> Any:
    """The compiled debate graph; raises `ModelNotConfigured` when no model is available."""
    debater, thinker = make_models(model_factory, config)
    policy = config.retry_policy()
    ctx = NodeContext(
        config=config,
        memory=memory,
        debater=StructuredCaller(debater, policy, config.call_timeout_s),
        thinker=StructuredCaller(thinker, policy, config.call_timeout_s),
    )
    return build_state_graph(lambda: ctx, config.refinement_cap).compile(checkpointer=checkpointer)


def mermaid_diagram(config: DebateConfig | None = None) -> str:
    """The graph's picture (mermaid source), available even with no model configured."""

    def no_ctx() -> NodeContext:
        raise RuntimeError("picture-only graph: build_debate_graph() to run it")

    cap = (config or DebateConfig()).refinement_cap
    return build_state_graph(no_ctx, cap).compile().get_graph().draw_mermaid()


def recursion_limit(config: DebateConfig, rounds: int) -> int:
    """Supersteps a full run may need: per turn draft + cap × 3 + publish/forfeit."""
    return rounds * 2 * (2 + 3 * config.refinement_cap) + 10
