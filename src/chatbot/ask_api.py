"""`relais ask` as a service: one JSON answer from the knowledge base, warm or cold.

The app serves `POST /relais/api/ask` ({"question": "..."} → {"answer", "sources", "engine"})
behind a bearer token (`RELAIS_API_TOKEN`, or one generated in `RELAIS_DATA_DIR/api_token`
that the CLI on the same machine reads). `relais ask` posts there first, so a question costs
an HTTP round trip instead of a cold process loading the encoders; with no app listening it
answers in-process (`answer_question`).
"""

from __future__ import annotations

import hmac
import secrets
from typing import Any

import httpx
from starlette.requests import (
    Request,  # module level: FastAPI resolves the route's annotations here
)

from assistant.settings import AssistantSettings, assistant_settings
from chatbot.activity import ACTIVITY
from chatbot.settings import ChatbotSettings, chatbot_settings
from relais.events import ErrorEvent, SourcesEvent, TextChunk
from relais.language import detect_language

ASK_ROUTE = "/relais/api/ask"


class AskError(Exception):
    """A question that cannot be answered: `status` 400 (bad question) or 503."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message, self.status = message, status


def api_token(settings: ChatbotSettings | None = None, *, create: bool = False) -> str | None:
    """The configured token, else the generated one (created by the app with `create`)."""
    settings = settings or chatbot_settings()
    if settings.relais_api_token is not None:
        return settings.relais_api_token.get_secret_value()
    path = settings.data_dir / "api_token"
    if not path.exists() and create:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(32), encoding="utf-8")
        path.chmod(0o600)
    return path.read_text(encoding="utf-8").strip() if path.exists() else None


_orchestrators: dict[str, Any] = {}


def _orchestrator(settings: AssistantSettings) -> Any:
    """One orchestrator (and so one chat model) per process and settings, not one per request."""
    # lazy: assistant.orchestrator +4.6 s; `relais ask` first posts to the warm app
    from assistant.orchestrator import Orchestrator

    key = settings.model_dump_json() + str(settings.data_dir)
    if key not in _orchestrators:
        _orchestrators[key] = Orchestrator(settings=settings)
    return _orchestrators[key]


async def answer_question(question: str, settings: AssistantSettings | None = None,
                          served_by: str = "cli") -> dict[str, Any]:
    """{"answer", "sources", "engine", "notice", "served_by"} for one question (no hand-off);
    `served_by` says which process answered ("app": the warm one, "cli": a cold run)."""
    # lazy: assistant.orchestrator +4.6 s; `relais ask` first posts to the warm app
    from assistant.orchestrator import prepare_question

    settings = (settings or assistant_settings()).model_copy(update={"enable_orchestrator": False})
    language = detect_language(question)
    prepared = prepare_question(question, language)
    if not prepared.text:
        raise AskError(prepared.notice or "empty question")
    orchestrator = _orchestrator(settings)
    answer, sources, errors = "", [], []
    async for event in orchestrator.process_question(prepared.text, None, language=language):
        if isinstance(event, TextChunk):
            answer += event.text
        elif isinstance(event, SourcesEvent):
            sources = event.sources
        elif isinstance(event, ErrorEvent):
            errors.append(event.message)
    if errors and not answer:
        raise AskError(errors[0], status=503)
    return {
        "answer": answer.strip(),
        "sources": [{"source": s["source"], "title": s["title"], "score": s["score"],
                     "related": bool(s.get("related"))} for s in sources],  # cited first, then related
        "engine": orchestrator.engine_label,
        "notice": prepared.notice or None,
        "served_by": served_by,
    }


def register_ask_route() -> None:
    """`POST /relais/api/ask` on the Chainlit app (bearer token; 401 without it)."""
    # lazy: FastAPI +1.2 s and Chainlit's server +7 s: `relais ask` imports this module, not the app
    from fastapi import HTTPException
    from fastapi.responses import JSONResponse  # lazy: same reason

    from chatbot.chainlit_fixes.route_order import add_route  # lazy: same reason

    expected = api_token(create=True) or ""

    async def ask(request: Request) -> JSONResponse:
        sent = request.headers.get("authorization", "")
        if not expected or not hmac.compare_digest(sent.encode(), f"Bearer {expected}".encode()):
            raise HTTPException(status_code=401, detail="bearer token required (RELAIS_API_TOKEN)")
        try:
            body = await request.json()
        except ValueError:
            raise HTTPException(status_code=400, detail="JSON body expected: {\"question\": \"...\"}") from None
        question = body.get("question") if isinstance(body, dict) else None
        if not isinstance(question, str):
            raise HTTPException(status_code=400, detail="JSON body expected: {\"question\": \"...\"}")
        try:
            with ACTIVITY.turn():  # the background prefill waits for it (`chatbot.activity`)
                return JSONResponse(await answer_question(question, served_by="app"))
        except AskError as exc:
            return JSONResponse({"error": exc.message}, status_code=exc.status)

    add_route(ASK_ROUTE, ask, ["POST"])


def ask_warm(question: str, settings: ChatbotSettings | None = None, timeout_s: float = 120.0) -> dict[str, Any] | None:
    """The running app's answer, or None when no app answers on APP_HOST:APP_PORT."""
    settings = settings or chatbot_settings()
    token = api_token(settings)
    if not token:
        return None
    host = "127.0.0.1" if settings.app_host in ("0.0.0.0", "::", "") else settings.app_host
    url = f"http://{host}:{settings.app_port}{ASK_ROUTE}"
    try:
        response = httpx.post(url, json={"question": question}, headers={"Authorization": f"Bearer {token}"},
                              timeout=httpx.Timeout(timeout_s, connect=0.5))
    except httpx.TransportError:
        return None
    if response.status_code in (401, 404, 405):  # another server on that port, or another token
        return None
    payload = response.json()
    if response.status_code >= 400:
        raise AskError(str(payload.get("error", response.text)), status=response.status_code)
    return payload
