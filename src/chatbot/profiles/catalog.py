"""What each chat profile looks like to a person: its name, icon, welcome and starters, EN/FR.

The profile's `name` stays the stable English key (sessions, thread metadata and code use it);
`display_name` is what the user reads. The welcome is the profile's `markdown_description`,
which Chainlit shows under the profile's icon in the empty chat, above the starters, so a
welcome never hides them. Debate needs a generative model: without one it is still listed,
marked "needs a model", and its welcome says how to configure one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import chainlit as cl

from assistant.settings import AssistantSettings
from debate.config import DebateConfig
from relais.models import is_offline

ASSISTANT, COACH, DEBATE, KB_UPDATE = "Assistant", "Coach", "Debate", "Knowledge update"


def lang_of(language: str | None) -> str:
    """`en` or `fr` from a browser language tag."""
    return "fr" if (language or "").lower().startswith("fr") else "en"


def model_hint(lang: str) -> str:
    """How to configure a generative model, as markdown. Every `provider:model` is a code span:
    outside one, Chainlit's markdown reads `:model` as a directive and drops it."""
    if lang == "fr":
        return (
            "Renseignez `MISTRAL_API_KEY` (Mistral, modèle par défaut `mistral-small-latest`) "
            "ou `RELAIS_MODEL=provider:model` (tout fournisseur LangChain, par exemple "
            "`openai:gpt-4o-mini` avec sa clé) dans `.env`, puis redémarrez Relais."
        )
    return (
        "Set `MISTRAL_API_KEY` (Mistral, default model `mistral-small-latest`) or "
        "`RELAIS_MODEL=provider:model` (any LangChain provider, e.g. `openai:gpt-4o-mini` with "
        "its key) in `.env`, then restart Relais."
    )


@dataclass(frozen=True)
class Profile:
    name: str
    icon: str
    display: dict[str, str]
    welcome: dict[str, str]
    starters: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    # its answers are quoted from the knowledge base: the offline footer ("answers are quoted from
    # your documents") is true of this profile only
    quotes_documents: bool = False


PROFILES: tuple[Profile, ...] = (
    Profile(
        ASSISTANT,
        "/public/profiles/assistant.svg",
        {"en": "Assistant", "fr": "Assistant"},
        {
            "en": "**Relais · Assistant** — ask about the help center: I answer from its articles "
            "and show my sources.",
            "fr": "**Relais · Assistant** — posez vos questions sur le centre d'aide : je réponds "
            "à partir de ses articles et je cite mes sources.",
        },
        {
            "en": [
                ("Pricing", "How much does the premium plan cost?"),
                ("Freeze", "Can I freeze my membership?"),
                ("Cancel", "How do I cancel my membership?"),
                ("Privacy", "How is my health data protected?"),
            ],
            "fr": [
                ("Tarifs", "Combien coûte l'abonnement de base ?"),
                ("Suspension", "Puis-je suspendre mon abonnement ?"),
                ("Résiliation", "Comment résilier mon abonnement ?"),
                ("Données", "Comment mes données de santé sont-elles protégées ?"),
            ],
        },
        quotes_documents=True,
    ),
    Profile(
        COACH,
        "/public/profiles/coach.svg",
        {"en": "Coach", "fr": "Coach"},
        {
            "en": "**Relais · Coach** — your workout & nutrition coach. Ask for a plan; after "
            "each answer I ask about injuries, allergies or diet, and adapt the plan.",
            "fr": "**Relais · Coach** — votre coach entraînement & nutrition. Demandez un "
            "programme ; après chaque réponse je vous interroge sur vos blessures, allergies ou "
            "régime, et j'adapte le plan.",
        },
        {
            "en": [
                ("3-day workout plan", "Build me a 3-day workout plan to gain muscle"),
                ("Home workout", "Suggest a 30-minute home workout with no equipment"),
                ("Meal plan", "Give me a meal plan to lose fat"),
                ("Before training", "What should I eat before training?"),
            ],
            "fr": [
                ("Programme 3 jours", "Propose-moi un programme de musculation sur 3 jours"),
                ("Séance à la maison", "Propose-moi une séance de 30 minutes à la maison sans matériel"),
                ("Plan de repas", "Donne-moi un plan de repas pour perdre du gras"),
                ("Avant l'entraînement", "Que manger avant l'entraînement ?"),
            ],
        },
    ),
    Profile(
        DEBATE,
        "/public/profiles/debate.svg",
        {"en": "Debate", "fr": "Débat"},
        {
            "en": "**Relais · Debate** — type a motion: a Pros team and a Cons team argue it over "
            "several rounds, and a hostile critic checks every argument.",
            "fr": "**Relais · Débat** — saisissez une motion : une équipe Pour et une équipe Contre "
            "en débattent sur plusieurs manches, et un critique exigeant vérifie chaque argument.",
        },
    ),
    Profile(
        KB_UPDATE,
        "/public/profiles/knowledge-update.svg",
        {"en": "Knowledge update", "fr": "Mise à jour des connaissances"},
        {
            "en": "**Relais · Knowledge update** — tell me a change in one sentence, such as a new "
            "price. I find every article that states it, prepare the edits, and publish nothing "
            "until you approve them.",
            "fr": "**Relais · Mise à jour des connaissances** — décrivez un changement en une "
            "phrase, par exemple un nouveau prix. Je trouve chaque article concerné, prépare les "
            "modifications, et ne publie rien sans votre accord.",
        },
        {
            "en": [("New price", "The base plan moves from $10/month to $12/month")],
            "fr": [("Nouveau prix", "Le forfait Base passe de 10 $/mois à 12 $/mois")],
        },
    ),
)

