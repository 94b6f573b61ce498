"""Password authentication (users from settings) and the Chainlit auth secret.

Thread resume needs a logged-in user; the JWT secret is generated once and kept under the data
folder when `CHAINLIT_AUTH_SECRET` is not set, so sessions survive restarts.

`RELAIS_USERS` holds `user:password` pairs; a password may be a hash in Werkzeug's format
(`scrypt:32768:8:1$salt$hex` or `pbkdf2:sha256:600000$salt$hex`, what `relais hash-password`
prints), so a deployment never keeps plain passwords in its environment. Hashes are checked with
the standard library only.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
import re
import secrets
import string

from chatbot.settings import ChatbotSettings, chatbot_settings

DEMO_USER, DEMO_PASSWORD = "demo", "relais"
MIN_PASSWORD_CHARS = 12
_HASH = re.compile(r"^(?P<method>scrypt:\d+:\d+:\d+|pbkdf2:[a-z0-9_]+:\d+)\$(?P<salt>[^$]+)\$(?P<digest>[0-9a-f]+)$")
_SALT_CHARS = string.ascii_letters + string.digits
# Checked when the username is unknown, so a wrong user costs as much as a wrong password.
_DUMMY_HASH = "pbkdf2:sha256:600000$dummysaltdummy$" + "0" * 64


def ensure_auth_secret(settings: ChatbotSettings | None = None) -> None:
    """Export CHAINLIT_AUTH_SECRET for Chainlit, generating and storing one if needed."""
    settings = settings or chatbot_settings()
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


# --- password hashes (Werkzeug's format, standard library) ----------------------------------------
def is_hashed(stored: str) -> bool:
    return _HASH.match(stored) is not None


def hash_password(password: str, method: str = "scrypt:32768:8:1") -> str:
    """A salted hash for `RELAIS_USERS` (scrypt by default, like Werkzeug's generate_password_hash)."""
    salt = "".join(secrets.choice(_SALT_CHARS) for _ in range(16))
    return f"{method}${salt}${_digest(method, salt, password)}"


def _digest(method: str, salt: str, password: str) -> str:
    kind, *params = method.split(":")
    if kind == "scrypt":
        n, r, p = (int(x) for x in params)
        return hashlib.scrypt(password.encode(), salt=salt.encode(), n=n, r=r, p=p, maxmem=132 * n * r * p).hex()
    name, iterations = params
    return hashlib.pbkdf2_hmac(name, password.encode(), salt.encode(), int(iterations)).hex()


def verify_password(stored: str, password: str) -> bool:
    """Constant-time check of `password` against a stored plain password or hash."""
    match = _HASH.match(stored)
    if match is None:
        return hmac.compare_digest(password.encode(), stored.encode())
    try:
        candidate = _digest(match["method"], match["salt"], password)
    except (ValueError, TypeError):  # unknown hash algorithm or absurd parameters
        return False
    return hmac.compare_digest(candidate, match["digest"])


def check_password(username: str, password: str, settings: ChatbotSettings | None = None) -> bool:
    """Constant-time check against `RELAIS_USERS` (hashes are slow on purpose: run off the loop)."""
    settings = settings or chatbot_settings()
    expected = settings.users.get(username)
    if expected is None:
        uses_hashes = any(is_hashed(p) for p in settings.users.values())
        verify_password(_DUMMY_HASH if uses_hashes else password, password)  # same work for unknown users
        return False
    return verify_password(expected, password)


# --- credentials that must never reach a network --------------------------------------------------
def is_loopback(host: str) -> bool:
    """True for an address only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    host = host.strip().strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name or 0.0.0.0 / :: (every interface): reachable from the network


def shares_database(settings: ChatbotSettings) -> bool:
    """The chat database is a server other machines (and instances) use, not a local file."""
    return bool(settings.kit.database_url) and not settings.kit.chainlit_db_url.startswith("sqlite")


def weak_credentials(settings: ChatbotSettings) -> list[str]:
    """Why `RELAIS_USERS` is unfit for a network: the demo account, short plain passwords."""
    problems = []
    for user, stored in settings.users.items():
        if is_hashed(stored):
            continue
        if user == DEMO_USER and stored == DEMO_PASSWORD:
            problems.append(f"the demo account {DEMO_USER}/{DEMO_PASSWORD}")
        elif len(stored) < MIN_PASSWORD_CHARS:
            problems.append(f"user {user!r} has a password shorter than {MIN_PASSWORD_CHARS} characters")
    if not settings.users:
        problems.append("no user is configured")
    return problems


def network_exposure(settings: ChatbotSettings, host: str) -> str | None:
    """Why this start is exposed beyond this machine, or None for a loopback, local-file start."""
    if not is_loopback(host):
        return f"the app listens on {host}"
    if shares_database(settings):
        return "DATABASE_URL points to a shared database"
    return None


USERS_HINT = (
    "set RELAIS_USERS to user:password pairs with passwords of at least 12 characters, or hashes "
    "printed by `relais hash-password` (e.g. RELAIS_USERS='alice:scrypt:32768:8:1$...'), "
    "and remove demo:relais"
)


def exposure_problem(settings: ChatbotSettings, host: str) -> str | None:
    """The reason this start must be refused (weak credentials reachable beyond this machine), or None."""
    exposure = network_exposure(settings, host)
    weak = weak_credentials(settings) if exposure else []
    if not weak:
        return None
    return f"{exposure}, and RELAIS_USERS has {'; '.join(weak)}: {USERS_HINT}"
