"""`relais audit …`: classify receipt files, replay the seed's eight cases, list stored receipts.

The package is already loaded by `relais --help` (its entrance imports the recorder), so its modules are imported at the top; the settings stay lazy in the recorder.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from handoff_audit.classifier import classify
from handoff_audit.recorder import ReceiptStore, read_receipts
from handoff_audit.replay import render_table, replay

audit_app = typer.Typer(
    help="Handoff audit receipts: six boundaries, one verdict with precedence.",
    no_args_is_help=True,
    add_completion=False,
)


NowOption = Annotated[
    str | None,
    typer.Option("--now", help="ISO-8601 time to judge deadlines against (default: now)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="JSON output, one object per line.")]
ThreadOption = Annotated[str | None, typer.Option("--thread", help="Only this thread's receipts.")]
DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="Receipts database: a SQLAlchemy URL or a SQLite file (default: the chat database, "
        "DATABASE_URL or <RELAIS_DATA_DIR>/chainlit.db).",
    ),
]


def _parse_now(value: str | None) -> datetime:
    if value is None:
        return datetime.now(UTC)
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        raise typer.BadParameter(
            f"not an ISO-8601 timestamp: {value!r}", param_hint="--now"
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _emit(lines: list[dict], as_json: bool, human: list[str]) -> None:
    if as_json:
        for item in lines:
            typer.echo(json.dumps(item, ensure_ascii=False))
    else:
        for line in human:
            typer.echo(line)


@audit_app.command("classify")
def classify_command(
    file: Annotated[
        str,
        typer.Argument(help="A receipt JSON, a JSON array of receipts, or JSONL ('-' = stdin)."),
    ],
    now: NowOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help='One {"operation_id","verdict","boundaries"} per line.')
    ] = False,
) -> None:
    """Classify each receipt: the earliest failing boundary wins."""
    moment = _parse_now(now)
    try:
        text = sys.stdin.read() if file == "-" else Path(file).read_text("utf-8")
    except OSError as exc:
        typer.echo(f"cannot read {file}: {exc.strerror}", err=True)
        raise typer.Exit(2) from None
    try:
        receipts = read_receipts(text)
    except ValueError as exc:
        typer.echo(f"{file}: {exc}", err=True)
        raise typer.Exit(2) from None
    verdicts = [classify(r, moment) for r in receipts]
    human = [
        f"{v.operation_id}  {v.verdict.value}  ({v.deciding.name}: {v.deciding.reason})"
        for v in verdicts
    ]
    _emit([v.to_dict() for v in verdicts], as_json, human)


@audit_app.command("replay")
def replay_command(
    file: Annotated[
        Path | None, typer.Option("--file", help="Cases JSONL (default: the shipped seed fixture).")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Replay the seed's eight synthetic cases; exits 1 unless every verdict is the expected one."""
    report = replay(file)
    if as_json:
        typer.echo(json.dumps(report.to_dict(), ensure_ascii=False))
    else:
        typer.echo(render_table(report))
    if not report.ok:
        raise typer.Exit(1)


@audit_app.command("list")
def list_command(
    thread: ThreadOption = None,
    now: NowOption = None,
    as_json: JsonOption = False,
    db: DbOption = None,
    verdict: Annotated[
        list[str] | None, typer.Option("--verdict", help="Only these verdicts (repeatable).")
    ] = None,
) -> None:
    """List recorded receipts with their verdict (judged now)."""
    moment = _parse_now(now)
    verdicts = {v.strip().upper() for v in verdict or [] if v.strip()}
    rows = ReceiptStore(db).list(thread)
    items, human = [], []
    for row in rows:
        verdict = classify(row.receipt, moment)
        if verdicts and verdict.verdict.value not in verdicts:
            continue
        r = row.receipt
        items.append(
            {
                "thread_id": row.thread_id,
                "recorded_at": row.recorded_at,
                "attempt": r.attempt,
                "route_contract": r.route_contract,
                "sender": r.sender,
                "recipient": r.recipient,
                "final_state": r.final_state,
                **verdict.to_dict(),
            }
        )
        human.append(
            f"{row.recorded_at}  {row.thread_id}  {r.operation_id}#{r.attempt}  "
            f"{r.sender} -> {r.recipient}  {r.final_state}  {verdict.verdict.value}"
        )
    if not rows and not as_json:
        human = ["no receipts recorded" + (f" for thread {thread}" if thread else "")]
    _emit(items, as_json, human)


@audit_app.command("export")
def export_command(
    destination: Annotated[
        Path, typer.Argument(help="JSONL file to write (readable by `relais audit classify`).")
    ],
    thread: ThreadOption = None,
    db: DbOption = None,
) -> None:
    """Export stored receipts as JSONL, one receipt per line."""
    count = ReceiptStore(db).export_jsonl(destination, thread)
    typer.echo(f"{count} receipts written to {destination.name}")
