"""Run or resume one debate in an output directory, streaming progress events.

The directory holds everything about the run:
    run.json              motion, config, checkpoint thread id, status, last error
    checkpoints.sqlite    the LangGraph checkpointer (a failed run resumes from it)
    shared_memory.json    public transcript (approved arguments only)
    pros/ cons/           private persona.json, thinking.json, critique.json
    transcript.md         readable transcript + metrics (rewritten at the end, also on failure)
    metrics.json          the metrics of the run
    graph.mmd             the graph's picture (mermaid)

A failure after the last retry ends the stream with `DebateFailed` (files intact); running again
with `resume=True` continues from the last checkpoint: approved work is not replayed.
"""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import AsyncIterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from debate.config import DebateConfig
from debate.events import DebateEvent, DebateFailed, DebateFinished, RunStarted
from debate.graph import (
    ModelFactory,
    build_debate_graph,
    make_models,
    mermaid_diagram,
    recursion_limit,
)
from debate.memory import DebateMemory, read_json, write_json_atomic
from debate.metrics import compute_metrics
from debate.state import initial_state
from debate.transcript import render_transcript
from relais.models import chat_model
from relais.settings import get_settings

RUN_FILE = "run.json"
CHECKPOINT_FILE = "checkpoints.sqlite"
GRAPH_FILE = "graph.mmd"
TRANSCRIPT_FILE = "transcript.md"
METRICS_FILE = "metrics.json"


class RunError(RuntimeError):
    """The run cannot start (directory in use, nothing to resume, empty motion)."""


def default_out_dir(motion: str, base: Path | None = None) -> Path:
    """`<data_dir>/debates/<UTC time>-<motion slug>`: one folder per run, sortable by date."""
    if base is None:
        base = get_settings().data_dir / "debates"
    slug = re.sub(r"[^\w]+", "-", motion.lower(), flags=re.UNICODE).strip("-")[:40] or "debate"
    return base / f"{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}-{slug}"


def stored_config(out_dir: str | Path) -> DebateConfig:
    """The config a run in `out_dir` was started with (to resume it, possibly with changes)."""
    record = read_json(Path(out_dir) / RUN_FILE, None)
    if not record:
        raise RunError(f"nothing to resume in {out_dir}: no {RUN_FILE}")
    return DebateConfig.model_validate(record["config"])


