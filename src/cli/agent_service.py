"""`relais agent serve`: the agents Relais ships, served over Relais's own protocol (POST /assistant, SSE).

By default one service routes between the booking agent and the coach (`relais.agent_router`): a
booking request ("book yoga on Monday at 18:00", "annule la réservation 3") goes to the booking
agent, a plan request to the coach, and a thread stays with its agent while that agent's approval
card waits. `--agent coach` or `--agent booking` serves one of them alone. The orchestrator keeps
a single `EXTERNAL_AGENT_URL`, so pointing it at a third-party agent still sends every hand-off there.

Heavy imports (LangGraph, uvicorn) stay inside the functions so `relais --help` stays fast.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from enum import Enum

import typer

from assistant.settings import assistant_settings
from booking.settings import booking_settings
from chatbot.settings import chatbot_settings
from cli.settings import cli_settings
from coach.settings import coach_settings
from relais.logging import configure_logging
from relais.settings import Settings, get_settings, secret_values

agent_app = typer.Typer(help="The agents served as the orchestrator's external agent.", no_args_is_help=True)

BOOKING, COACH = "booking", "coach"
BOOKING_THREADS = "booking:"  # booking threads beside the coach's in the same checkpointer


class Served(str, Enum):
    ALL = "all"
    COACH = COACH
    BOOKING = BOOKING


def routes_url(settings: Settings) -> str:
    """Where each thread's agent is kept: the checkpoints' Postgres, else a SQLite file beside them."""
    target = settings.checkpoint_target
    if target.startswith(("postgresql://", "postgres://")):
        return "postgresql+asyncpg://" + target.split("://", 1)[1]
    return f"sqlite+aiosqlite:///{settings.data_dir / 'agent_routes.db'}"


@contextlib.asynccontextmanager
async def open_booking(settings: Settings) -> AsyncIterator[object]:
    """The booking agent as a runner, on the settings' checkpointer and model (none: offline)."""
    # lazy: the booking agent, its checkpointer and model load LangGraph (+6 s), not `relais --help`
    from booking.agent import build_booking_agent, default_store
    from coach.checkpoint import open_checkpointer  # lazy: same reason
    from relais.agent_runner import AgentGraphRunner  # lazy: same reason
    from relais.models import chat_model, engine_info  # lazy: same reason

    model = chat_model(settings, temperature=0)
    async with open_checkpointer(None, settings) as saver:
        graph = build_booking_agent(model, saver, store=default_store(booking_settings().on(settings)))
        yield AgentGraphRunner(graph, engine=engine_info(settings).label if model is not None else "offline")


@contextlib.asynccontextmanager
async def open_agents(settings: Settings, served: Served = Served.ALL) -> AsyncIterator[object]:
    """The runner the service serves: one agent, or the router between booking and the coach."""
    # lazy: the coach and the booking routing load LangGraph (+10 s), not `relais --help`
    from booking.engine import claims_request as booking_claims
    from coach.router import claims_request as coach_claims  # lazy: same reason
    from coach.runner import CoachRunner  # lazy: same reason
    from relais.agent_router import AgentRouter, Route, RouteStore  # lazy: same reason

    async with contextlib.AsyncExitStack() as stack:
        if served is Served.BOOKING:
            yield await stack.enter_async_context(open_booking(settings))
            return
        coach = await stack.enter_async_context(CoachRunner.open(settings=settings))
        if served is Served.COACH:
            yield coach
            return
        booking = await stack.enter_async_context(open_booking(settings))
        store = RouteStore(routes_url(settings))
        stack.push_async_callback(store.aclose)
        yield AgentRouter(  # the narrow claim first: "book yoga" names a sport the coach knows too
            [Route(BOOKING, booking, booking_claims, BOOKING_THREADS), Route(COACH, coach, coach_claims)],
            store, default=COACH,
        )


@agent_app.command("serve")
def serve_command(
    host: str | None = typer.Option(None, "--host", help="Default: AGENT_HOST (127.0.0.1)."),
    port: int | None = typer.Option(None, "--port", help="Default: AGENT_PORT (8081)."),
    agent: Served = typer.Option(Served.ALL, "--agent", help="all (booking + coach, routed), coach or booking."),
) -> None:
    """Serve the agents as the external agent (POST /assistant, SSE; GET /health)."""
    # lazy: uvicorn +0.26 s and coach.service (LangGraph, +6 s), only to serve
    import uvicorn

    from coach.service import create_app  # lazy: same reason

    settings = get_settings()
    # the app's secrets too: the environment (and .env) the service runs in may hold them
    configure_logging(settings.relais_log_level, secret_values(settings, chatbot_settings(), assistant_settings()))
    uvicorn.run(
        create_app(lambda: open_agents(settings, agent), settings=coach_settings().on(settings)),
        host=host or cli_settings().agent_host,
        port=port or cli_settings().agent_port,
        log_level=settings.relais_log_level.lower(),
    )


__all__ = ["BOOKING", "COACH", "Served", "agent_app", "open_agents", "open_booking", "routes_url"]
