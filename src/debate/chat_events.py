"""A debate run's progress as `relais.events`, the one turn protocol every chat surface renders.

Each inner step (draft, persona decision, thinking notes, critique verdict) is a step shown while
the model works and closed with its output; approved arguments are messages authored "Pros" /
"Cons"; loop-locks and the final metrics are messages of the turn's author.
"""

from __future__ import annotations

from debate import events as ev
from debate.metrics import format_metrics
from debate.schemas import team_label
from relais.events import ChatEvent, MessageEvent, StepEvent


class DebateChatEvents:
    """Translates one run's debate events; remembers the step being worked on."""

    def __init__(self) -> None:
        self.step: StepEvent | None = None

    def translate(self, event: ev.DebateEvent) -> list[ChatEvent]:
        if isinstance(event, ev.RunStarted):
            where = ""
            if event.resume_at:
                rnd, team = event.resume_at
                where = f" Resuming at round {rnd}, {team_label(team)}."  # type: ignore[arg-type]
            return [MessageEvent(f"Debating **{event.motion}** over {event.rounds} rounds.{where}")]
        if isinstance(event, ev.RoundStarted):
            return [MessageEvent(f"**Round {event.round} / {event.rounds}**")]
        if isinstance(event, ev.StepStarted):
            pass_txt = f", pass {event.attempt}" if event.attempt else ""
            key = f"{event.round}/{event.team}/{event.node}/{event.attempt}"
            title = f"{team_label(event.team)} · {event.node} (round {event.round}{pass_txt})"
            self.step = StepEvent(key, title, kind="llm")
            return [self.step]
        if isinstance(event, ev.RetryScheduled) and self.step is not None:
            output = (f"Try {event.failed_try}/{event.max_tries} failed ({event.error}); "
                      f"retrying in {event.wait_s:.0f}s…")
            return [self._step_update(output, "running")]
        if isinstance(event, ev.StepDone) and self.step is not None:
            return [self._step_update(f"**{event.summary}**\n\n{event.detail}", "done")]
        if isinstance(event, ev.ArgumentPublished):
            body = event.argument
            if event.evidence:
                body += "\n\n*Evidence:* " + "; ".join(event.evidence)
            return [MessageEvent(body, author=team_label(event.team))]
        if isinstance(event, ev.LoopLocked):
            return [MessageEvent(
                f"⚠ **{team_label(event.team)} loop-locked** in round {event.round}: the critic rejected all "
                f"{event.attempts} passes, so the team forfeits the turn (policy: {event.policy}).\n\n"
                f"Last feedback: {event.last_feedback}")]
        if isinstance(event, ev.DebateFinished):
            return [MessageEvent(f"### Metrics\n\n{format_metrics(event.metrics)}\n\nFiles: `{event.out_dir}`")]
        if isinstance(event, ev.DebateFailed):
            failed = [self._step_update(f"Failed: {event.message}", "failed")] if self.step is not None else []
            return failed + [MessageEvent(
                f"The debate stopped: {event.message}\n\nEverything approved so far is saved in `{event.out_dir}`. "
                f"Type **/resume** to continue from the last checkpoint.\n\n{format_metrics(event.metrics)}")]
        return []

    def _step_update(self, output: str, status: str) -> StepEvent:
        assert self.step is not None
        update = StepEvent(self.step.key, self.step.title, output, status=status, kind=self.step.kind)
        self.step = update if status == "running" else None
        return update
