"""Operator commands: `relais hash-password` (for RELAIS_USERS) and `relais doctor`."""

from __future__ import annotations

import typer


def hash_password_command(
    username: str = typer.Argument(..., help="The user the line is for."),
    method: str = typer.Option("scrypt:32768:8:1", help="scrypt:N:r:p or pbkdf2:sha256:ITERATIONS."),
) -> None:
    """Print a `user:hash` entry for RELAIS_USERS (the password is asked twice, never echoed)."""
    from chatbot.auth import hash_password

    password = typer.prompt("Password", hide_input=True, confirmation_prompt=True)
    typer.echo(f"{username}:{hash_password(password, method)}")
