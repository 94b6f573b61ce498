"""Warm start of the Chainlit app: what the first question needs is loaded at app start.

`GET /relais/ready` answers 503 `{"ready": false}` while the encoders, Chroma, the BM25 index
(and, offline with the orchestrator on, the intent classifier) load in a background thread,
then 200 `{"ready": true}`; `make run` (the launcher) waits for it before printing the URL, and
shows the step the 503 body names (`step`, `done` of `steps`) so a person sees what it waits for.
`RELAIS_WARM_START=false` skips the work (the first question then loads everything).
Once ready, the same thread encodes the answer composer's sentences the cache lacks
(`knowledge.unit_cache.prefill_once`: ingest no longer waits for them), block by block, each
only once no turn has run for a moment (`chatbot.activity`): questions come first.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from fastapi.responses import JSONResponse

from assistant.settings import assistant_settings
from chatbot.activity import ACTIVITY
from chatbot.chainlit_fixes.route_order import add_route
from chatbot.settings import ChatbotSettings
from knowledge.settings import knowledge_settings
from relais.models import is_offline

logger = logging.getLogger(__name__)

READY_ROUTE = "/relais/ready"


def _warm(settings: ChatbotSettings, status: dict[str, Any]) -> None:
    # knowledge.warmup (+0.7 s, knowledge.retrieval) loads in the warm-up thread, after the page;
    # lazy: that, and tests patch knowledge.warmup.warm_up
    from knowledge.warmup import STEPS, warm_up

    assistant = assistant_settings()
    status["steps"] = STEPS + (1 if assistant.enable_orchestrator else 0)
    started: list[str] = []

    def on_step(description: str) -> None:
        status["done"] = len(started)  # the steps finished before this one
        started.append(description)
        status["step"] = description
        logger.info("warm-up: %s", description)

    seconds = warm_up(knowledge_settings().on(settings.kit), on_step)
    if assistant.enable_orchestrator:
        # lazy: +0.15 s, in the warm-up thread, not before the page is served
        from assistant.offline_intent import get_offline_classifier

        on_step("loading the intent classifier")
        if is_offline(settings.kit):
            get_offline_classifier(assistant).classify("warm-up")
    logger.info("app warm in %.1f s", seconds)


def _prefill(settings: ChatbotSettings) -> None:
    """The composer's sentence vectors, after ready (see the module's docstring)."""
    # lazy: knowledge.retrieval, knowledge.unit_cache (+0.1 s): the warm-up thread's work
    from knowledge.retrieval import get_knowledge_base
    from knowledge.unit_cache import prefill_once  # lazy: same reason

    try:
        prefill_once(get_knowledge_base(knowledge_settings().on(settings.kit)), settings.data_dir / "embeddings",
                     before_block=ACTIVITY.wait_quiet)  # turns first: the cache only saves work
    except Exception as exc:  # noqa: BLE001 - a cache: questions encode what they need anyway
        logger.warning("background prefill of the composer's sentences stopped (%s)", type(exc).__name__)


def start_warm_start(settings: ChatbotSettings) -> None:
    """Register the readiness route and start warming (or mark ready when warm start is off)."""
    ready = threading.Event()
    status: dict[str, Any] = {"step": "starting", "done": 0, "steps": 0}

    async def readiness() -> JSONResponse:
        if ready.is_set():
            return JSONResponse({"ready": True}, status_code=200)
        return JSONResponse({"ready": False, **status}, status_code=503)

    add_route(READY_ROUTE, readiness, ["GET"], first=True)
    if not settings.relais_warm_start:
        ready.set()
        return

    def run() -> None:
        try:
            _warm(settings, status)
        except Exception as exc:  # noqa: BLE001 - still serve: the first question loads lazily
            logger.warning("warm start failed (%s); loading on the first question", type(exc).__name__)
            return
        finally:
            ready.set()
        _prefill(settings)

    threading.Thread(target=run, name="relais-warm-start", daemon=True).start()
