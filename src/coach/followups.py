"""What a reply did, and the one question that follows it.

A quick choice such as "Injury" or "Allergy" names a constraint without its detail. A plan built
on it would be a guess ("Nothing changed in your plan"), so the advisor asks one follow-up
question instead — which area, which food — and the human node offers the likely answers as
quick choices. Every advisor reply records what it did (`REPLY_KEY` on the message: a new plan,
an updated plan, a note, a follow-up question, an acknowledgement, an out-of-scope answer), and
the prompt after it follows from that, so the same "Does this fit you?" does not close every
reply. Everything here is read from the conversation: the same messages give the same question.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage

from coach.constraints import constraints_from_messages

REPLY_KEY = "relais_reply"  # AIMessage.additional_kwargs: what the reply did (see `reply_kind`)
PLAN, UPDATED, NOTED, REPEATED, ACK, OUT_OF_SCOPE, ANSWER = (
    "plan", "updated", "noted", "repeated", "ack", "out_of_scope", "answer",
)
FOLLOW_UP = "follow_up:"  # + the detail asked for ("follow_up:injury")

_QUESTIONS = {
    "injury": (
        ("Which area is injured — your knee, shoulder, back, or somewhere else? Pick it below or type it, "
         "and I'll adapt your training to protect it."),
        ("Quelle zone est blessée — le genou, l'épaule, le dos, ou ailleurs ? Choisissez-la ci-dessous ou "
         "écrivez-la, et j'adapte l'entraînement pour la ménager."),
    ),
    "allergy": (
        ("Which food are you allergic or intolerant to? Pick it below or type it, and I'll leave it out of "
         "every meal."),
        ("À quel aliment êtes-vous allergique ou intolérant ? Choisissez-le ci-dessous ou écrivez-le, et je "
         "le retire de tous les repas."),
    ),
}
# Likely answers to a follow-up question, as quick choices (each one is read by the constraints
# as the missing detail: a body part after "which area?", a food after "which food?").
DETAIL_CHOICES = {
    "injury": {
        "en": ["Knee", "Shoulder", "Lower back", "Wrist", "Ankle", "Hip"],
        "fr": ["Genou", "Épaule", "Dos", "Poignet", "Cheville", "Hanche"],
    },
    "allergy": {
        "en": ["Peanuts", "Tree nuts", "Dairy", "Eggs", "Gluten", "Shellfish"],
        "fr": ["Arachides", "Fruits à coque", "Produits laitiers", "Œufs", "Gluten", "Crustacés"],
    },
}


def _t(language: str, en: str, fr: str) -> str:
    return fr if language == "fr" else en


def missing_details(messages: list[Any]) -> set[str]:
    """Announced without the detail a plan needs: an injury without its area ("injury"), an
    allergy or intolerance without its food ("allergy")."""
    c = constraints_from_messages(messages)
    out = {"injury"} if "unspecified" in c.injuries else set()
    if "unspecified" in c.allergies or "unspecified" in c.intolerances:
        out.add("allergy")
    return out


def before_last_message(messages: list[Any]) -> list[Any]:
    """The conversation before the person's last message."""
    last = max((i for i, m in enumerate(messages) if getattr(m, "type", None) == "human"), default=0)
    return list(messages[:last])


def new_missing_detail(messages: list[Any]) -> str | None:
    """A detail the person's last message left open that was not open before (asked once: a
    person who answers something else gets the plan, kept safe for the unknown)."""
    opened = missing_details(messages) - missing_details(before_last_message(messages))
    return min(opened) if opened else None


def changes_constraints(messages: list[Any]) -> bool:
    """The last message changed what the coach knows, read in context ("Shellfish." right after
    "which food?" is an allergy): such a message answers the coach, it is never out of scope."""
    before = constraints_from_messages(before_last_message(messages)).model_dump(exclude={"language"})
    return constraints_from_messages(messages).model_dump(exclude={"language"}) != before


def follow_up_reply(detail: str, language: str, agent: str) -> AIMessage:
    """The one question asked instead of a plan (no tool call)."""
    en, fr = _QUESTIONS[detail]
    return AIMessage(content=_t(language, en, fr) + "\n", name=agent,
                     additional_kwargs={REPLY_KEY: FOLLOW_UP + detail})


def mark(message: AIMessage, kind: str) -> AIMessage:
    """Record what the reply did on the message itself (kept in the checkpoint with it)."""
    message.additional_kwargs = {**(message.additional_kwargs or {}), REPLY_KEY: kind}
    return message


def reply_kind(messages: list[Any]) -> str:
    """What the latest advisor reply did; an unmarked reply (a model's) counts as a plan when a
    tool ran for it in this turn, else as an answer."""
    last_human = max((i for i, m in enumerate(messages) if getattr(m, "type", None) == "human"), default=-1)
    turn = messages[last_human + 1:]
    for message in reversed(turn):
        if isinstance(message, AIMessage) and not message.tool_calls:
            kind = (message.additional_kwargs or {}).get(REPLY_KEY)
            if kind:
                return str(kind)
            return PLAN if any(getattr(m, "type", None) == "tool" for m in turn) else ANSWER
    return PLAN
