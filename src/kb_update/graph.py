"""The work graph: split → waves of parallel workers (Send) → gates → assess → correction and
learning edges → one review with one approval → publish. The nodes are `kb_update.nodes`.

    split ─► plan_round ─Send×N─► unit ─► assess ─┬─► learn (interrupt) ─┐
                ▲                                 ├─► plan_round ◄───────┘
                └─────────────────────────────────┘
                                                  └─► collect ─► decide (interrupt, per item)
                                                                 ─► review (interrupt) ─► publish | END

- Units start in waves of `wave_size`; a round runs the new wave plus the units being retried,
  so a lesson approved after one round reaches every unit that has not finished yet.
- Only failed units go round again, each with its own gate output and scope; per-unit status,
  output, attempts and history live in `status[unit_id]`, never in one shared blob.
- `max_attempts` failures, or a failure the job says needs a person, escalate the unit.
- The run-wide step limit is LangGraph's recursion limit (set by the runner).
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph

from kb_update.nodes import RunNodes
from kb_update.run_state import MAX_ATTEMPTS, Components, EngineConfig, RunState, UnitTask

ROUTED = ["learn", "plan_round", "collect"]  # where a round's assessment can lead
DECIDED = ["decide", "review"]  # after each item left for a person


def build_graph(parts: Components, config: EngineConfig = EngineConfig()) -> StateGraph:
    """The uncompiled graph; compile it with a checkpointer (interrupts need one)."""
    nodes = RunNodes(parts, config)
    graph = StateGraph(RunState)
    graph.add_node("split", nodes.split)
    graph.add_node("plan_round", nodes.plan_round)
    graph.add_node("unit", nodes.unit)
    graph.add_node("assess", nodes.assess)
    graph.add_node("learn", nodes.learn)
    graph.add_node("collect", nodes.collect)
    graph.add_node("decide", nodes.decide)
    graph.add_node("review", nodes.review)
    graph.add_node("publish", nodes.publish)
    graph.add_edge(START, "split")
    graph.add_conditional_edges("split", lambda s: "plan_round" if s["order"] else "collect",
                                ["plan_round", "collect"])
    graph.add_conditional_edges("plan_round", nodes.fan_out, ["unit"])
    graph.add_edge("unit", "assess")
    graph.add_conditional_edges("assess", nodes.route, ROUTED)
    graph.add_conditional_edges("learn", nodes.route, ROUTED)
    graph.add_conditional_edges("collect", nodes.after_decide, DECIDED)
    graph.add_conditional_edges("decide", nodes.after_decide, DECIDED)
    graph.add_edge("publish", END)
    return graph


__all__ = ["MAX_ATTEMPTS", "Components", "EngineConfig", "RunState", "UnitTask", "build_graph"]