_EXTRA = {
    "handoff": {
        "en": " Ask me to *do* something — book a class, a workout or meal plan — and I hand you over to the "
        "agent that does it.",
        "fr": " Demandez-moi d'*agir* — réserver un cours, un programme d'entraînement, un plan de repas — et "
        "je vous confie à l'agent qui s'en charge.",
    },
    "needs_model": {"en": "needs a model", "fr": "modèle requis"},
    "needs_model_intro": {
        "en": "This profile needs a generative model, and none is configured.",
        "fr": "Ce profil a besoin d'un modèle génératif, et aucun n'est configuré.",
    },
}


def _has_model(settings: AssistantSettings) -> bool:
    """A model for the debate: the app's (Mistral, RELAIS_MODEL) or the debate's own."""
    return not is_offline(settings.kit) or bool(DebateConfig.load().model_name)


def welcome(profile: Profile, lang: str, settings: AssistantSettings) -> str:
    text = profile.welcome[lang]
    if profile.name == ASSISTANT and settings.enable_orchestrator:
        text += _EXTRA["handoff"][lang]
    if profile.name == DEBATE and not _has_model(settings):
        text += f"\n\n{_EXTRA['needs_model_intro'][lang]} {model_hint(lang)}"
    return text


def display_name(profile: Profile, lang: str, settings: AssistantSettings) -> str:
    name = profile.display[lang]
    if profile.name == DEBATE and not _has_model(settings):
        name += f" ({_EXTRA['needs_model'][lang]})"
    return name


def starters_for(name: str, language: str | None) -> list[cl.Starter]:
    profile = next((p for p in PROFILES if p.name == name), PROFILES[0])
    return [cl.Starter(label=label, message=text) for label, text in profile.starters.get(lang_of(language), [])]


def chat_profiles(language: str | None, settings: AssistantSettings) -> list[cl.ChatProfile]:
    """Every profile, named and welcomed in the user's language, with its own starters."""
    lang = lang_of(language)
    return [
        cl.ChatProfile(
            name=profile.name,
            display_name=display_name(profile, lang, settings),
            markdown_description=welcome(profile, lang, settings),
            icon=profile.icon,
            default=profile.name == ASSISTANT,
            starters=starters_for(profile.name, language),  # [] (not None): no fallback to another's
        )
        for profile in PROFILES
    ]


def footer_icons(offline: bool) -> list[str] | None:
    """The icons of the profiles the footer is true of (None: every profile). Offline, the footer
    says answers are quoted from the documents: only the profiles that quote them. The page
    script (public/relais.js) knows the active profile by its icon in the header."""
    if not offline:
        return None
    return [profile.icon for profile in PROFILES if profile.quotes_documents]
