"""Typer commands of the knowledge package, registered by the `relais` CLI.

Heavy imports (Chroma, torch, bm25s) happen inside the commands so `relais --help` stays fast.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from knowledge.errors import KnowledgeError

if TYPE_CHECKING:
    from knowledge.answer_eval import AnswerFn


def ingest_command(
    folder: Annotated[Path | None, typer.Argument(
        help="Knowledge-base folder (.md, .txt, .pdf, .html). Default: RELAIS_KB_DIR (data/knowledge).",
    )] = None,
) -> None:
    """Index a knowledge-base folder incrementally (unchanged files are skipped)."""
    from knowledge.ingest import ingest_folder  # lazy: the encoder stack, +1.8 s on `relais --help`

    try:
        report = ingest_folder(folder)
    except KnowledgeError as exc:
        typer.echo(f"Error: {exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo(report.summary())


def eval_retrieval_command(
    dataset: Annotated[Path, typer.Option(
        "--dataset", help="BEIR folder: corpus.jsonl[.gz], queries.jsonl, qrels/*.tsv.")],
    qrels: Annotated[str, typer.Option(
        "--qrels", help="Qrels file, relative to the dataset folder.")] = "qrels/test.tsv",
    mode: Annotated[str | None, typer.Option(
        "--mode", help="dense | bm25 | hybrid (default: RETRIEVAL_MODE).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the scores as one JSON object.")] = False,
    embedder: Annotated[str | None, typer.Option(
        "--embedder", help="minilm | use-multilingual (default: RELAIS_EMBEDDING_MODEL).")] = None,
    cache_dir: Annotated[Path | None, typer.Option(
        "--cache-dir", help="Where eval indexes and embeddings are cached (default: RELAIS_DATA_DIR).")] = None,
) -> None:
    """Measure retrieval (nDCG@10, Recall@10/100, MRR@10) on a BEIR dataset."""
    # lazy: the encoder stack, +2.1 s on `relais --help`
    from knowledge.evaluation import evaluate_retrieval

    try:
        scores = evaluate_retrieval(dataset, qrels, mode, embedder_name=embedder, cache_dir=cache_dir,
                                    show_progress=not as_json)
    except (KnowledgeError, ValueError) as exc:
        typer.echo(f"Error: {exc}", err=True)
        raise typer.Exit(1) from None
    if as_json:
        typer.echo(json.dumps(scores.to_json()))
        return
    cache = "cached index" if scores.index_cached else "index built"
    typer.echo(f"{dataset} [{Path(qrels).name}] mode={scores.mode}: {scores.queries} queries, "
               f"{cache}, {scores.seconds:.1f} s")
    for name, value in scores.to_json().items():
        if name not in ("queries", "mode"):
            typer.echo(f"  {name:<11} {value:.4f}")


def run_answer_eval(file: Path, as_json: bool, answerer: Callable[[], AnswerFn]) -> None:
    """Score the answers `answerer()` gives on `file`'s questions and print the report."""
    # lazy: answer_eval loads the retrieval stack (+1.8 s on `relais --help`)
    from knowledge.answer_eval import evaluate_answers, load_cases

    try:
        report = evaluate_answers(load_cases(file), answerer())
    except (KnowledgeError, ValueError) as exc:
        typer.echo(f"Error: {exc}", err=True)
        raise typer.Exit(1) from None
    if as_json:
        typer.echo(json.dumps(report, ensure_ascii=False))
        return
    typer.echo(f"fact recall {report['fact_recall']:.3f}, fragment rate {report['fragment_rate']:.3f} "
               f"(markup {report['markup_rate']:.3f}) on {report['n']} questions ({report['relevance_errors']} "
               f"relevance errors): answerable declined {report['answerable_declined_rate']:.3f} "
               f"of {report['answerable']}, unanswerable answered {report['unanswerable_answered_rate']:.3f} "
               f"of {report['unanswerable']}")
    for row in report["answers"]:
        if row["missing"] or row["fragments"]:
            typer.echo(f"  {row['question']}\n    missing {row['missing']} fragments {row['fragments']}\n"
                       f"    {row['answer'][:300]}")
