"""The `relais` command: composes each package's commands (imports stay light; work is lazy)."""

from __future__ import annotations

import typer

from cli.agent_service import agent_app
from cli.commands import (
    ask_command,
    classify_command,
    eval_answers_command,
    eval_intent_command,
    run_command,
)
from cli.feedback_export import feedback_app
from cli.ops_commands import doctor_command, hash_password_command
from coach.cli import coach_app, eval_router_command
from debate.cli import debate_command
from handoff_audit.cli import audit_app
from kb_update.cli import kb_update_command
from knowledge.cli import eval_retrieval_command, ingest_command

app = typer.Typer(
    name="relais",
    help="Relais: a chat assistant that answers from a knowledge base and hands actions to agents.",
    no_args_is_help=True,
    add_completion=False,
)
eval_app = typer.Typer(help="Measure quality: retrieval, answers, intent classification, coach routing.", no_args_is_help=True)

app.command("ingest")(ingest_command)
app.command("ask")(ask_command)
app.command("classify")(classify_command)
app.command("run")(run_command)
app.command("hash-password")(hash_password_command)
app.command("doctor")(doctor_command)
app.command("debate")(debate_command)
app.command("kb-update")(kb_update_command)
app.add_typer(coach_app, name="coach")
app.add_typer(agent_app, name="agent")
app.add_typer(audit_app, name="audit")
app.add_typer(feedback_app, name="feedback")
app.add_typer(eval_app, name="eval")
eval_app.command("retrieval")(eval_retrieval_command)
eval_app.command("answers")(eval_answers_command)
eval_app.command("router")(eval_router_command)
eval_app.command("intent")(eval_intent_command)


if __name__ == "__main__":  # pragma: no cover
    app()
