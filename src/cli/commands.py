"""The chatbot's own CLI commands: ask, classify, eval intent, run."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Optional

import typer

from assistant.settings import assistant_settings
from knowledge.cli import run_answer_eval


def ask_command(
    question: str = typer.Argument(..., help="The question to answer from the knowledge base."),
    json_out: bool = typer.Option(False, "--json", help="Print {answer, sources, engine} as JSON."),
    cold: bool = typer.Option(False, "--cold", help="Answer in this process even if the app is running."),
) -> None:
    """Answer a question from the knowledge base (offline engine unless a model is configured).

    Uses the running app's warm process when there is one (POST /relais/api/ask), else this one."""
    # lazy: chatbot.ask_api +1.3 s (httpx), not on `relais --help`
    from chatbot.ask_api import AskError, answer_question, ask_warm

    try:
        payload = None if cold else ask_warm(question)
        if payload is None:
            payload = asyncio.run(answer_question(question))
    except AskError as exc:
        typer.echo(exc.message, err=True)
        raise typer.Exit(2 if exc.status == 400 else 1) from None
    if json_out:
        payload.pop("notice", None)
        typer.echo(json.dumps(payload, ensure_ascii=False))
        return
    if payload.get("notice"):
        typer.echo(payload["notice"], err=True)
    typer.echo(payload["answer"])
    cited = [s for s in payload["sources"] if not s.get("related")]
    for i, s in enumerate(cited, 1):
        typer.echo(f"  [{i}] {s['title']} ({s['source']}) score={s['score']}")
    for s in payload["sources"][len(cited):]:
        typer.echo(f"  see also: {s['title']} ({s['source']}) score={s['score']}")
    typer.echo(f"  — {payload['engine']}")


def classify_command(
    question: str = typer.Argument(..., help="The question to classify."),
    json_out: bool = typer.Option(False, "--json", help="Print {intent, score, engine} as JSON."),
) -> None:
    """Classify a question NORMAL (help center) or ALTER (an action for the external agent)."""
    # lazy: assistant.offline_intent +4.3 s (the encoder stack), not on `relais --help`
    from assistant.offline_intent import get_offline_classifier

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
    # lazy: assistant.offline_intent +4.3 s (the encoder stack), not on `relais --help`
    from assistant.offline_intent import get_offline_classifier

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


def eval_answers_command(
    file: Path = typer.Argument(..., exists=True, dir_okay=False,
                                help='JSONL lines {"question": "...", "facts": [["$5", "5 dollars"], ...]}.'),
    json_out: bool = typer.Option(False, "--json", help="Print the scores and every answer as JSON."),
) -> None:
    """Fact recall, fragments and "not found" rates of the answers on a question set (one process):
    the offline composer's, or the configured model's, given the same context as in the app."""
    # lazy: relais.models +3.2 s (LangChain), not on `relais --help`
    from relais.models import chat_model

    settings = assistant_settings().model_copy(update={"enable_orchestrator": False})  # answers, no hand-off
    model = chat_model(settings.kit)
    if model is None:
        # lazy: knowledge.answer_eval loads the retrieval stack (+1.8 s), not on `relais --help`
        from knowledge.answer_eval import offline_answerer

        run_answer_eval(file, json_out, offline_answerer)
        return
    # lazy: assistant.orchestrator +4.6 s, only with a configured model
    from assistant.orchestrator import Orchestrator
    from assistant.turn_answers import turn_answerer  # lazy: same reason

    run_answer_eval(file, json_out, lambda: turn_answerer(Orchestrator(settings=settings, model=model,
                                                                       model_resolved=True)))


def run_command(
    host: Optional[str] = typer.Option(None, help="App host (default APP_HOST)."),
    port: Optional[int] = typer.Option(None, help="App port (default APP_PORT)."),
    demo: bool = typer.Option(True, "--demo/--no-demo", help="Orchestrator on with the bundled coach, unless .env decides."),
    headless: bool = typer.Option(True, "--headless/--browser", help="Do not open a browser tab."),
) -> None:
    """Index the knowledge base if needed, start the coach agent service and the Chainlit app."""
    # lazy: cli.launcher loads the indexer (+1.8 s) and the doctor (+5.9 s): `relais run` only
    from cli.launcher import launch

    sys.exit(launch(host=host, port=port, demo=demo, headless=headless))
