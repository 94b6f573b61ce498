"""The chatbot's own CLI commands: ask, classify, eval intent, run."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Optional

import typer

from relais.events import ErrorEvent, SourcesEvent, TextChunk


def ask_command(
    question: str = typer.Argument(..., help="The question to answer from the knowledge base."),
    json_out: bool = typer.Option(False, "--json", help="Print {answer, sources, engine} as JSON."),
) -> None:
    """Answer a question from the knowledge base (offline engine unless a model is configured)."""
    from chatbot.core.orchestrator import Orchestrator, prepare_question
    from relais.language import detect_language
    from relais.settings import get_settings

    settings = get_settings().model_copy(update={"enable_orchestrator": False})
    language = detect_language(question)
    prepared = prepare_question(question, language, settings)
    if not prepared.text:
        typer.echo(prepared.notice, err=True)
        raise typer.Exit(2)
    orchestrator = Orchestrator(settings=settings)
    answer, sources, errors = "", [], []

    async def run() -> None:
        nonlocal answer, sources
        async for event in orchestrator.process_question(prepared.text, None, language=language):
            if isinstance(event, TextChunk):
                answer += event.text
            elif isinstance(event, SourcesEvent):
                sources = event.sources
            elif isinstance(event, ErrorEvent):
                errors.append(event.message)

    asyncio.run(run())
    if errors and not answer:
        typer.echo(errors[0], err=True)
        raise typer.Exit(1)
    if json_out:
        payload = {
            "answer": answer.strip(),
            "sources": [{"source": s["source"], "title": s["title"], "score": s["score"]} for s in sources],
            "engine": orchestrator.engine_label,
        }
        typer.echo(json.dumps(payload, ensure_ascii=False))
        return
    if prepared.notice:
        typer.echo(prepared.notice, err=True)
    typer.echo(answer.strip())
    for i, s in enumerate(sources, 1):
        typer.echo(f"  [{i}] {s['title']} ({s['source']}) score={s['score']}")
    typer.echo(f"  — {orchestrator.engine_label}")


def classify_command(
    question: str = typer.Argument(..., help="The question to classify."),
    json_out: bool = typer.Option(False, "--json", help="Print {intent, score, engine} as JSON."),
) -> None:
    """Classify a question NORMAL (help center) or ALTER (an action for the external agent)."""
    from chatbot.core.offline_intent import get_offline_classifier

    result = get_offline_classifier().classify(question)
    if json_out:
        typer.echo(json.dumps({"intent": result.intent.value, "score": round(result.score, 4), "engine": result.engine}))
    else:
        typer.echo(f"{result.intent.value}  score={result.score:.3f}  nearest example: {result.nearest!r}")


def eval_intent_command(
    file: Path = typer.Argument(..., exists=True, dir_okay=False, help='JSONL lines {"text","label"}.'),
    json_out: bool = typer.Option(False, "--json"),
) -> None:
    """Accuracy of the offline intent classifier on a labelled JSONL file."""
    from chatbot.core.offline_intent import get_offline_classifier

    classifier = get_offline_classifier()
    rows = [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines() if line.strip()]
    errors = []
    for row in rows:
        result = classifier.classify(row["text"])
        if result.intent.value != str(row["label"]).upper():
            errors.append({"text": row["text"], "label": row["label"], "predicted": result.intent.value, "score": round(result.score, 4)})
    accuracy = (len(rows) - len(errors)) / len(rows) if rows else 0.0
    if json_out:
        typer.echo(json.dumps({"accuracy": round(accuracy, 4), "n": len(rows), "errors": errors}, ensure_ascii=False))
        return
    typer.echo(f"accuracy {accuracy:.3f} on {len(rows)} questions ({len(errors)} errors)")
    for e in errors:
        typer.echo(f"  expected {e['label']:6} got {e['predicted']:6} ({e['score']:+.3f})  {e['text']}")


def run_command(
    host: Optional[str] = typer.Option(None, help="App host (default APP_HOST)."),
    port: Optional[int] = typer.Option(None, help="App port (default APP_PORT)."),
    demo: bool = typer.Option(True, "--demo/--no-demo", help="Orchestrator on with the bundled coach, unless .env decides."),
    headless: bool = typer.Option(True, "--headless/--browser", help="Do not open a browser tab."),
) -> None:
    """Index the knowledge base if needed, start the coach agent service and the Chainlit app."""
    from chatbot.launcher import launch

    sys.exit(launch(host=host, port=port, demo=demo, headless=headless))
