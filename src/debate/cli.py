"""`relais debate "MOTION" --rounds N [--out DIR]`: run a debate with live progress.

Exit codes: 0 finished, 1 the run failed (files intact; `--resume` continues it), 2 it could
not start (no model configured, directory in use, nothing to resume).

Tests (and embedders) inject a model factory without any environment variable through Click's
context object: `CliRunner().invoke(app, args, obj={MODEL_FACTORY_KEY: factory})`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import typer

from debate import events as ev
from debate.metrics import format_metrics
from debate.schemas import team_label

MODEL_FACTORY_KEY = "debate.model_factory"


def _injected_factory(ctx: typer.Context) -> Any:
    obj = ctx.find_root().obj if ctx is not None else None
    return obj.get(MODEL_FACTORY_KEY) if isinstance(obj, dict) else None


def debate_command(
    ctx: typer.Context,
    motion: str | None = typer.Argument(None, help="The motion to debate (omit with --resume)."),
    rounds: int | None = typer.Option(None, "--rounds", min=1, help="Rounds (default: config, 3)."),
    out: Path | None = typer.Option(
        None, "--out", help="Output directory (default: <data dir>/debates/<time>-<motion>)."
    ),
    resume: bool = typer.Option(
        False, "--resume", help="Continue the failed run in --out from its checkpoint."
    ),
    config_file: Path | None = typer.Option(
        None,
        "--config",
        exists=True,
        dir_okay=False,
        help="YAML/JSON debate config (see debate.config).",
    ),
    model: str | None = typer.Option(None, "--model", help="provider:model, overrides the config."),
    refinement_cap: int | None = typer.Option(
        None, "--refinement-cap", min=1, help="Passes before loop-lock."
    ),
    max_retries: int | None = typer.Option(
        None, "--max-retries", min=1, help="Tries per LLM step."
    ),
) -> None:
    """Debate MOTION: Pros vs Cons; a hostile critic audits each argument before it is published."""
    # lazy: `relais --help` loads neither rich.console (+0.3 s) nor the graph (LangGraph, +10 s)
    from rich.console import Console

    # lazy: debate.config +0.8 s (pydantic, YAML) and the graph, not on `relais --help`
    from debate.config import DebateConfig
    from debate.graph import ModelSetupError  # lazy: same reason
    from debate.runner import RunError, default_out_dir, stored_config  # lazy: same reason
    from relais.models import ModelNotConfigured  # lazy: relais.models +3.2 s (LangChain)

    console = Console(highlight=False, soft_wrap=True)  # long paths stay copy-pastable
    if resume and out is None:
        console.print("--resume needs --out DIR (the run to continue).", style="red")
        raise typer.Exit(2)
    if not resume and not (motion and motion.strip()):
        console.print('Give a motion, e.g. relais debate "Cities should ban cars".', style="red")
        raise typer.Exit(2)
    changes = {"model_name": model, "refinement_cap": refinement_cap, "max_retries": max_retries}
    out_dir = out or default_out_dir(motion or "debate")
    try:
        if resume:  # the run's own config; flags may switch the model or loosen the limits
            config = stored_config(out).model_copy(
                update={k: v for k, v in changes.items() if v is not None}
            )
        else:
            config = DebateConfig.load(config_file, rounds=rounds, **changes)
        ok = asyncio.run(_run(console, motion, out_dir, config, _injected_factory(ctx), resume))
    except (ModelNotConfigured, ModelSetupError, RunError) as exc:
        console.print(str(exc), style="red", markup=False)
        raise typer.Exit(2) from None
    except (ValueError, OSError) as exc:  # a bad config file/value, an unwritable directory
        console.print(f"Cannot start the debate: {exc}", style="red", markup=False)
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        console.print(
            f'Interrupted. Resume with: relais debate --resume --out "{out_dir}"',
            style="yellow",
            markup=False,
        )
        raise typer.Exit(130) from None
    if not ok:
        raise typer.Exit(1)


async def _run(
    console: Any, motion: str | None, out_dir: Path, config: Any, factory: Any, resume: bool
) -> bool:
    """Print the run's events as they come; True when the debate finished."""
    from debate.runner import run_debate  # lazy: the LangGraph stack loads only when a debate runs

    status = console.status("starting…")
    status.start()
    stream = run_debate(
        motion, out_dir=out_dir, config=config, model_factory=factory, resume=resume
    )
    try:
        async for event in stream:
            finished = _show(console, status, event)
            if finished is not None:
                return finished
    finally:
        status.stop()
        await stream.aclose()
    return False


def _show(console: Any, status: Any, event: Any) -> bool | None:
    """Render one event; returns True/False on the final event, None otherwise.

    Model text is escaped: a `[1]` in an argument must not be read as rich markup.
    """
    from rich.markdown import Markdown  # lazy: rich loads only when a debate is printed
    from rich.markup import escape
    from rich.panel import Panel  # lazy: same reason

    if isinstance(event, ev.RunStarted):
        head = "Resuming" if event.resumed else "Debate"
        if event.resume_at:
            head += f" at round {event.resume_at[0]}, {team_label(event.resume_at[1])}"  # type: ignore[arg-type]
        console.print(
            f"[bold]{head}:[/bold] {escape(event.motion)}  "
            f"({event.rounds} rounds, model {escape(event.model)})"
        )
        console.print(f"Files: {event.out_dir}", markup=False)
    elif isinstance(event, ev.RoundStarted):
        console.rule(f"Round {event.round}/{event.rounds}")
    elif isinstance(event, ev.StepStarted):
        pass_txt = f" pass {event.attempt}" if event.attempt else ""
        status.update(f"{team_label(event.team)} · {event.node}{pass_txt}…")
    elif isinstance(event, ev.StepDone):
        step = event.node + (f" (pass {event.attempt})" if event.attempt else "")
        console.print(f"  {team_label(event.team):4} · {step:19} {event.summary}", markup=False)
    elif isinstance(event, ev.RetryScheduled):
        console.print(
            f"  ↻ {team_label(event.team)} {event.node}: try {event.failed_try}/{event.max_tries} "
            f"failed ({event.error}); retrying in {event.wait_s:.0f}s",
            style="yellow",
            markup=False,
        )
    elif isinstance(event, ev.ArgumentPublished):
        body = event.argument
        if event.evidence:
            body += "\n\nEvidence: " + "; ".join(event.evidence)
        title = f"{team_label(event.team)} · round {event.round}"
        console.print(Panel(escape(body), title=title, expand=False))
    elif isinstance(event, ev.LoopLocked):
        console.print(
            f"  ⚠ {team_label(event.team)} loop-locked after {event.attempts} passes: the team "
            f"forfeits round {event.round} (policy: {event.policy}). "
            f"Last feedback: {event.last_feedback}",
            style="yellow",
            markup=False,
        )
    elif isinstance(event, (ev.DebateFinished, ev.DebateFailed)):
        status.stop()
        failed = isinstance(event, ev.DebateFailed)
        if failed:
            console.print(f"Debate failed: {event.message}", style="bold red", markup=False)
        else:
            console.rule("Metrics")
        console.print(Markdown(format_metrics(event.metrics)))
        names = sorted(
            p.relative_to(event.out_dir).as_posix() for p in event.out_dir.rglob("*") if p.is_file()
        )
        console.print(f"Files in {event.out_dir}: " + ", ".join(names), markup=False)
        if failed:
            console.print(
                f'Resume with: relais debate --resume --out "{event.out_dir}"', markup=False
            )
        return not failed
    return None
