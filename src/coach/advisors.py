"""The two advisors: each is a chat model bound to exactly one tool of its domain, with a system
prompt that states the boundary — or, with no model configured, the offline engine.

With a model: the model reads the whole shared history, may call its one tool, and after the
tool result comes back writes the final reply (the graph loops advisor → tool → advisor).
Offline: the advisor calls its tool with the constraints found in the conversation, then writes
the tool's plan as a readable reply (`coach.render`) that reflects every constraint so far.

Temperature 0 is set where the model is created (`CoachRunner`, `relais.models.chat_model`):
an advisor receives a ready model and does not rebuild it.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.tools import BaseTool

from coach.constraints import (
    Constraints,
    constraints_from_messages,
    human_texts,
    is_acknowledgement,
)
from coach.folding import FOLD_KEY, section_title
from coach.followups import (
    ACK,
    ANSWER,
    NOTED,
    PLAN,
    REPEATED,
    REPLY_KEY,
    UPDATED,
    follow_up_reply,
    mark,
    new_missing_detail,
)
from coach.followups import OUT_OF_SCOPE as OUT_OF_SCOPE_REPLY
from coach.language import conversation_language
from coach.plans import MealPlan, WorkoutPlan
from coach.render import (
    describe_changes,
    goal_label,
    render_acknowledgement,
    render_change_note,
    render_meals,
    render_workout,
)
from coach.router import explain_turn, last_human_text
from coach.scope import OUT_OF_SCOPE, out_of_scope_reply, states_a_constraint
from coach.state import NUTRITION, WORKOUT, AgentName
from coach.tools import MEAL_TOOL, WORKOUT_TOOL, tool_args_from_constraints
from relais.retry import RetryPolicy

MAX_TOOL_ROUNDS = 2  # per user message; then the model must answer in words

SYSTEM_PROMPTS: dict[str, str] = {
    WORKOUT: (
        "You are the workout advisor of a fitness app. You design training: routines, splits, "
        "exercises with sets x reps, cardio, and changes for injuries. "
        "Do NOT give food, diet or nutrition advice: the app routes those questions to the nutrition "
        "advisor — if asked, say the nutrition advisor will help with food. "
        f"Call the `{WORKOUT_TOOL}` tool to build or adjust a programme, then present its result as a "
        "clear reply with headings and bullet points. Respect every constraint in the conversation "
        "(goal, days per week, equipment, injuries) even if it was mentioned many messages ago. "
        "Days per week means sessions in all, strength and cardio together, unless the person splits "
        "them; keep each session within the stated length. When the person adds or changes something, "
        "start with one line saying what changed (or that nothing did), and repeat the plan only if it changed."
    ),
    NUTRITION: (
        "You are the nutrition advisor of a fitness app. You design eating: daily calories and "
        "macros, meals and snacks, meal timing, and diets (vegetarian, vegan, allergies, intolerances). "
        "Do NOT design workouts or training routines: that is the workout advisor's job — if asked, "
        "say the workout advisor will help with training. "
        f"Call the `{MEAL_TOOL}` tool to build or adjust a meal plan, then present its result as a "
        "clear reply with headings and bullet points. Respect every constraint in the conversation "
        "(goal, diet, allergies, intolerances) even if it was mentioned many messages ago; an allergen "
        "must never appear in a suggestion. Honour the meals per day, calorie and weight targets when "
        "stated. When the person adds or changes something, start with one line saying what changed "
        "(or that nothing did), and repeat the plan only if it changed."
    ),
}
_LANGUAGE_NAMES = {"en": "English", "fr": "French"}


def constraints_summary(c: Constraints) -> str:
    """One line per known constraint, appended to the system prompt (the model still sees all messages)."""
    lines = [f"- goal: {goal_label(c.goal, 'en')}" if c.goal else "- goal: not stated yet"]
    for label, value in (
        ("days per week", c.days_per_week),
        ("equipment", c.equipment),
        ("injuries", ", ".join(c.injuries)),
        ("diet", c.diet),
        ("allergies", ", ".join(c.allergies)),
        ("intolerances", ", ".join(c.intolerances)),
        ("foods to leave out", ", ".join(c.avoid)),
        ("body weight (kg)", c.weight_kg),
    ):
        if value:
            lines.append(f"- {label}: {value}")
    return "\n".join(lines)


def system_message(agent: AgentName, c: Constraints) -> SystemMessage:
    return SystemMessage(
        content=f"{SYSTEM_PROMPTS[agent]}\n\nConstraints the person stated so far:\n{constraints_summary(c)}\n\n"
        f"Reply in {_LANGUAGE_NAMES[c.language]}."
    )


def _since_last_human(messages: list[BaseMessage]) -> list[BaseMessage]:
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].type == "human":
            return messages[i + 1 :]
    return list(messages)


def tool_rounds(messages: list[BaseMessage]) -> int:
    """How many times the advisor already called a tool for the current user message."""
    return sum(1 for m in _since_last_human(messages) if isinstance(m, AIMessage) and m.tool_calls)


def _last_human_index(messages: list[BaseMessage]) -> int:
    return max((i for i, m in enumerate(messages) if m.type == "human"), default=-1)


def _previous_result(messages: list[BaseMessage], tool_name: str) -> str | None:
    """The same tool's result before the person's last message (None: this is the first plan)."""
    for message in reversed(messages[: _last_human_index(messages)]):
        if isinstance(message, ToolMessage) and message.name == tool_name:
            return str(message.content)
    return None


def _render_plan(tool_name: str, content: str, found: Constraints) -> str:
    if tool_name == WORKOUT_TOOL:
        return render_workout(WorkoutPlan.model_validate_json(content), found)
    return render_meals(MealPlan.model_validate_json(content), found)


def _offline_reply(agent: AgentName, tool: BaseTool, messages: list[BaseMessage]) -> AIMessage:
    found = constraints_from_messages(messages)
    last = messages[-1] if messages else None
    if isinstance(last, ToolMessage) and last.name == tool.name:
        try:
            text = _render_plan(tool.name, str(last.content), found)
        except ValueError:
            return AIMessage(content=str(last.content))  # a tool error message, shown as is
        previous = _previous_result(messages, tool.name)
        if previous is not None:  # an adjustment: what changed first, the plan only if it changed
            before = constraints_from_messages(messages[: _last_human_index(messages)])
            changes = describe_changes(before, found, found.language)
            try:
                changed = _render_plan(tool.name, previous, found) != text
            except ValueError:
                changed = True
            # nothing new was stated (a request, a question): show the plan again
            asked = not changes and not states_a_constraint(last_human_text(messages))
            note = render_change_note(changes, changed, agent, found.language, repeated=asked and not changed)
            if changed:  # the updated plan follows the summary as a section a UI may fold
                return AIMessage(content=note + "\n" + text,
                                 additional_kwargs={FOLD_KEY: section_title(agent, found.language), REPLY_KEY: UPDATED})
            return mark(AIMessage(content=note + ("\n" + text if asked else "")), REPEATED if asked else NOTED)
        return mark(AIMessage(content=text), PLAN)
    answered_before = any(isinstance(m, AIMessage) and not m.tool_calls for m in messages)
    if answered_before and is_acknowledgement(last_human_text(messages)):
        return mark(AIMessage(content=render_acknowledgement(agent, found.language)), ACK)
    call = {
        "name": tool.name,
        "args": tool_args_from_constraints(tool.name, found),
        "id": f"call_{uuid.uuid4().hex[:12]}",
        "type": "tool_call",
    }
    return AIMessage(content="", tool_calls=[call])


def make_advisor(
    agent: AgentName, tool: BaseTool, model: BaseChatModel | None, retry: RetryPolicy | None = None
) -> Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]:
    """A graph node for `agent`: the model bound to `tool` alone, or the offline engine.

    `retry` re-asks the model on transient errors (timeouts, 429, 5xx) with backoff; the last
    error propagates, and the runner turns it into an error event with the thread intact.
    """

    async def advisor(state: dict[str, Any]) -> dict[str, Any]:
        messages: list[BaseMessage] = list(state.get("messages", []))
        if messages and messages[-1].type == "human":
            language = conversation_language(human_texts(messages))
            decision = explain_turn(messages, state.get("last_active_agent"))
            if decision.reason in OUT_OF_SCOPE:  # what the coach can't do: say so, no plan
                reply = AIMessage(content=out_of_scope_reply(decision.reason, language), name=agent)
                return {"messages": [mark(reply, OUT_OF_SCOPE_REPLY)]}
            detail = new_missing_detail(messages)
            if detail is not None:  # "I have an injury.": one question (which area?), no plan yet
                return {"messages": [follow_up_reply(detail, language, agent)], "last_active_agent": agent}
        if model is None:
            reply = _offline_reply(agent, tool, messages)
            reply.name = agent  # the author travels with the message (handoff audit: sender)
            return {"messages": [reply], "last_active_agent": agent}
        found = constraints_from_messages(messages)
        prompt = [system_message(agent, found), *messages]
        may_call = tool_rounds(messages) < MAX_TOOL_ROUNDS
        runnable = model.bind_tools([tool]) if may_call else model
        if messages and isinstance(messages[-1], ToolMessage) and _previous_result(messages, tool.name) is not None:
            # an adjustment written after the tool: a long plan after the summary may be folded
            title = section_title(agent, found.language)
            runnable = runnable.with_config(metadata={FOLD_KEY: title})
        reply = await (retry.call(runnable.ainvoke, prompt) if retry else runnable.ainvoke(prompt))
        if not isinstance(reply, AIMessage):
            reply = AIMessage(content=str(getattr(reply, "content", reply)))
        if reply.tool_calls and not may_call:
            reply = AIMessage(content=reply.content or "", id=reply.id)
        if not reply.tool_calls:  # what the reply did, for the question that follows it
            ran_tool = any(isinstance(m, ToolMessage) for m in _since_last_human(messages))
            adjusted = ran_tool and _previous_result(messages, tool.name) is not None
            mark(reply, UPDATED if adjusted else PLAN if ran_tool else ANSWER)
        reply.name = agent  # the author travels with the message (handoff audit: sender)
        return {"messages": [reply], "last_active_agent": agent}

    advisor.__name__ = agent
    return advisor


def wants_tool(message: BaseMessage) -> bool:
    """Conditional edge after an advisor: to its tool node when it asked for a tool call."""
    return isinstance(message, AIMessage) and bool(message.tool_calls)
