"""`relais kb-update`: run the knowledge-base update graph from a terminal.

Progress per unit, lesson approvals and the final review are asked in the terminal;
`--approve-all` approves everything without asking (scripted use only, explicit).
Heavy imports happen inside the command so `relais --help` stays fast.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer

from knowledge.settings import knowledge_settings

MAX_ATTEMPTS_DEFAULT = 3


def kb_update_command(
    old: str = typer.Option(..., "--old", help="The price as the articles state it now, e.g. '$10/month'."),
    new: str = typer.Option(..., "--new", help="The new price, e.g. '$12/month'."),
    kb: Optional[Path] = typer.Option(None, "--kb", help="Knowledge-base folder (default: RELAIS_KB_DIR)."),
    approve_all: bool = typer.Option(
        False, "--approve-all", help="Approve every lesson and the publish without asking (scripted use only)."
    ),
    label: str = typer.Option("base plan", "--label", help="What the price is for (used in briefs)."),
    effective_date: Optional[str] = typer.Option(None, "--effective-date", help="Shared decision: effective date."),
    existing_customers: Optional[str] = typer.Option(
        None, "--existing-customers", help="Shared decision: wording for existing customers."
    ),
    linked_prices: str = typer.Option(
        "ask", "--linked-prices",
        help="Prices set as a ratio of this one (family = 3×, students = half): 'ask' escalates to a person, "
             "'follow' updates them too.",
    ),
    max_attempts: int = typer.Option(MAX_ATTEMPTS_DEFAULT, "--max-attempts", min=1, help="Attempts per unit."),
    wave_size: int = typer.Option(4, "--wave-size", min=1, help="New units started per round."),
    recursion_limit: int = typer.Option(200, "--recursion-limit", min=5, help="Run-wide graph step limit."),
    no_reingest: bool = typer.Option(False, "--no-reingest", help="Write files but do not re-index them."),
    json_output: bool = typer.Option(False, "--json", help="Print the final result as JSON."),
) -> None:
    """Change a price across the knowledge base, reviewed and approved before anything is written.

    Code search and a splitter make one unit per article; workers run in parallel; code gates and a
    judge check each unit; failed units are retried with their evidence; repeated failures become
    lessons you approve; one review with a diff per article is approved before publishing.
    """
    # lazy: `relais --help` loads neither rich (+0.3 s) nor the engine (LangGraph, +7 s)
    from rich.console import Console
    from rich.markup import escape  # lazy: same reason

    # lazy: the engine (LangGraph, +7 s) and relais.models (+3.2 s), not on `relais --help`
    from kb_update.factory import components_for
    from kb_update.graph import EngineConfig  # lazy: same reason
    from kb_update.price_job import PriceChangeJob  # lazy: same reason
    from kb_update.runner import KbUpdateRun, checkpoint_path, sqlite_checkpointer  # lazy: same
    from relais.models import engine_info  # lazy: same reason

    console = Console(stderr=json_output)
    settings = knowledge_settings()
    kb_dir = Path(kb or settings.relais_kb_dir).expanduser().resolve()
    if not kb_dir.is_dir():
        console.print(f"[red]Knowledge-base folder {kb_dir} not found.[/red] Pass --kb DIR or set RELAIS_KB_DIR.")
        raise typer.Exit(2)
    change = _change(console, old, new, label, effective_date, existing_customers, linked_prices)
    job = PriceChangeJob(change)
    for warning in change.warnings():
        console.print(f"[yellow]{escape(warning)}[/yellow]")
    parts = components_for(job, settings, reingest=not no_reingest)
    offline = parts.engine == "offline"
    console.print(f"[bold]{job.summary()}[/bold]  KB: {kb_dir}  engine: {engine_info(settings.kit).label}"
                  + ("  (offline: rules, deterministic worker, code judge stand-in)" if offline else ""))
    config = EngineConfig(max_attempts=max_attempts, wave_size=wave_size, recursion_limit=recursion_limit)
    with sqlite_checkpointer(checkpoint_path(settings)) as saver:
        run = KbUpdateRun(parts, kb_dir, saver, config, job_record=change.to_dict())
        console.print(f"run id: {run.thread_id}")
        finished = _drive(console, run, _Printer(console, approve_all))
    _print_result(console, finished, json_output)


def _change(console: Any, old: str, new: str, label: str, effective_date: str | None,
            existing_customers: str | None, linked_prices: str) -> Any:
    """The price change the options state; a wrong option exits with code 2."""
    from kb_update.price_job import PriceChange  # lazy: `relais --help` does not load the engine

    if linked_prices not in ("ask", "follow"):
        console.print("[red]--linked-prices must be 'ask' or 'follow'.[/red]")
        raise typer.Exit(2)
    try:
        return PriceChange.parse(old, new, label=label, effective_date=effective_date,
                                 existing_customers=existing_customers, linked_prices_follow=linked_prices == "follow")
    except ValueError as exc:
        console.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from exc


def _drive(console: Any, run: Any, printer: _Printer) -> Any:
    """Run to the end, asking in the terminal; a failure is said and exits with code 1."""
    from rich.markup import escape  # lazy: `relais --help` does not load the engine

    from kb_update.runner import RunawayRunError, drive  # lazy: the engine (LangGraph, +7 s)
    from kb_update.splitter import SplitCoverageError  # lazy: same reason

    try:
        return drive(run, printer.decide, printer.event)
    except (RunawayRunError, SplitCoverageError) as exc:
        console.print(f"[red]{escape(str(exc))}[/red]")
        raise typer.Exit(1) from exc
    except Exception as exc:  # a model or file error: say it, nothing was published
        console.print(f"[red]kb-update failed: {escape(type(exc).__name__)}: {escape(str(exc))}[/red] "
                      "Nothing was published.")
        raise typer.Exit(1) from exc


class _Printer:
    """Terminal progress and approvals."""

    def __init__(self, console: Any, approve_all: bool) -> None:
        self.console, self.approve_all = console, approve_all

    def event(self, event: Any) -> None:
        from rich.markup import escape  # lazy: `relais --help` loads neither rich nor the engine

        from kb_update.runner import RoundDone, SplitDone, UnitChecked  # lazy: the engine, +7 s

        c = self.console
        if isinstance(event, SplitDone):
            c.print(f"Search: {event.hits} hit(s) → {len(event.units)} unit(s), {event.discarded} discarded "
                    f"with a reason (splitter: {event.engine}).")
        elif isinstance(event, UnitChecked):
            a = event.attempt
            if event.passed:
                c.print(f"  [green]✓[/green] {escape(a['unit_id'])} (attempt {a['attempt']}) passed every gate")
            else:
                c.print(f"  [yellow]✗[/yellow] {escape(a['unit_id'])} (attempt {a['attempt']}): {len(a['failures'])} failure(s)")
                for message in a["failures"][:4]:
                    c.print(f"      {message}", markup=False, highlight=False)
        elif isinstance(event, RoundDone):
            retry = [u for u, s in event.status.items() if s == "retry"]
            if retry:
                c.print(f"Round {event.round}: retrying only {escape(', '.join(retry))}")
            for uid, why in event.escalated.items():
                c.print(f"  [red]escalated[/red] {escape(uid)}: {escape(why)}", highlight=False)

    def decide(self, approval: Any) -> Any:
        from rich.markdown import Markdown  # lazy: rich loads only when a run is printed
        from rich.markup import escape

        c = self.console
        if approval.kind == "lesson":
            lesson = approval.payload["lesson"]
            c.print(f"\n[bold]Lesson proposed[/bold] ({escape(', '.join(lesson['units']))} failed "
                    f"{escape('[' + lesson['tag'] + ']')}):")
            c.print(f"  {lesson['text']}", markup=False, highlight=False)
            answer = True if self.approve_all else _confirm("Add this lesson to every worker's brief?", True)
            c.print("  → approved" if answer else "  → rejected")
            return answer
        if approval.kind == "decision":
            return self._decision(approval.payload)
        c.print(Markdown(approval.payload.get("markdown", "")))
        if self.approve_all:
            c.print("--approve-all: publishing.")
            return True
        answer = _confirm(approval.prompt or "Publish?", False)
        if not answer:
            c.print("Not approved: nothing was written.")
        return answer


    def _decision(self, payload: dict[str, Any]) -> Any:
        """An item left for a person: the computed value, keep it, or a typed amount.

        `--approve-all` never takes a person's decision: it keeps the current text (the item
        stays listed as left for a person)."""
        item = payload["item"]
        c = self.console
        where = ", ".join(sorted({m["path"] for m in item["mentions"]})) or item.get("path", "")
        from rich.markup import escape  # lazy: rich loads only when a run is printed

        c.print(f"\n[bold]Decision {payload['index'] + 1}/{payload['total']}[/bold] "
                + escape(f"{item['kind']}: {item.get('current') or ''} ({item['relation']}) in {where}"),
                highlight=False)
        if self.approve_all:
            c.print("  --approve-all: kept as it is (a person decides)")
            return {"choice": "keep"}
        computed = item.get("computed")
        default = "c" if computed else "k"
        try:
            raw = typer.prompt(f"  [c] use {computed} / [k] keep / or type a value", default=default)
        except (typer.Abort, EOFError):
            raw = "k"
        raw = raw.strip().lower()
        if raw in ("c", "computed") and computed:
            return {"choice": "computed"}
        if raw in ("k", "keep", ""):
            return {"choice": "keep"}
        return {"choice": "value", "value": raw}


def _confirm(question: str, default: bool) -> bool:
    try:
        return bool(typer.confirm(question, default=default))
    except (typer.Abort, EOFError):  # no terminal answer: not approved
        return False


def _print_result(console: Any, finished: Any, json_output: bool) -> None:
    stats = finished.stats
    if json_output:
        print(json.dumps({"outcome": finished.outcome, "stats": stats, "published": finished.published}, indent=2))
        return
    console.print(
        f"\n[bold]{finished.outcome}[/bold] — {stats.get('units', 0)} units, {stats.get('worker_calls', 0)} worker "
        f"calls ({stats.get('retries', 0)} retries), {stats.get('corrected', 0)} corrected, "
        f"{stats.get('escalated', 0)} escalated, {stats.get('lessons_approved', 0)} lesson(s) approved, "
        f"{stats.get('seconds', 0):.2f} s"
    )
    published = finished.published or {}
    if published.get("written"):
        console.print("Written: " + ", ".join(published["written"]))
    if published.get("conflicts"):
        console.print("[red]Changed on disk meanwhile, not overwritten:[/red] " + ", ".join(published["conflicts"]))
    if published.get("not_published"):
        console.print("Left for a person (escalated): " + ", ".join(published["not_published"]))
    reingest = published.get("reingest")
    if isinstance(reingest, dict):
        console.print("Re-index: " + (reingest.get("error") or reingest.get("summary") or
                                      f"{len(reingest.get('paths', []))} file(s) re-ingested"))