def model_label(model: Any) -> str:
    for attr in ("model_name", "model", "model_id"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return type(model).__name__


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _update_run(out_dir: Path, **changes: Any) -> dict[str, Any]:
    record = read_json(out_dir / RUN_FILE, {})
    record.update(changes, updated_at=_now())
    write_json_atomic(out_dir / RUN_FILE, record)
    return record


def finalize(
    out_dir: Path, motion: str, values: Mapping[str, Any], status: str, error: str | None = None
) -> tuple[str, dict[str, Any]]:
    """Write transcript.md, metrics.json and the run status; returns (transcript, metrics)."""
    memory = DebateMemory(out_dir)
    metrics = compute_metrics(values)
    transcript = render_transcript(motion, memory.shared.arguments(), values, metrics, status)
    (out_dir / TRANSCRIPT_FILE).write_text(transcript, encoding="utf-8")
    record = _update_run(out_dir, status=status, error=error)
    identity = {k: record.get(k) for k in ("motion", "version", "model", "status")}
    write_json_atomic(out_dir / METRICS_FILE, {**identity, **metrics})
    return transcript, metrics


def _run_identity(out: Path, motion: str | None, config: DebateConfig | None, resume: bool
                  ) -> tuple[str, str, DebateConfig]:
    """The motion, checkpoint thread id and config of the run (the stored ones on resume)."""
    if resume:
        record = read_json(out / RUN_FILE, None)
        if not record:
            raise RunError(f"nothing to resume in {out}: no {RUN_FILE}")
        return record["motion"], record["thread_id"], config or DebateConfig.model_validate(record["config"])
    if not motion or not motion.strip():
        raise RunError("the motion is empty")
    if (out / RUN_FILE).exists():
        raise RunError(f"{out} already holds a debate: resume it or choose another directory")
    return motion, uuid.uuid4().hex, config or DebateConfig.load()


def _prepare_dir(out: Path, motion: str, thread_id: str, config: DebateConfig, model: str,
                 resume: bool) -> DebateMemory:
    """The run's folder, memory, picture and run record (a resumed run's record says running)."""
    out.mkdir(parents=True, exist_ok=True)
    memory = DebateMemory(out)
    memory.ensure()
    (out / GRAPH_FILE).write_text(mermaid_diagram(config), encoding="utf-8")
    if resume:
        _update_run(out, status="running", error=None, config=config.model_dump())
    else:
        write_json_atomic(out / RUN_FILE, {
            "motion": motion, "thread_id": thread_id, "version": config.version, "model": model,
            "config": config.model_dump(), "status": "running", "error": None,
            "started_at": _now(), "updated_at": _now(),
        })
    return memory


async def run_debate(
    motion: str | None,
    *,
    out_dir: str | Path,
    config: DebateConfig | None = None,
    model_factory: ModelFactory | None = None,
    resume: bool = False,
) -> AsyncIterator[DebateEvent]:
    """Stream a debate's events; ends with `DebateFinished` or `DebateFailed`.

    Raises `ModelNotConfigured` / `ModelSetupError` (before touching the disk) when no model
    is available, and `RunError` for an unusable directory. `model_factory` defaults to
    `relais.models.chat_model`. On resume, `config` (e.g. `stored_config(dir)` with another
    `model_name`) replaces the stored one; the number of rounds stays the run's own.
    """
    out = Path(out_dir)
    factory: ModelFactory = model_factory or chat_model  # type: ignore[assignment]
    motion, thread_id, config = _run_identity(out, motion, config, resume)
    debater, _ = make_models(factory, config)  # ModelNotConfigured before any file exists
    memory = _prepare_dir(out, motion, thread_id, config, model_label(debater), resume)

    final: DebateEvent
    async with AsyncSqliteSaver.from_conn_string(str(out / CHECKPOINT_FILE)) as saver:
        graph = build_debate_graph(factory, config, memory, saver)
        snapshot = await graph.aget_state({"configurable": {"thread_id": thread_id}})
        values: Mapping[str, Any] = snapshot.values or {}
        rounds = int(values.get("rounds") or config.rounds)
        run_config = {
            "configurable": {"thread_id": thread_id},
            "recursion_limit": recursion_limit(config, rounds),
        }
        if values and not snapshot.next:  # resumed a finished run: just report it
            transcript, metrics = finalize(out, motion, values, "completed")
            final = DebateFinished(metrics, out, transcript)
        else:
            graph_input = None if values else initial_state(motion, config.rounds)
            resume_at = (int(values["round"]), str(values["team"])) if values else None
            yield RunStarted(motion, rounds, out, model_label(debater), bool(values), resume_at)
            try:
                async for event in graph.astream(graph_input, run_config, stream_mode="custom"):
                    yield event
            except Exception as exc:  # noqa: BLE001 - every failure ends the run the same way
                message = str(exc) or type(exc).__name__
                values = (await graph.aget_state(run_config)).values or {}
                transcript, metrics = finalize(out, motion, values, "failed", message)
                final = DebateFailed(message, out, transcript, metrics, resumable=True)
            except (asyncio.CancelledError, GeneratorExit):
                _update_run(out, status="interrupted", error="stopped before the end")
                raise
            else:
                values = (await graph.aget_state(run_config)).values
                transcript, metrics = finalize(out, motion, values, "completed")
                final = DebateFinished(metrics, out, transcript)
    yield final  # outside the checkpointer's context: a consumer stopping here leaves nothing open
