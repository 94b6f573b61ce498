"""Operator commands: `relais hash-password` (for RELAIS_USERS) and `relais doctor`."""

from __future__ import annotations

import typer

from chatbot.auth import hash_password
from chatbot.settings import chatbot_settings


def hash_password_command(
    username: str = typer.Argument(..., help="The user the line is for."),
    method: str = typer.Option("scrypt:32768:8:1", help="scrypt:N:r:p or pbkdf2:sha256:ITERATIONS."),
) -> None:
    """Print a `user:hash` entry for RELAIS_USERS (the password is asked twice, never echoed)."""
    password = typer.prompt("Password", hide_input=True, confirmation_prompt=True)
    typer.echo(f"{username}:{hash_password(password, method)}")


def doctor_command(
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
    host: str = typer.Option(None, help="The address the app listens on (default APP_HOST)."),
    quick: bool = typer.Option(False, help="The app's start checks only (no store opening, no encoder load, no agent)."),
) -> None:
    """Check what a deployment depends on; one line per check with a fix. Exit 1 if any fails."""
    # lazy: chatbot.doctor +5.9 s (SQLAlchemy, the model and store checks), not on `relais --help`
    from chatbot.doctor import report, run_checks

    settings = chatbot_settings()
    checks = run_checks(settings, host or settings.app_host, at_start=quick)
    typer.echo(report(checks, as_json))
    raise typer.Exit(1 if any(c.status == "fail" for c in checks) else 0)
