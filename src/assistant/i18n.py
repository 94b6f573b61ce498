"""User-facing messages in English and French, chosen by the user's language.

One small catalogue rather than a translation framework: the chatbot shows a handful of its own
sentences (errors, the hand-off notice, the sources' labels); everything else is model or KB text.
Unknown languages fall back to English; unknown keys fall back to the key itself, so a missing
translation is visible in review instead of crashing a conversation.
"""

from __future__ import annotations

from collections.abc import Mapping

DEFAULT_LANGUAGE = "en"
SUPPORTED_LANGUAGES = ("en", "fr")

MESSAGES: Mapping[str, Mapping[str, str]] = {
    "en": {
        # external agent failures (codes of `ErrorEvent` produced by external_agent.py)
        "agent.unreachable": "The agent can't be reached right now. Please try again in a moment.",
        "agent.timeout": "The agent did not answer in time. Please try again.",
        "agent.idle_timeout": (
            "The agent stopped responding, so its answer may be incomplete. Please try again."
        ),
        "agent.interrupted": (
            "The connection to the agent was cut, so its answer may be incomplete. "
            "Please try again."
        ),
        "agent.http_error": "The agent returned an error (HTTP {status}). Please try again later.",
        "agent.unauthorized": (
            "The agent refused the request (authentication). Please contact the administrator."
        ),
        "agent.not_found": (
            "The agent was not found at its configured address. Please contact the administrator."
        ),
        "agent.busy": "The agent is busy right now. Please wait a moment and try again.",
        "agent.too_long": "Your message is too long for the agent. Please shorten it.",
        "agent.bad_response": "The agent sent a reply that could not be read.",
        "agent.too_large": "The agent sent a reply that is too large to display.",
        "agent.failed": (
            "The agent ran into a problem while handling your request. Please try again."
        ),
        "agent.unexpected": ("Something went wrong while contacting the agent. Please try again."),
        "agent.conflict": (
            "That question was already answered (perhaps in another tab), so your choice was not "
            "sent again."
        ),
        "prompt.stale": "That question was already answered, so this choice was not sent again.",
        "prompt.undelivered": (
            "This choice could not be delivered: the page lost its connection to the chat. "
            "Please click it again, or reload the page."
        ),
        "prompt.type_reply": "If the agent is waiting for an answer from you, just type your reply.",
        "prompt.other_tab": "This conversation went on in another tab: here is where it is now.",
        "prompt.stale_shown": (
            "That question was already answered (in another tab?), so this choice was not sent. "
            "Here is where the conversation is now."
        ),
        # orchestrator / UI
        "handoff": "Handing you over to the agent that can do it…",
        "interrupt.hint": "Pick an option or type your answer.",
        "error.generic": "Something went wrong. Please try again.",
        "ui.empty_question": "Please type a question.",
        "ui.truncated_question": "Your question was shortened to its first {limit} characters.",
        "ui.kb_missing": (
            "The knowledge base has not been built yet. Run `relais ingest`, then ask again."
        ),
        "ui.model_error": (
            "The language model failed while answering, so the answer may be incomplete. "
            "Please try again."
        ),
        "ui.sources": "Sources:",
        "ui.see_also": "See also:",
        "ui.in_language.en": "in English",
        "ui.in_language.fr": "in French",
        # tool steps ("Used <label>"); unknown tools show their own name
        "tool.generic": "Tool used",
        "tool.workout_plan": "Training plan built",
        "tool.meal_plan": "Meal plan built",
        "ui.no_answer": "No answer was produced. Please rephrase your question.",
        # greetings and thanks get a short reply (assistant.input_guard), not a KB search
        "smalltalk.greeting": (
            "Hello! Ask me a question and I'll answer from the help center's articles."
        ),
        "smalltalk.thanks": "You're welcome! Anything else I can help with?",
    },
    "fr": {
        "agent.unreachable": ("L'agent est injoignable pour le moment. Réessayez dans un instant."),
        "agent.timeout": "L'agent n'a pas répondu à temps. Veuillez réessayer.",
        "agent.idle_timeout": (
            "L'agent a cessé de répondre : sa réponse est peut-être incomplète. Veuillez réessayer."
        ),
        "agent.interrupted": (
            "La connexion avec l'agent a été coupée : sa réponse est peut-être incomplète. "
            "Veuillez réessayer."
        ),
        "agent.http_error": (
            "L'agent a renvoyé une erreur (HTTP {status}). Veuillez réessayer plus tard."
        ),
        "agent.unauthorized": (
            "L'agent a refusé la requête (authentification). Contactez l'administrateur."
        ),
        "agent.not_found": (
            "L'agent est introuvable à l'adresse configurée. Contactez l'administrateur."
        ),
        "agent.busy": "L'agent est occupé. Patientez un instant puis réessayez.",
        "agent.too_long": "Votre message est trop long pour l'agent. Raccourcissez-le.",
        "agent.bad_response": "L'agent a envoyé une réponse illisible.",
        "agent.too_large": "L'agent a envoyé une réponse trop volumineuse pour être affichée.",
        "agent.failed": (
            "L'agent a rencontré un problème en traitant votre demande. Veuillez réessayer."
        ),
        "agent.unexpected": ("Une erreur est survenue en contactant l'agent. Veuillez réessayer."),
        "agent.conflict": (
            "Cette question a déjà reçu une réponse (peut-être dans un autre onglet) : votre choix "
            "n'a pas été renvoyé."
        ),
        "prompt.stale": "Cette question a déjà reçu une réponse : ce choix n'a pas été renvoyé.",
        "prompt.undelivered": (
            "Ce choix n'a pas pu être transmis : la page a perdu sa connexion au chat. "
            "Cliquez de nouveau, ou rechargez la page."
        ),
        "prompt.type_reply": "Si l'agent attend une réponse de votre part, tapez-la simplement.",
        "prompt.other_tab": "Cette conversation a continué dans un autre onglet : voici où elle en est.",
        "prompt.stale_shown": (
            "Cette question a déjà reçu une réponse (dans un autre onglet ?) : ce choix n'a pas été envoyé. "
            "Voici où en est la conversation."
        ),
        "handoff": "Je vous confie à l'agent qui peut s'en charger…",
        "interrupt.hint": "Choisissez une option ou tapez votre réponse.",
        "error.generic": "Une erreur est survenue. Veuillez réessayer.",
        "ui.empty_question": "Veuillez saisir une question.",
        "ui.truncated_question": (
            "Votre question a été raccourcie à ses {limit} premiers caractères."
        ),
        "ui.kb_missing": (
            "La base de connaissances n'est pas encore construite. Lancez `relais ingest`, "
            "puis reposez votre question."
        ),
        "ui.model_error": (
            "Le modèle de langage a échoué pendant sa réponse : elle est peut-être incomplète. "
            "Veuillez réessayer."
        ),
        "ui.sources": "Sources :",
        "ui.see_also": "Voir aussi :",
        "ui.in_language.en": "en anglais",
        "ui.in_language.fr": "en français",
        "tool.generic": "Outil utilisé",
        "tool.workout_plan": "Programme d'entraînement préparé",
        "tool.meal_plan": "Plan de repas préparé",
        "ui.no_answer": "Aucune réponse n'a été produite. Reformulez votre question.",
        "smalltalk.greeting": (
            "Bonjour ! Posez-moi une question : je vous réponds à partir des articles du centre "
            "d'aide."
        ),
        "smalltalk.thanks": "Avec plaisir ! Puis-je vous aider pour autre chose ?",
    },
}


def normalise_language(value: str | None) -> str:
    """Map a language tag or an Accept-Language header (`fr-FR,fr;q=0.9`) to `en` or `fr`.

    The first supported primary subtag wins; anything else is English.
    """
    if not value:
        return DEFAULT_LANGUAGE
    for part in value.split(","):
        tag = part.split(";", 1)[0].strip().replace("_", "-").lower()
        primary = tag.split("-", 1)[0]
        if primary in SUPPORTED_LANGUAGES:
            return primary
    return DEFAULT_LANGUAGE


def translate(key: str, language: str | None = DEFAULT_LANGUAGE, **params: object) -> str:
    """The message `key` in `language` (English if missing), formatted with `params`."""
    lang = normalise_language(language)
    template = MESSAGES[lang].get(key) or MESSAGES[DEFAULT_LANGUAGE].get(key) or key
    try:
        return template.format(**params) if params else template
    except (KeyError, IndexError, ValueError):
        return template
