"""Password authentication (users from settings) and the Chainlit auth secret.

Thread resume needs a logged-in user; the JWT secret is generated once and kept under the data
folder when `CHAINLIT_AUTH_SECRET` is not set, so sessions survive restarts.
"""

from __future__ import annotations

import hmac
import os
import secrets

from relais.settings import Settings, get_settings


def ensure_auth_secret(settings: Settings | None = None) -> None:
    """Export CHAINLIT_AUTH_SECRET for Chainlit, generating and storing one if needed."""
    settings = settings or get_settings()
    if os.environ.get("CHAINLIT_AUTH_SECRET"):
        return
    if settings.chainlit_auth_secret is not None:
        os.environ["CHAINLIT_AUTH_SECRET"] = settings.chainlit_auth_secret.get_secret_value()
        return
    path = settings.data_dir / "auth_secret"
    if not path.exists():
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(48), encoding="utf-8")
        path.chmod(0o600)
    os.environ["CHAINLIT_AUTH_SECRET"] = path.read_text(encoding="utf-8").strip()


def check_password(username: str, password: str, settings: Settings | None = None) -> bool:
    """Constant-time check against `RELAIS_USERS`."""
    settings = settings or get_settings()
    expected = settings.users.get(username)
    if expected is None:
        hmac.compare_digest(password, password)  # same work for unknown users
        return False
    return hmac.compare_digest(password.encode(), expected.encode())
