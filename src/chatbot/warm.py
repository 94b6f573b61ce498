"""Warm start of the Chainlit app: what the first question needs is loaded at app start.

`GET /relais/ready` answers 503 `{"ready": false}` while the encoders, Chroma, the BM25 index
(and, offline with the orchestrator on, the intent classifier) load in a background thread,
then 200 `{"ready": true}`; `make run` (the launcher) waits for it before printing the URL.
`RELAIS_WARM_START=false` skips the work (the first question then loads everything).
"""

from __future__ import annotations

import logging
import threading

from relais.settings import Settings

logger = logging.getLogger(__name__)

READY_ROUTE = "/relais/ready"


def _warm(settings: Settings) -> None:
    from knowledge.warmup import warm_up

    seconds = warm_up(settings)
    if settings.enable_orchestrator:
        from assistant.offline_intent import get_offline_classifier
        from relais.models import is_offline

        if is_offline(settings):
            get_offline_classifier(settings).classify("warm-up")
    logger.info("app warm in %.1f s", seconds)


def start_warm_start(settings: Settings) -> None:
    """Register the readiness route and start warming (or mark ready when warm start is off)."""
    from fastapi.responses import JSONResponse

    from chatbot.chainlit_fixes.route_order import add_route

    ready = threading.Event()

    async def readiness() -> JSONResponse:
        return JSONResponse({"ready": ready.is_set()}, status_code=200 if ready.is_set() else 503)

    add_route(READY_ROUTE, readiness, ["GET"], first=True)
    if not settings.relais_warm_start:
        ready.set()
        return

    def run() -> None:
        try:
            _warm(settings)
        except Exception as exc:  # still serve: the first question loads lazily
            logger.warning("warm start failed (%s); loading on the first question", type(exc).__name__)
        finally:
            ready.set()

    threading.Thread(target=run, name="relais-warm-start", daemon=True).start()
