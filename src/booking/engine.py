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

from booking.catalog import classes, find_activity, find_day, find_time, fold
from booking.tools import BOOK, CANCEL, FIND
from relais.language import detect_language

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


def _call(name: str, args: dict[str, Any]) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call_{uuid.uuid4().hex[:16]}",
                                              "type": "tool_call"}])


def plan_call(request: str) -> tuple[str, dict[str, Any]] | None:
    """The tool call a request asks for, or None when it asks for none of them."""
    folded = fold(request)
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
        last = messages[-1] if messages else None
        if isinstance(last, ToolMessage):
            message = AIMessage(content=reply_to_result(last, language))
        else:
            planned = plan_call(str(last.content) if last is not None else "")
            message = _call(*planned) if planned else AIMessage(content=_text("help", language))
        return ChatResult(generations=[ChatGeneration(message=message)])

    @property
    def _llm_type(self) -> str:
        return "relais-offline-booking"
