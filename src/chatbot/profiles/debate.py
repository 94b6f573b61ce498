"""The "Debate" chat profile: the user types a motion, two teams debate it live.

Renders `debate.run_debate`'s events as `relais.events` (`debate.chat_events`) through the one
renderer: each inner step (draft, persona decision, thinking notes, critique verdict) is a step;
approved arguments are messages authored "Pros" / "Cons"; loop-locks and the final metrics are
messages. Typing `/resume` after a failed
run continues it from its checkpoint. With no generative model configured, the profile says
how to configure one and runs nothing (its welcome, in profiles/catalog.py, says it first).
The profile's own sentences follow the user's language (EN/FR); the debate's content is the
model's.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import chainlit as cl

from chatbot.profiles._turn import user_language
from chatbot.profiles.catalog import model_hint
from chatbot.ui.render import TurnRenderer
from debate import events as ev
from debate.chat_events import DebateChatEvents
from debate.config import DebateConfig
from debate.graph import ModelFactory, ModelSetupError, make_models, mermaid_diagram
from debate.runner import RunError, default_out_dir, run_debate
from relais.events import ChatEvent
from relais.language import detect_language
from relais.models import ModelNotConfigured, chat_model

model_factory: ModelFactory | None = None
"""Injected by tests or embedders; None means the app's model seam (`relais.models.chat_model`)."""

RESUME_COMMANDS = {"/resume", "resume"}
_LAST_RUN = "debate_last_run"  # user_session key: output dir of the last unfinished run

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "needs_model": "A debate needs a generative model, and none is configured.",
        "own_model": "You can also give the debate its own model with `DEBATE_MODEL_NAME=provider:model`.",
        "unusable": "The debate model cannot be used: {error}",
        "intro": (
            "Type a motion (e.g. *Cities should ban cars*). The Pros and Cons teams will debate it "
            "for {rounds} rounds; each argument is drafted, then goes through Persona → Thinking → "
            "Critique until a hostile critic approves it (at most {cap} passes, then the team "
            "forfeits the turn). The debate graph:"
        ),
        "nothing_to_resume": "There is no unfinished debate to resume in this chat.",
        "type_motion": "Type the motion to debate.",
    },
    "fr": {
        "needs_model": "Un débat a besoin d'un modèle génératif, et aucun n'est configuré.",
        "own_model": "Vous pouvez aussi donner au débat son propre modèle avec `DEBATE_MODEL_NAME=provider:model`.",
        "unusable": "Le modèle du débat est inutilisable : {error}",
        "intro": (
            "Saisissez une motion (par exemple *Les villes devraient interdire les voitures*). Les "
            "équipes Pour et Contre en débattront pendant {rounds} manches ; chaque argument est "
            "rédigé, puis passe par Persona → Réflexion → Critique jusqu'à ce qu'un critique "
            "exigeant l'approuve (au plus {cap} passes, sinon l'équipe perd son tour). Le graphe "
            "du débat :"
        ),
        "nothing_to_resume": "Il n'y a aucun débat inachevé à reprendre dans cette conversation.",
        "type_motion": "Saisissez la motion à débattre.",
    },
}


def _language(text: str = "") -> str:
    """EN/FR from the user's text, else the browser's language."""
    try:
        return user_language(text)
    except Exception:  # no Chainlit session (embedders, tests): the text alone decides
        return detect_language(text, default="en") if text.strip() else "en"


def _t(key: str, lang: str, **params: object) -> str:
    template = TEXTS.get(lang, TEXTS["en"])[key]
    return template.format(**params) if params else template


def _factory() -> ModelFactory:
    return model_factory or chat_model  # type: ignore[return-value]


async def _model_ready(config: DebateConfig, lang: str, *, explain: bool = True) -> bool:
    """Build the model once up front; if impossible, say why (and how to fix it) instead."""
    try:
        make_models(_factory(), config)
    except ModelNotConfigured:
        if explain:
            await cl.Message(content=_how_to(lang), author="Debate").send()
        return False
    except ModelSetupError as exc:
        await cl.Message(content=_t("unusable", lang, error=exc), author="Debate").send()
        return False
    return True


def _how_to(lang: str = "en") -> str:
    """The configuration hint as markdown: names and `provider:model` values in code spans
    (elsewhere Chainlit's markdown reads `:model` as a directive and drops it)."""
    return f"{_t('needs_model', lang)}\n\n{model_hint(lang)}\n\n{_t('own_model', lang)}"


async def on_chat_start() -> None:
    config = DebateConfig.load()
    lang = _language()
    # without a model the profile's welcome already says how to configure one: the empty chat
    # keeps showing it instead of a message
    if not await _model_ready(config, lang, explain=False):
        return
    graph = cl.Text(
        name="debate-graph.mmd",
        content=mermaid_diagram(config),
        language="mermaid",
        display="inline",
    )
    await cl.Message(
        content=_t("intro", lang, rounds=config.rounds, cap=config.refinement_cap),
        author="Debate",
        elements=[graph],
    ).send()


async def on_message(message: cl.Message) -> None:
    text = (message.content or "").strip()
    config = DebateConfig.load()
    lang = _language(text)
    if not await _model_ready(config, lang):
        return
    if text.lower() in RESUME_COMMANDS:
        last = cl.user_session.get(_LAST_RUN)
        if not last:
            await cl.Message(content=_t("nothing_to_resume", lang), author="Debate").send()
            return
        stream = run_debate(None, out_dir=Path(last), model_factory=_factory(), resume=True)
    elif not text:
        await cl.Message(content=_t("type_motion", lang), author="Debate").send()
        return
    else:
        stream = run_debate(
            text, out_dir=default_out_dir(text), config=config, model_factory=_factory()
        )
    try:
        await _render(stream)
    except ModelNotConfigured:
        await cl.Message(content=_how_to(lang), author="Debate").send()
    except (RunError, ModelSetupError) as exc:
        await cl.Message(content=str(exc), author="Debate").send()
    finally:
        await stream.aclose()


async def _render(stream: AsyncIterator[ev.DebateEvent]) -> None:
    """The run's events as `relais.events`, through the one renderer; the session remembers an
    unfinished run's files, so `/resume` can continue it."""

    async def events() -> AsyncIterator[ChatEvent]:
        chat = DebateChatEvents()
        async for event in stream:
            if isinstance(event, (ev.RunStarted, ev.DebateFailed)):
                # remembered at once, so a run stopped midway can be resumed too
                cl.user_session.set(_LAST_RUN, str(event.out_dir))
            elif isinstance(event, ev.DebateFinished):
                cl.user_session.set(_LAST_RUN, None)
            for shown in chat.translate(event):
                yield shown

    await TurnRenderer(_language(), author="Debate", side_panel=False).render(events())
