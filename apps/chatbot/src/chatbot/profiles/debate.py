"""The "Debate" chat profile: the user types a motion, two teams debate it live.

Adapts `debate.run_debate` events to Chainlit: each inner step (draft, persona decision,
thinking notes, critique verdict) is a `cl.Step`; approved arguments are messages authored
"Pros" / "Cons"; loop-locks and the final metrics are messages. Typing `/resume` after a failed
run continues it from its checkpoint. With no generative model configured, the profile says
how to configure one and runs nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import chainlit as cl
from chainlit.utils import utc_now

from debate import events as ev
from debate.config import DebateConfig
from debate.graph import ModelFactory, ModelSetupError, make_models, mermaid_diagram
from debate.metrics import format_metrics
from debate.runner import RunError, default_out_dir, run_debate
from debate.schemas import team_label
from relais.models import ModelNotConfigured, chat_model

model_factory: ModelFactory | None = None
"""Injected by tests or embedders; None means the app's model seam (`relais.models.chat_model`)."""

RESUME_COMMANDS = {"/resume", "resume"}
_LAST_RUN = "debate_last_run"  # user_session key: output dir of the last unfinished run


def _factory() -> ModelFactory:
    return model_factory or chat_model  # type: ignore[return-value]


async def _model_ready(config: DebateConfig) -> bool:
    """Build the model once up front; if impossible, say why (and how to fix it) instead."""
    try:
        make_models(_factory(), config)
    except ModelNotConfigured:
        await cl.Message(content=_how_to(), author="Debate").send()
        return False
    except ModelSetupError as exc:
        await cl.Message(content=f"The debate model cannot be used: {exc}", author="Debate").send()
        return False
    return True


def _how_to() -> str:
    return (
        "A debate needs a generative model, and none is configured.\n\n"
        f"{ModelNotConfigured.HOW_TO}\n\n"
        "You can also give the debate its own model with DEBATE_MODEL_NAME=provider:model."
    )


async def on_chat_start() -> None:
    config = DebateConfig.load()
    if not await _model_ready(config):
        return
    graph = cl.Text(
        name="debate-graph.mmd",
        content=mermaid_diagram(config),
        language="mermaid",
        display="inline",
    )
    await cl.Message(
        content=(
            "Type a motion (e.g. *Cities should ban cars*). The Pros and Cons teams will debate "
            f"it for {config.rounds} rounds; each argument is drafted, then goes through Persona → "
            "Thinking → Critique until a hostile critic approves it (at most "
            f"{config.refinement_cap} passes, then the "
            "team forfeits the turn). The debate graph:"
        ),
        author="Debate",
        elements=[graph],
    ).send()


async def on_message(message: cl.Message) -> None:
    text = (message.content or "").strip()
    config = DebateConfig.load()
    if not await _model_ready(config):
        return
    if text.lower() in RESUME_COMMANDS:
        last = cl.user_session.get(_LAST_RUN)
        if not last:
            await cl.Message(
                content="There is no unfinished debate to resume in this chat.", author="Debate"
            ).send()
            return
        stream = run_debate(None, out_dir=Path(last), model_factory=_factory(), resume=True)
    elif not text:
        await cl.Message(content="Type the motion to debate.", author="Debate").send()
        return
    else:
        stream = run_debate(
            text, out_dir=default_out_dir(text), config=config, model_factory=_factory()
        )
    try:
        await _render(stream)
    except ModelNotConfigured:
        await cl.Message(content=_how_to(), author="Debate").send()
    except (RunError, ModelSetupError) as exc:
        await cl.Message(content=str(exc), author="Debate").send()
    finally:
        await stream.aclose()


async def _render(stream: Any) -> None:
    """Turn each debate event into Chainlit messages and steps."""
    step: Any = None
    async for event in stream:
        if isinstance(event, ev.RunStarted):
            # remembered at once, so a run stopped midway can be resumed too
            cl.user_session.set(_LAST_RUN, str(event.out_dir))
            where = ""
            if event.resume_at:
                rnd, team = event.resume_at
                where = f" Resuming at round {rnd}, {team_label(team)}."  # type: ignore[arg-type]
            await cl.Message(
                content=f"Debating **{event.motion}** over {event.rounds} rounds.{where}",
                author="Debate",
            ).send()
        elif isinstance(event, ev.RoundStarted):
            await cl.Message(
                content=f"**Round {event.round} / {event.rounds}**", author="Debate"
            ).send()
        elif isinstance(event, ev.StepStarted):
            pass_txt = f", pass {event.attempt}" if event.attempt else ""
            step = cl.Step(
                name=f"{team_label(event.team)} · {event.node} (round {event.round}{pass_txt})",
                type="llm",
            )
            step.start = utc_now()
            await step.send()
        elif isinstance(event, ev.RetryScheduled) and step is not None:
            step.output = (
                f"Try {event.failed_try}/{event.max_tries} failed ({event.error}); "
                f"retrying in {event.wait_s:.0f}s…"
            )
            await step.update()
        elif isinstance(event, ev.StepDone) and step is not None:
            step.output = f"**{event.summary}**\n\n{event.detail}"
            step.end = utc_now()
            await step.update()
            step = None
        elif isinstance(event, ev.ArgumentPublished):
            body = event.argument
            if event.evidence:
                body += "\n\n*Evidence:* " + "; ".join(event.evidence)
            await cl.Message(content=body, author=team_label(event.team)).send()
        elif isinstance(event, ev.LoopLocked):
            await cl.Message(
                content=(
                    f"⚠ **{team_label(event.team)} loop-locked** in round {event.round}: the "
                    f"critic rejected all {event.attempts} passes, so the team forfeits the turn "
                    f"(policy: {event.policy}).\n\n"
                    f"Last feedback: {event.last_feedback}"
                ),
                author="Debate",
            ).send()
        elif isinstance(event, ev.DebateFinished):
            cl.user_session.set(_LAST_RUN, None)
            await cl.Message(
                content=(
                    f"### Metrics\n\n{format_metrics(event.metrics)}\n\nFiles: `{event.out_dir}`"
                ),
                author="Debate",
            ).send()
        elif isinstance(event, ev.DebateFailed):
            if step is not None:
                step.output = f"Failed: {event.message}"
                step.is_error = True
                step.end = utc_now()
                await step.update()
                step = None
            cl.user_session.set(_LAST_RUN, str(event.out_dir))
            await cl.Message(
                content=(
                    f"The debate stopped: {event.message}\n\n"
                    "Everything approved so far is saved in "
                    f"`{event.out_dir}`. Type **/resume** to continue from the last checkpoint.\n\n"
                    f"{format_metrics(event.metrics)}"
                ),
                author="Debate",
            ).send()
