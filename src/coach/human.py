"""The human node: after every advisor answer the graph pauses and asks the person.

`interrupt(payload)` stops the run and hands the payload to the caller (the UI shows the prompt
and the quick choices); `Command(resume=value)` restarts this node, and `interrupt()` then
returns `value`, which becomes the next user message. On resume LangGraph re-runs the node from
its start, so nothing happens before `interrupt()` besides building the payload, and the only
effect after it is the returned update — whose message id is derived from the conversation
position, so applying it twice could never duplicate the message.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.types import interrupt

from coach._text import normalize
from coach.constraints import constraints_from_messages, human_texts
from coach.followups import (
    ACK,
    ANSWER,
    DETAIL_CHOICES,
    FOLLOW_UP,
    NOTED,
    OUT_OF_SCOPE,
    PLAN,
    REPEATED,
    UPDATED,
    reply_kind,
)
from coach.language import Language, conversation_language
from coach.state import NUTRITION, WORKOUT

CHOICES: dict[str, list[str]] = {
    "en": ["Injury", "Allergy", "Vegetarian", "Vegan", "Nothing to add"],
    "fr": ["Blessure", "Allergie", "Végétarien", "Végan", "Rien à ajouter"],
}
_CHOICE_KEYS = ["injury", "allergy", "vegetarian", "vegan", "nothing"]
_CHOICE_MESSAGES: dict[str, dict[str, str]] = {
    "injury": {"en": "I have an injury.", "fr": "J'ai une blessure."},
    "allergy": {"en": "I have a food allergy.", "fr": "J'ai une allergie alimentaire."},
    "vegetarian": {"en": "I'm vegetarian.", "fr": "Je suis végétarien."},
    "vegan": {"en": "I'm vegan.", "fr": "Je suis végan."},
    "nothing": {"en": "Nothing to add.", "fr": "Rien à ajouter."},
}
_PROMPTS: dict[str, dict[str, str]] = {
    WORKOUT: {
        "en": "Anything I should take into account before we go on — an injury, a food allergy, a diet? "
        "Pick one below or just type your reply.",
        "fr": "Y a-t-il quelque chose à prendre en compte avant de continuer — une blessure, une allergie "
        "alimentaire, un régime ? Choisissez ci-dessous ou répondez librement.",
    },
    NUTRITION: {
        "en": "Does this fit you? Tell me about any allergy, intolerance, diet or injury — pick one below "
        "or just type your reply.",
        "fr": "Est-ce que cela vous convient ? Parlez-moi d'une allergie, d'une intolérance, d'un régime ou "
        "d'une blessure — choisissez ci-dessous ou répondez librement.",
    },
}
# After a reply that changed nothing or answered a question, a shorter question; after an
# acknowledgement or an out-of-scope answer, an offer of what the coach can do next.
_NEXT = {
    UPDATED: ("Anything else to adjust? Pick one below or just type it.",
              "Autre chose à ajuster ? Choisissez ci-dessous ou écrivez-le."),
    NOTED: ("Anything else I should know? Pick one below or just type it.",
            "Autre chose à savoir ? Choisissez ci-dessous ou écrivez-le."),
    ACK: ("Anything else — your training or your meals? Pick one below or just type it.",
          "Autre chose — l'entraînement ou les repas ? Choisissez ci-dessous ou écrivez-le."),
    OUT_OF_SCOPE: ("Ask me about your training or your meals — pick one below or type your question.",
                   "Posez-moi une question sur l'entraînement ou les repas — choisissez ci-dessous ou écrivez-la."),
    FOLLOW_UP: ("Pick one below or type it.", "Choisissez ci-dessous ou écrivez-le."),
}
_NEXT[REPEATED] = _NEXT[ANSWER] = _NEXT[NOTED]
_OFFERS = {  # the other things the coach does, as quick choices (key → label, sentence)
    "workout": {"en": ("Workout plan", "Build me a workout plan."),
                "fr": ("Programme d'entraînement", "Propose-moi un programme d'entraînement.")},
    "meals": {"en": ("Meal plan", "Give me a meal plan."), "fr": ("Plan de repas", "Donne-moi un plan de repas.")},
}
_LABEL_TO_KEY: dict[str, dict[str, str]] = {}  # normalised label → {language: choice key}
for _lang, _labels in CHOICES.items():
    for _key, _label in zip(_CHOICE_KEYS, _labels):
        _LABEL_TO_KEY.setdefault(normalize(_label), {})[_lang] = _key


def _choices(reply: str, language: Language, diet: str | None) -> list[str]:
    """The quick choices after a reply: the likely details after a follow-up question, what the
    coach can do next after an acknowledgement, else the constraints not stated yet."""
    if reply.startswith(FOLLOW_UP) and reply[len(FOLLOW_UP):] in DETAIL_CHOICES:
        return list(DETAIL_CHOICES[reply[len(FOLLOW_UP):]][language])
    offers = [_OFFERS[key][language][0] for key in ("workout", "meals")]
    constraints = [label for key, label in zip(_CHOICE_KEYS, CHOICES[language]) if key != diet]
    if reply == OUT_OF_SCOPE:
        return offers
    if reply == ACK:
        return offers + constraints[:2]
    return constraints


def interrupt_payload(agent: str | None, language: Language, reply: str = PLAN,
                      diet: str | None = None) -> dict[str, Any]:
    """What the UI needs to ask: kind, prompt, quick choices, which advisor asks, the language.

    `reply` is what the advisor's reply did (`coach.followups`): after a first plan the advisor's
    own question, after anything else a shorter one that fits it; `diet` drops its own choice."""
    agent = agent if agent in _PROMPTS else WORKOUT
    key = FOLLOW_UP if reply.startswith(FOLLOW_UP) else reply
    prompt = _PROMPTS[agent][language] if key == PLAN or key not in _NEXT else _NEXT[key][1 if language == "fr" else 0]
    return {
        "kind": "constraints",
        "prompt": prompt,
        "choices": _choices(reply, language, diet),
        "agent": agent,
        "language": language,
        "reply": reply,
    }


def resume_text(value: Any, language: Language = "en") -> str:
    """The user message a resume value stands for: a quick choice becomes a sentence.

    Accepts the raw string, or a dict from a UI (`{"choice": ...}`, `{"text": ...}`,
    `{"message": ...}`, `{"value": ...}`, `{"label": ...}`). An empty value means nothing to add.
    """
    if isinstance(value, dict):
        for key in ("choice", "text", "message", "content", "value", "label"):
            if value.get(key):
                value = value[key]
                break
        else:
            value = ""
    text = str(value or "").strip()
    if not text:
        return _CHOICE_MESSAGES["nothing"][language]
    for offer in _OFFERS.values():
        for label, sentence in offer.values():
            if normalize(label) == normalize(text):
                return sentence
    match = _LABEL_TO_KEY.get(normalize(text))
    if match:
        # the label's own language ("Végétarien" → French); "Vegan" is both: the conversation's
        label_language = language if language in match else next(iter(match))
        return _CHOICE_MESSAGES[match[label_language]][label_language]
    return text


def human_message(text: str, messages: list[Any]) -> HumanMessage:
    """A HumanMessage whose id is its position among the person's messages (idempotent append)."""
    position = sum(1 for m in messages if getattr(m, "type", None) == "human") + 1
    return HumanMessage(content=text, id=f"human-{position}")


def human_node(state: dict[str, Any]) -> dict[str, Any]:
    """Pause for the person; their reply (typed or a quick choice) is the next user message."""
    messages = state.get("messages", [])
    language = conversation_language(human_texts(messages))
    diet = constraints_from_messages(messages).diet
    payload = interrupt_payload(state.get("last_active_agent") or WORKOUT, language, reply_kind(messages), diet)
    value = interrupt(payload)
    return {"messages": [human_message(resume_text(value, language), messages)]}
