"""What the coach can't do: a message with no fitness or nutrition content that is not a
follow-up gets a short, honest, localized reply — no plan, no tool call, no model call.

A message is in scope when it names either domain (the router's keywords), states a
constraint (goal, days, equipment, injury, diet, allergy, weight…), acknowledges the last
answer, or — on a thread with an advisor in charge — reads as a follow-up ("tell me more",
"why this one?", "and for dinner?"): those go to `last_active_agent`, as the seed says.
Anything else ("What is the capital of Peru?", "🙂", "How do I cancel my membership?") is out of
scope; membership, billing and app questions are pointed to the help center.
"""

from __future__ import annotations

from typing import Literal

from coach import _vocabulary as vocab
from coach._text import has_any, normalize, tokens
from coach.constraints import extract_constraints, is_acknowledgement

Scope = Literal["in_scope", "out_of_scope", "help_center"]


def states_a_constraint(text: str) -> bool:
    """The message states a goal, a number, an injury, a diet, an allergy… (alone, out of context)."""
    found = extract_constraints([text]).model_dump(exclude={"language"})
    return any(value for value in found.values())


def scope_of(text: str, domain_hits: tuple[str, ...], advisor_in_charge: bool) -> Scope:
    """`in_scope`, `out_of_scope`, or `help_center` (out of scope, and the help center knows).

    `domain_hits`: the router's keywords found in `text` (either advisor)."""
    norm = normalize(text)
    if has_any(norm, vocab.HELP_CENTER_TOPICS) and set(domain_hits) <= vocab.VENUE_KEYWORDS:
        return "help_center"  # "cancel my gym membership": the gym is the place, not the topic
    if domain_hits or has_any(norm, vocab.COACH_REQUEST) or states_a_constraint(text):
        return "in_scope"
    if is_acknowledgement(text):
        return "in_scope"
    if advisor_in_charge and tokens(text) and has_any(norm, vocab.FOLLOW_UP_CUES):
        return "in_scope"
    return "out_of_scope"


_REPLIES = {
    "en": (
        "That's outside what I can help with: I'm your training and nutrition coach — workout plans, "
        "exercises, sets and reps, cardio, meals, calories, protein and diets (vegetarian, vegan, "
        "allergies, intolerances). Ask me about any of those.",
        "For membership, billing or app questions, the help center has the answers: choose "
        "**Assistant** in the profile menu at the top of the chat, and ask it there.",
    ),
    "fr": (
        "Je ne peux pas vous aider sur ce point : je suis votre coach entraînement et nutrition — "
        "programmes, exercices, séries et répétitions, cardio, repas, calories, protéines et régimes "
        "(végétarien, végan, allergies, intolérances). Posez-moi une question sur l'un de ces sujets.",
        "Pour l'abonnement, la facturation ou l'application, le centre d'aide a les réponses : choisissez "
        "**Assistant** dans le menu des profils en haut de la discussion, et posez-y votre question.",
    ),
}


def out_of_scope_reply(scope: Scope, language: str) -> str:
    """The short reply: what the coach can help with, and where the help center is when relevant."""
    what, help_center = _REPLIES.get(language, _REPLIES["en"])
    return what + ("\n\n" + help_center if scope == "help_center" else "") + "\n"


OUT_OF_SCOPE: frozenset[str] = frozenset({"out_of_scope", "help_center"})  # route reasons
