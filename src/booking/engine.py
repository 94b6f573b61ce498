"""The offline engine: a small deterministic chat model that reads a booking request (EN/FR),
picks the tool and its arguments, and turns tool results into a short reply.

It is a real `BaseChatModel` with `bind_tools`, so `create_agent` and the approval middleware
run exactly as with a provider's model; only the choice of call is made by rules.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from booking.catalog import classes, find_activity, find_day, find_time
from booking.tools import BOOK, CANCEL, FIND
from relais.language import detect_language, fold_accents

_BOOK_WORDS = ("book", "reserve", "register", "sign me up", "inscri", "reserv")
_CANCEL_WORDS = ("cancel", "annul")
_TEXTS = {
    "help": {
        "en": "I can list the studio's classes, book one or cancel a booking. For example: "
        "“book yoga on Monday at 18:00”.",
        "fr": "Je peux lister les cours du studio, en réserver un ou annuler une réservation. Par exemple : "
        "« réserve le yoga lundi à 18h ».",
    },
    "rejected": {"en": "Understood: nothing was done.", "fr": "Entendu : rien n'a été fait."},
    "reason": {"en": "Reason given: {reason}", "fr": "Raison donnée : {reason}"},
    "classes": {"en": "Here are the classes:", "fr": "Voici les cours :"},
    "which": {"en": "Which one should I book? Say the day and time.",
              "fr": "Lequel dois-je réserver ? Indiquez le jour et l'heure."},
}
_EDITED = "Tool response:"
_REASON = re.compile(r"with reason: (.*)$", re.DOTALL)


def _text(key: str, language: str, **params: str) -> str:
    return _TEXTS[key]["fr" if language == "fr" else "en"].format(**params)


def _language(messages: Sequence[BaseMessage]) -> str:
    humans = [str(m.content) for m in messages if m.type == "human"]
    return detect_language(humans[-1], default="en") if humans else "en"


def _calls(planned: list[tuple[str, dict[str, Any]]]) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call_{uuid.uuid4().hex[:16]}",
                                              "type": "tool_call"} for name, args in planned])


def plan_call(request: str) -> tuple[str, dict[str, Any]] | None:
    """The tool call a request asks for, or None when it asks for none of them."""
    folded = fold_accents(request)
    activity, day, time = find_activity(request), find_day(request), find_time(request)
    number = re.search(r"#?\b(\d+)\b(?!\s*[:h.]\s*\d|\s*(?:am|pm))", folded)
    if any(w in folded for w in _CANCEL_WORDS) and number:
        return CANCEL, {"booking_id": int(number.group(1))}
    if any(w in folded for w in _BOOK_WORDS) and activity:
        options = classes(activity, day)
        if time:
            options = [c for c in options if c.time == time] or options
        if day and len(options) >= 1:
            chosen = options[0]
            return BOOK, {"activity": chosen.activity, "day": chosen.day, "time": time or chosen.time}
        return FIND, {"activity": activity, "day": day or ""}
    if activity or day:
        return FIND, {"activity": activity or "", "day": day or ""}
    return None


_CLAUSES = re.compile(r"\s*(?:;|,|\band\b|\bthen\b|\bet\b|\bpuis\b)\s*")


def plan_calls(request: str) -> list[tuple[str, dict[str, Any]]]:
    """The tool calls a request asks for: one booking per clause when it books several classes
    ("book yoga on Monday and pilates on Tuesday at 12:15"; a clause without an activity takes the
    previous one's), else the one call of `plan_call`, else none."""
    folded = fold_accents(request)
    if any(w in folded for w in _BOOK_WORDS) and not any(w in folded for w in _CANCEL_WORDS):
        calls, activity = [], None
        for clause in (c for c in _CLAUSES.split(request) if c.strip()):
            activity = find_activity(clause) or activity
            planned = plan_call(f"book {activity} {clause}") if activity and find_day(clause) else None
            if planned is not None and planned[0] == BOOK and planned not in calls:
                calls.append(planned)
        if len(calls) > 1:
            return calls
    single = plan_call(request)
    return [single] if single else []


def reply_to_result(result: ToolMessage, language: str) -> str:
    """The agent's words after a tool ran (or was rejected by the person)."""
    content = str(result.content)
    if _EDITED in content:  # the approval middleware's note before an edited call's result
        content = content.split(_EDITED, 1)[1].strip()
    if result.status == "error" and content.startswith("User rejected"):
        reason = _REASON.search(content)
        text = _text("rejected", language)
        return text + (" " + _text("reason", language, reason=reason.group(1).strip()) if reason else "")
    if result.name == FIND and content.startswith("- "):
        return f"{_text('classes', language)}\n{content}\n\n{_text('which', language)}"
    return content


_OBJECT_WORDS = ("class", "cours", "session", "seance", "booking", "reservation", "lesson", "timetable",
                 "schedule", "horaire", "planning")


def claims_request(text: str) -> bool:
    """The message asks the booking agent for something: a booking verb with what to book or
    cancel (an activity, a day, a time, a number, or a class word), or the timetable itself.

    Narrow on purpose: an agent service routing between several agents asks this first, and
    "cancel my membership" or "I train on Mondays" are not bookings."""
    folded = fold_accents(text)
    words = set(re.findall(r"[a-z]+", folded))
    asks_timetable = bool(words & {"timetable", "horaires", "planning"})
    if not any(w in folded for w in _BOOK_WORDS + _CANCEL_WORDS):
        return asks_timetable
    about = (find_activity(text) or find_day(text) or find_time(text) or re.search(r"\d", folded)
             or any(w in words or w + "s" in words for w in _OBJECT_WORDS))
    return bool(about)


def _trailing_results(messages: Sequence[BaseMessage]) -> list[ToolMessage]:
    """The tool results after the last AI message, in the order of its calls (the approval
    middleware writes a rejected call's result before the approved ones run)."""
    results: list[ToolMessage] = []
    for message in reversed(messages):
        if not isinstance(message, ToolMessage):
            order = [c["id"] for c in message.tool_calls] if isinstance(message, AIMessage) else []
            results.sort(key=lambda r: order.index(r.tool_call_id) if r.tool_call_id in order else len(order))
            break
        results.insert(0, message)
    return results


class OfflineBookingModel(BaseChatModel):
    """Rule-based tool choice; deterministic except the tool call ids (uuid4, kept in the state)."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> OfflineBookingModel:
        return self  # the rules know the three tools

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        language = _language(messages)
        results = _trailing_results(messages)
        if results:
            message = AIMessage(content="\n".join(reply_to_result(r, language) for r in results))
        else:
            planned = plan_calls(str(messages[-1].content) if messages else "")
            message = _calls(planned) if planned else AIMessage(content=_text("help", language))
        return ChatResult(generations=[ChatGeneration(message=message)])

    @property
    def _llm_type(self) -> str:
        return "relais-offline-booking"
