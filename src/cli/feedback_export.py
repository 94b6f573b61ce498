"""`relais feedback export`: the operator's copy of every thumb, with what was rated."""

from __future__ import annotations

import asyncio
import sys
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from chatbot.feedback import collect_feedback, parse_since, to_csv, to_eval_cases, to_jsonl
from relais.settings import get_settings

feedback_app = typer.Typer(help="Thumbs up/down given to answers: export them (operator view, all users).",
                           no_args_is_help=True)


class Format(str, Enum):
    jsonl = "jsonl"
    csv = "csv"


@feedback_app.command("export")
def export_command(
    since: Optional[str] = typer.Option(None, "--since", help="Only answers given on or after this date (YYYY-MM-DD)."),
    fmt: Format = typer.Option(Format.jsonl, "--format", help="jsonl or csv."),
    as_eval: bool = typer.Option(False, "--as-eval", help="👎 questions as `relais eval answers` cases (JSONL, facts to fill in)."),
    rating: Optional[str] = typer.Option(None, "--rating", help="Only 'up' or 'down'."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Write to this file instead of stdout."),
) -> None:
    """Export the feedback with its question, answer, sources, mode (help center / coach) and engine."""
    # lazy: SQLAlchemy asyncio (+1.2 s), the chat database code (Chainlit, +8 s): export only
    from sqlalchemy.ext.asyncio import create_async_engine

    from chatbot.chainlit_fixes.data_layer import is_sqlite  # lazy: same reason
    from chatbot.persistence import SQLITE_CONNECT_ARGS  # lazy: same reason
    from chatbot.schema import ensure_schema  # lazy: same reason

    if rating not in (None, "up", "down"):
        raise typer.BadParameter("--rating is 'up' or 'down'")
    try:
        since_date = parse_since(since)
    except ValueError as exc:
        raise typer.BadParameter(f"--since: {exc}") from exc
    settings = get_settings()
    url = settings.chainlit_db_url
    if is_sqlite(url) and not (settings.data_dir / "chainlit.db").exists():
        typer.echo("no chat database yet: nothing to export", err=True)
        raise typer.Exit(0)

    async def run() -> list:
        engine = create_async_engine(url, connect_args=dict(SQLITE_CONNECT_ARGS) if is_sqlite(url) else {})
        try:
            await ensure_schema(engine)
            return await collect_feedback(engine, since=since_date, rating="down" if as_eval else rating)
        finally:
            await engine.dispose()

    rows = asyncio.run(run())
    if as_eval:
        payload = to_eval_cases(rows)
    else:
        payload = to_csv(rows) if fmt is Format.csv else to_jsonl(rows)
    if out is not None:
        out.write_text(payload, encoding="utf-8")
        typer.echo(f"{len(rows)} rated answers → {out}", err=True)
    else:
        sys.stdout.write(payload)
