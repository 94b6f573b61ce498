"""`relais coach …`, `relais eval router`: the coach from a terminal (`relais agent serve` is `cli.agent_service`).

Heavy imports (LangGraph, uvicorn) stay inside the commands so `relais --help` stays fast.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import typer

from relais.events import ErrorEvent, InterruptEvent, TextChunk, ToolCallEvent

DEFAULT_ROUTER_CASES = Path(__file__).parent / "data" / "router_cases.jsonl"

coach_app = typer.Typer(help="The LangGraph fitness & nutrition coach.", no_args_is_help=True)


@coach_app.command("route")
def route_command(
    message: str = typer.Argument(..., help="The user message to route."),
    last: str | None = typer.Option(
        None, "--last", help="last_active_agent: workout_advisor | nutrition_advisor"
    ),
    json_out: bool = typer.Option(False, "--json", help='Print {"agent": ...} as JSON.'),
) -> None:
    """Which advisor answers MESSAGE (deterministic keyword router, no model)."""
    # lazy: coach.router loads LangGraph (coach.state): +10 s on `relais --help` (machine loaded)
    from coach.router import explain_route, normalize_agent

    try:
        decision = explain_route(message, normalize_agent(last))
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--last") from exc
    if json_out:
        typer.echo(json.dumps({"agent": decision.agent}))
        return
    hits = ", ".join(decision.workout_hits + decision.nutrition_hits) or "none"
    typer.echo(f"{decision.agent}  (rule: {decision.reason}; keywords: {hits})")


@coach_app.command("chat")
def chat_command(
    thread: str | None = typer.Option(
        None, "--thread", help="Continue this thread id (default: a new one)."
    ),
    online: bool = typer.Option(
        False, "--online", help="Use the configured chat model instead of the offline engine."
    ),
    checkpoint: str | None = typer.Option(
        None, "--checkpoint", help="SQLite file, Postgres URL or :memory:."
    ),
) -> None:
    """Talk to the coach in the terminal; after each answer pick a quick choice or type freely."""
    thread_id = thread or f"cli-{uuid.uuid4().hex[:8]}"
    asyncio.run(_chat(thread_id, online, checkpoint))


async def _chat(thread_id: str, online: bool, checkpoint: str | None) -> None:
    from rich.console import Console  # lazy: +0.5 s on `relais --help` (machine loaded)

    # lazy: the LangGraph stack, +10 s on `relais --help`
    from coach.runner import AUTO, CoachRunner

    console = Console()
    async with CoachRunner.open(
        model=AUTO if online else None, checkpoint_target=checkpoint
    ) as runner:
        state = await runner.state(thread_id)
        console.print(
            f"[dim]thread {thread_id} · engine {runner.engine} · type 'quit' to leave[/dim]"
        )
        pending: dict[str, Any] | None = state["interrupt"]
        if pending:
            _show_prompt(console, pending)
        while True:
            try:
                line = console.input("[bold cyan]you>[/bold cyan] ").strip()
            except (EOFError, KeyboardInterrupt):
                break
            if line.lower() in ("quit", "exit", ":q"):
                break
            if not line:
                continue
            choices = (pending or {}).get("choices") or []
            if line.isdigit() and 1 <= int(line) <= len(choices):
                line = choices[int(line) - 1]
            pending = None
            async for event in runner.run_turn(thread_id, line):
                if isinstance(event, TextChunk):
                    console.print(event.text, end="", markup=False, highlight=False, soft_wrap=True)
                elif isinstance(event, ToolCallEvent):
                    console.print(f"[dim]⚙ {event.message}[/dim]")
                elif isinstance(event, InterruptEvent):
                    pending = event.payload
                    _show_prompt(console, event.payload)
                elif isinstance(event, ErrorEvent):
                    console.print(f"[red]{event.message}[/red]")
    console.print(f"[dim]bye — resume with: relais coach chat --thread {thread_id}[/dim]")


def _show_prompt(console: Any, payload: dict[str, Any]) -> None:
    console.print()
    console.print(f"[bold yellow]? {payload.get('prompt', '')}[/bold yellow]")
    choices = payload.get("choices") or []
    if choices:
        console.print("  " + "   ".join(f"[{i}] {c}" for i, c in enumerate(choices, 1)))


def evaluate_router(cases: list[dict[str, Any]]) -> dict[str, Any]:
    """Accuracy of the router on labelled cases `{"text", "last", "expect"}`."""
    # lazy: LangGraph (coach.state), +10 s on `relais --help`
    from coach.router import normalize_agent, route

    errors = []
    for i, case in enumerate(cases):
        got = route(case["text"], normalize_agent(case.get("last")))
        expect = normalize_agent(case["expect"])
        if got != expect:
            errors.append(
                {
                    "line": i + 1,
                    "text": case["text"],
                    "last": case.get("last"),
                    "expect": expect,
                    "got": got,
                }
            )
    n = len(cases)
    return {"accuracy": (n - len(errors)) / n if n else 0.0, "n": n, "errors": errors}


def read_cases(path: Path) -> list[dict[str, Any]]:
    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            case = json.loads(line)
        except json.JSONDecodeError as exc:
            raise typer.BadParameter(f"{path}:{number}: not JSON ({exc.msg})") from exc
        if not isinstance(case, dict) or "text" not in case or "expect" not in case:
            raise typer.BadParameter(f'{path}:{number}: expected {{"text", "last", "expect"}}')
        cases.append(case)
    return cases


def eval_router_command(
    file: Path | None = typer.Argument(  # noqa: B008 — Typer's declaration style
        None, help="JSONL of {text, last, expect}; default: the shipped set."
    ),
    json_out: bool = typer.Option(False, "--json", help="Print {accuracy, n, errors} as JSON."),
) -> None:
    """Measure the coach router's accuracy on a labelled JSONL file."""
    path = file or DEFAULT_ROUTER_CASES
    if not path.exists():
        raise typer.BadParameter(f"{path} does not exist")
    result = evaluate_router(read_cases(path))
    if json_out:
        typer.echo(json.dumps(result, ensure_ascii=False))
        return
    typer.echo(f"router accuracy {result['accuracy']:.3f} on {result['n']} cases ({path.name})")
    for err in result["errors"]:
        typer.echo(
            f"  line {err['line']}: expected {err['expect']}, got {err['got']}: {err['text']}"
        )
