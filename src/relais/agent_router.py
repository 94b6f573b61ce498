"""Several agents behind one agent service: each thread is sent to one of them, by rules.

A `TurnRunner` itself, so the Relais-protocol service serves it like a single agent, and the
orchestrator keeps one `EXTERNAL_AGENT_URL` (a third-party agent there still gets every hand-off).

Which agent takes a message, in order:
1. a click (`interrupt_id`) answers the prompt of the thread's current agent: that agent;
2. a typed decision ("yes", "reject: too late", "edit: …") while the current agent waits on an
   approval card: that agent (the card stays answerable whatever words the decision contains);
3. the first route whose `claims(message)` is true, in the order given (narrow claims first);
4. the thread's current agent; a new thread: the default route.
The thread's agent is kept in a table (`agent_routes`), so a reload, a restart of the service or
another replica on the same database send the next message to the same agent. Every agent keeps
its own LangGraph thread under the Relais thread id; ownership is checked across all of them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import text

from relais.approvals import APPROVAL_KIND, is_decision_reply
from relais.events import AgentEvent, InterruptEvent
from relais.sql_table import LazyTable
from relais.turns import TurnRunner

_DDL = ("CREATE TABLE IF NOT EXISTS agent_routes (thread_id TEXT PRIMARY KEY, agent TEXT NOT NULL, "
        "updated_at TEXT NOT NULL)")


@dataclass(frozen=True)
class Route:
    """One agent: its name, its runner, which messages it claims (a new request for it), and the
    prefix of its thread ids (agents sharing one checkpointer must not share a thread)."""

    name: str
    runner: TurnRunner
    claims: Callable[[str], bool]
    thread_prefix: str = ""

    def thread(self, thread_id: str) -> str:
        return self.thread_prefix + thread_id


class RouteStore:
    """Thread → agent name, on SQLite or Postgres (async SQLAlchemy URL)."""

    def __init__(self, url: str) -> None:
        self._table = LazyTable(url, _DDL)

    async def get(self, thread_id: str) -> str | None:
        engine = await self._table.engine()
        async with engine.connect() as conn:
            row = (await conn.execute(text("SELECT agent FROM agent_routes WHERE thread_id = :t"),
                                      {"t": thread_id})).first()
        return None if row is None else str(row.agent)

    async def set(self, thread_id: str, agent: str) -> None:
        async with self._table.begin() as conn:
            await conn.execute(
                text("INSERT INTO agent_routes (thread_id, agent, updated_at) VALUES (:t, :a, :u) "
                     "ON CONFLICT (thread_id) DO UPDATE SET agent = excluded.agent, updated_at = excluded.updated_at"),
                {"t": thread_id, "a": agent, "u": datetime.now(UTC).isoformat()},
            )

    async def aclose(self) -> None:
        await self._table.aclose()


class AgentRouter:
    """A `TurnRunner` that sends each thread to one of its routes (see the module's rules)."""

    def __init__(self, routes: Sequence[Route], store: RouteStore, default: str | None = None) -> None:
        if not routes:
            raise ValueError("at least one route")
        self.routes = {route.name: route for route in routes}
        self.order = list(routes)
        self.default = self.routes[default] if default else self.order[0]
        self.store = store
        self.engine = self.default.runner.engine

    async def current(self, thread_id: str) -> Route | None:
        """The agent the thread is with now (None: a new thread, or an agent no longer served)."""
        return self.routes.get(await self.store.get(thread_id) or "")

    async def choose(self, thread_id: str, message: str, interrupt_id: str | None = None) -> Route:
        return await self._choose(await self.current(thread_id), thread_id, message, interrupt_id)

    async def _choose(self, current: Route | None, thread_id: str, message: str, interrupt_id: str | None) -> Route:
        if current is not None and (interrupt_id is not None or await self._decides(current, thread_id, message)):
            return current
        claimed = next((route for route in self.order if route.claims(message)), None)
        return claimed or current or self.default

    @staticmethod
    async def _decides(route: Route, thread_id: str, message: str) -> bool:
        """The message is a typed decision on the approval card the route's agent waits on."""
        if not is_decision_reply(message):
            return False
        pending = await route.runner.pending(route.thread(thread_id))
        return pending is not None and pending.kind == APPROVAL_KIND

    async def run_turn(
        self,
        thread_id: str,
        message: str,
        history: Iterable[Any] | None = None,
        user_id: str | None = None,
        interrupt_id: str | None = None,
    ) -> AsyncIterator[AgentEvent]:
        stored = await self.store.get(thread_id)  # read once a turn
        route = await self._choose(self.routes.get(stored or ""), thread_id, message, interrupt_id)
        if stored != route.name:
            await self.store.set(thread_id, route.name)
        async for event in route.runner.run_turn(route.thread(thread_id), message, history, user_id=user_id,
                                                 interrupt_id=interrupt_id):
            yield event

    async def pending(self, thread_id: str) -> InterruptEvent | None:
        current = await self.current(thread_id)
        return None if current is None else await current.runner.pending(current.thread(thread_id))

    async def owner(self, thread_id: str) -> str | None:
        for route in self.order:
            owner = await route.runner.owner(route.thread(thread_id))
            if owner is not None:
                return owner
        return None


__all__ = ["AgentRouter", "Route", "RouteStore"]
