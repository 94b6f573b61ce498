"""`relais agent serve` over real HTTP (uvicorn on 127.0.0.1, SSE): the router between the booking
agent and the coach, the booking agent's approval cards over Relais's own protocol, exactly-once
booking rows, and the thread's agent kept across a restart of the service."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assistant.relais_client import ExternalAgentClient
from assistant.settings import AssistantSettings
from booking.store import BookingStore
from cli.agent_service import Served, agent_app, open_agents
from coach.service import create_app
from coach.settings import CoachSettings
from relais.events import AgentEvent, ErrorEvent, InterruptEvent, TextChunk
from relais.settings import Settings
from tests.servers import serve

pytestmark = pytest.mark.slow


def settings_for(data_dir: Path) -> Settings:
    return Settings(relais_data_dir=data_dir, mistral_api_key=None, relais_model=None)


def turn(base: str, message: str, thread: str, interrupt_id: str | None = None, user: str = "alice"
         ) -> list[AgentEvent]:
    async def run() -> list[AgentEvent]:
        client = ExternalAgentClient(AssistantSettings(external_agent_url=base))
        try:
            return [e async for e in client.stream(message, user, [], thread, "en", interrupt_id=interrupt_id)]
        finally:
            await client.aclose()

    return asyncio.run(run())


def interrupt(events: list[AgentEvent]) -> InterruptEvent:
    found = [e for e in events if isinstance(e, InterruptEvent)]
    assert found, events
    return found[-1]


def text(events: list[AgentEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextChunk))


def rows(data_dir: Path) -> list[tuple[str, str, str]]:
    return [(b.activity, b.day, b.time) for b in BookingStore(data_dir / "bookings.db").bookings()]


def service(data_dir: Path, served: Served = Served.ALL) -> Any:
    settings = settings_for(data_dir)
    return serve(create_app(lambda: open_agents(settings, served), CoachSettings().on(settings)), ready_path="/health")


def test_booking_goes_to_the_booking_agent_and_a_plan_to_the_coach(tmp_path: Path) -> None:
    with service(tmp_path) as base:
        card = interrupt(turn(base, "Book me a yoga class on Monday at 18:00", "t1"))
        assert card.kind == "approval" and card.interrupt_id
        assert card.payload["action_requests"][0]["args"] == {"activity": "yoga", "day": "monday", "time": "18:00"}
        assert rows(tmp_path) == [], "nothing is written before the approval"
        answer = turn(base, "approve", "t1", interrupt_id=card.interrupt_id)
        assert "Booked #1" in text(answer)
        again = turn(base, "approve", "t1", interrupt_id=card.interrupt_id)  # a stale second click
        assert [e.code for e in again if isinstance(e, ErrorEvent)] == ["conflict"]
        assert rows(tmp_path) == [("yoga", "monday", "18:00")]

        plan = turn(base, "I want a 3-day workout plan", "t1")
        assert "training plan" in text(plan).lower()
        assert interrupt(plan).choices, "the coach's quick choices"
        assert rows(tmp_path) == [("yoga", "monday", "18:00")]


def test_a_decision_stays_with_the_card_whatever_its_words(tmp_path: Path) -> None:
    with service(tmp_path) as base:
        interrupt(turn(base, "Book boxing on Saturday", "t2"))
        answer = turn(base, "reject: I'd rather have a workout plan", "t2")
        assert "nothing was done" in text(answer).lower()
        assert rows(tmp_path) == []


def test_several_actions_one_decision_each(tmp_path: Path) -> None:
    with service(tmp_path) as base:
        card = interrupt(turn(base, "Book spinning on Friday at 19:00 and pilates on Tuesday at 12:15", "t3"))
        assert [a["name"] for a in card.payload["action_requests"]] == ["book_class", "book_class"]
        unread = turn(base, "approve; maybe", "t3")  # explained, the card again, nothing resumed
        assert [e.code for e in unread if isinstance(e, ErrorEvent)] == ["failed"] or interrupt(unread)
        assert rows(tmp_path) == []
        answer = turn(base, "approve; reject: too late", "t3")
        assert "Booked #" in text(answer) and "nothing was done" in text(answer).lower()
        assert rows(tmp_path) == [("spinning", "friday", "19:00")]


def test_the_card_and_the_route_survive_a_restart(tmp_path: Path) -> None:
    with service(tmp_path) as base:
        card = interrupt(turn(base, "Book swimming on Sunday", "t4"))
    with service(tmp_path) as base:  # a new process on the same data: the same card, the same agent
        answer = turn(base, "yes", "t4", interrupt_id=card.interrupt_id)
        assert "Booked #" in text(answer)
        assert turn(base, "yes", "t4", interrupt_id=card.interrupt_id)[0].code == "conflict"  # type: ignore[union-attr]
    assert rows(tmp_path) == [("swimming", "sunday", "09:30")]


def test_another_user_cannot_answer_the_card(tmp_path: Path) -> None:
    with service(tmp_path) as base:
        card = interrupt(turn(base, "Book yoga on Saturday", "t5"))
        refused = turn(base, "yes", "t5", interrupt_id=card.interrupt_id, user="mallory")
        assert [e.code for e in refused if isinstance(e, ErrorEvent)] == ["unauthorized"]
    assert rows(tmp_path) == []


def test_serve_has_the_agent_option() -> None:
    result = CliRunner().invoke(agent_app, ["serve", "--help"])
    assert result.exit_code == 0 and "--agent" in result.output and "--port" in result.output
