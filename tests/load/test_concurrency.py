"""50 concurrent conversations against the real app and coach service (offline engine, loopback).

A mix, all started at once: help-center questions and coach hand-offs through Chainlit's
socket.io (as a browser does), and coach threads straight on the service's SSE `POST /assistant`
(as the orchestrator does), in English and French. Every coach thread states its own injury and
schedule (a combination no other thread has), then either a food allergy or a new schedule.

Zero cross-talk: each turn's tool call carries exactly its own thread's constraints, each
thread's prompt comes from its own advisor in its own language, each help-center answer cites
its own question's article, each thread keeps its own mode, and each coach thread's checkpointed
history holds exactly the messages that thread sent. Zero errors. Latency p50/p95 and throughput
are printed.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import statistics
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpx_sse import aconnect_sse

from assistant.i18n import translate
from tests.demo_index import cache_root_for, ingested_data_dir
from tests.resilience.harness import (
    USERS,
    Stack,
    checkpoint_file,
    coach_thread,
    get_thread,
    login_as,
    open_chat,
    settle_elements,
    thread_metadata,
    tool_labels,
    user_messages,
)

pytestmark = pytest.mark.slow

TOKEN = "load-test-agent-token-41f6"
N_NORMAL, N_UI_COACH, N_DIRECT = 8, 8, 34  # 50 conversations
TURN_TIMEOUT_S = 120
RUN_TIMEOUT_S = 300

AREAS = {  # constraint key: (English, French with its preposition)
    "knee": ("knee", "au genou"), "shoulder": ("shoulder", "à l'épaule"), "back": ("back", "au dos"),
    "wrist": ("wrist", "au poignet"), "ankle": ("ankle", "à la cheville"), "hip": ("hip", "à la hanche"),
    "elbow": ("elbow", "au coude"), "neck": ("neck", "au cou"),
}
ALLERGENS = {
    "peanuts": ("peanuts", "aux arachides"), "sesame": ("sesame", "au sésame"), "soy": ("soy", "au soja"),
    "eggs": ("eggs", "aux œufs"), "shellfish": ("shellfish", "aux fruits de mer"), "gluten": ("gluten", "au gluten"),
    "fish": ("fish", "au poisson"),
}
HELP_CENTER = [  # (question, language, the article it must cite, a fact of its answer)
    ("How much does the base plan cost?", "en", "Plans and pricing", "$10"),
    ("What are the opening hours on Sunday?", "en", "Gym hours and access", "9:00 p.m."),
    ("How many people can be on a family membership?", "en", "Family plan", "four"),
    ("Do you sell my health data?", "en", "Privacy and health data", "never sell"),
    ("Combien coûte l'abonnement de base ?", "fr", "Tarifs et forfaits", "10 dollars"),
    ("Quels sont les horaires des clubs le dimanche ?", "fr", "Horaires des clubs", "21 h"),
    ("J'ai oublié mon mot de passe", "fr", "Mot de passe oublié et problèmes de connexion", "60 minutes"),
    ("Puis-je suspendre mon abonnement ?", "fr", "Suspendre son abonnement", "Suspendre"),
]


# --- what each coach thread says and must get back ----------------------------------------------
@dataclass(frozen=True)
class CoachScript:
    language: str
    area: str
    days: int
    second: str  # "food" or "days"
    allergen: str
    new_days: int

    def first_message(self) -> str:
        en, fr = AREAS[self.area]
        if self.language == "en":
            return f"I have a {en} injury and can train {self.days} days a week — build me a workout plan"
        return f"J'ai une blessure {fr}, je m'entraîne {self.days} jours par semaine : propose-moi un programme d'entraînement"

    def second_message(self) -> str:
        if self.second == "food":
            en, fr = ALLERGENS[self.allergen]
            return f"What should I eat? I'm allergic to {en}." if self.language == "en" else \
                f"Que dois-je manger ? Je suis allergique {fr}."
        return f"Make it {self.new_days} days a week instead" if self.language == "en" else \
            f"Finalement, plutôt {self.new_days} jours par semaine"

    def expected_tool(self, turn: int) -> tuple[str, list[str]]:
        """(tool name, fragments its label must contain) — the thread's own constraints, exactly."""
        if turn == 1:
            return "workout_plan", [f"days_per_week={self.days},", f"injuries=[{self.area}]"]
        if self.second == "food":
            return "meal_plan", [f"allergies=[{self.allergen}]"]
        return "workout_plan", [f"days_per_week={self.new_days},", f"injuries=[{self.area}]"]

    def expected_advisor(self, turn: int) -> str:
        return "nutrition_advisor" if turn == 2 and self.second == "food" else "workout_advisor"


def coach_scripts(n: int) -> list[CoachScript]:
    """`n` threads, no two with the same (injury, days) pair."""
    pairs = list(itertools.product(AREAS, range(2, 8)))
    assert n <= len(pairs)
    allergens = list(ALLERGENS)
    return [
        CoachScript(language="fr" if i % 2 else "en", area=area, days=days, second="days" if i % 3 == 0 else "food",
                    allergen=allergens[i % len(allergens)], new_days=days - 1 if days > 2 else 5)
        for i, (area, days) in enumerate(pairs[:n])
    ]


def check_tool_label(labels: list[str], script: CoachScript, turn: int) -> None:
    name, fragments = script.expected_tool(turn)
    assert len(labels) == 1 and labels[0].startswith(name + "("), (script, turn, labels)
    missing = [f for f in fragments if f not in labels[0] + ","]
    assert not missing, f"cross-talk or lost constraint: {labels[0]} lacks {missing} ({script})"


# --- recording --------------------------------------------------------------------------------------
@dataclass
class Results:
    latencies: dict[str, list[float]] = field(default_factory=lambda: {"help center": [], "coach via UI": [], "coach via SSE": []})
    coach_threads: list[tuple[str, list[str], CoachScript]] = field(default_factory=list)
    ui_threads: list[tuple[str, str, str, list[str]]] = field(default_factory=list)  # user, thread, mode, messages


async def timed(results: Results, kind: str, coro: Any) -> Any:
    start = time.perf_counter()
    value = await asyncio.wait_for(coro, TURN_TIMEOUT_S)
    results.latencies[kind].append(time.perf_counter() - start)
    return value


# --- the three kinds of conversation ------------------------------------------------------------------
async def help_center_conversation(stack: Stack, results: Results, i: int) -> None:
    user = list(USERS)[i % len(USERS)]
    first, second = HELP_CENTER[i % len(HELP_CENTER)], HELP_CENTER[(i + 3) % len(HELP_CENTER)]
    chat = await open_chat(stack.url, user)
    try:
        for question, language, article, fact in (first, second):
            turn = await timed(results, "help center", chat.ask(question))
            assert fact in turn.text, (question, turn.text[:300])
            elements = await settle_elements(turn)
            assert any(article in (e.get("name") or "") for e in elements), (question, [e.get("name") for e in elements])
            assert not turn.actions and not tool_labels(turn), f"help-center thread went to the coach: {question}"
            assert "offline" not in turn.text  # the engine is the answer's metadata, not a line of it
            assert "⚠️" not in turn.text
        results.ui_threads.append((user, chat.thread_id or "", "NORMAL", [first[0], second[0]]))
    finally:
        await chat.close()


async def ui_coach_conversation(stack: Stack, results: Results, script: CoachScript, i: int) -> None:
    user = list(USERS)[i % len(USERS)]
    chat = await open_chat(stack.url, user)
    try:
        messages = [script.first_message(), script.second_message()]
        for turn_no, text in enumerate(messages, 1):
            turn = await timed(results, "coach via UI", chat.ask(text))
            assert "⚠️" not in turn.text, turn.text[:300]
            if turn_no == 1:
                assert translate("handoff", script.language) in turn.text
            check_tool_label(tool_labels(turn), script, turn_no)
            labels = {a["label"] for a in turn.actions}
            assert labels == set(CHOICES[script.language]), (script, labels)
        assert chat.thread_id
        results.ui_threads.append((user, chat.thread_id, "ALTER", messages))
        results.coach_threads.append((chat.thread_id, messages, script))
    finally:
        await chat.close()


CHOICES = {"en": ["Injury", "Allergy", "Vegetarian", "Vegan", "Nothing to add"],
           "fr": ["Blessure", "Allergie", "Végétarien", "Végan", "Rien à ajouter"]}


async def sse_turn(http: httpx.AsyncClient, url: str, body: dict[str, Any]) -> dict[str, Any]:
    events: dict[str, Any] = {"tool_call": [], "message": [], "interrupt": [], "error": [], "done": 0}
    async with aconnect_sse(http, "POST", url, json=body, headers={"Authorization": f"Bearer {TOKEN}"}) as source:
        assert source.response.status_code == 200, source.response.status_code
        async for sse in source.aiter_sse():
            data = json.loads(sse.data) if sse.data else {}
            if sse.event == "done":
                events["done"] += 1
            else:
                events[sse.event].append(data)
    return events


async def direct_coach_conversation(stack: Stack, http: httpx.AsyncClient, results: Results, script: CoachScript,
                                    i: int) -> None:
    assert stack.agent is not None
    thread_id = f"load-{i}-{uuid.uuid4().hex[:8]}"
    messages = [script.first_message(), script.second_message()]
    for turn_no, text in enumerate(messages, 1):
        body = {"message": text, "user_id": f"load-user-{i}", "conversation_history": [], "thread_id": thread_id}
        events = await timed(results, "coach via SSE", sse_turn(http, stack.agent.url + "/assistant", body))
        assert not events["error"] and events["done"] == 1, events["error"]
        check_tool_label([e["message"] for e in events["tool_call"]], script, turn_no)
        (prompt,) = events["interrupt"]
        assert prompt["agent"] == script.expected_advisor(turn_no) and prompt["language"] == script.language, prompt
        assert "".join(e.get("content", "") for e in events["message"]).strip()
    results.coach_threads.append((thread_id, messages, script))


def conversation_mix(target: Any, http: httpx.AsyncClient, results: Results, normal: int = N_NORMAL,
                     ui_coach: int = N_UI_COACH, direct: int = N_DIRECT) -> list[Any]:
    """The conversations, not started: help-center and coach threads through the app at
    `target.url` (socket.io), coach threads straight on `target.agent.url` (SSE)."""
    scripts = coach_scripts(ui_coach + direct)
    return ([help_center_conversation(target, results, i) for i in range(normal)]
            + [ui_coach_conversation(target, results, scripts[i], i) for i in range(ui_coach)]
            + [direct_coach_conversation(target, http, results, scripts[ui_coach + i], i) for i in range(direct)])


async def check_persisted(base_url: str, checkpoint: Any, results: Results) -> None:
    """Zero lost, duplicated or cross-talking messages: each UI thread's persisted messages and
    mode are exactly its own, read back through the app; each coach thread's checkpointed
    history is exactly what it sent and it waits on its own last advisor."""
    tokens = {user: login_as(base_url, user) for user in USERS}
    for user, thread_id, mode, sent in results.ui_threads:
        response = get_thread(base_url, tokens[user], thread_id)
        assert response.status_code == 200, (user, thread_id)
        thread = response.json()
        assert user_messages(thread) == sent, (thread_id, user_messages(thread), sent)
        assert (thread_metadata(thread).get("mode") == "ALTER") == (mode == "ALTER"), (thread_id, thread_metadata(thread))
    for thread_id, sent, script in results.coach_threads:
        state, humans = await coach_thread(checkpoint, thread_id)
        assert humans == sent, (thread_id, humans, sent)
        assert state["paused"] and state["last_active_agent"] == script.expected_advisor(2), (thread_id, state)


# --- the test -------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    work = tmp_path_factory.mktemp("load")
    app = Stack(work, ingested_data_dir(work / "data", cache_root_for(tmp_path_factory)),
                env={"EXTERNAL_AGENT_TOKEN": TOKEN}).start()
    yield app
    app.stop()


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[94] if len(values) > 1 else values[0]


async def test_fifty_concurrent_conversations_without_cross_talk_or_errors(stack: Stack,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    results = Results()
    limits = httpx.Limits(max_connections=N_DIRECT * 2, max_keepalive_connections=N_DIRECT)
    async with httpx.AsyncClient(timeout=httpx.Timeout(TURN_TIMEOUT_S, connect=10), limits=limits) as http:
        conversations = conversation_mix(stack, http, results)
        assert len(conversations) == 50
        start = time.perf_counter()
        outcomes = await asyncio.wait_for(asyncio.gather(*conversations, return_exceptions=True), RUN_TIMEOUT_S)
        wall = time.perf_counter() - start

    failures = [f"{type(o).__name__}: {o}" for o in outcomes if isinstance(o, BaseException)]
    assert not failures, f"{len(failures)} of 50 conversations failed:\n" + "\n".join(failures[:10])

    await check_persisted(stack.url, checkpoint_file(stack.data_dir), results)
    assert len(results.coach_threads) == N_UI_COACH + N_DIRECT and len(results.ui_threads) == N_NORMAL + N_UI_COACH

    every = [x for values in results.latencies.values() for x in values]
    lines = [(f"load: 50 conversations, {len(every)} turns in {wall:.1f} s -> {len(every) / wall:.2f} turns/s, "
              f"p50 {statistics.median(every):.2f} s, p95 {p95(every):.2f} s, max {max(every):.2f} s")]
    for kind, values in results.latencies.items():
        lines.append(f"  {kind}: {len(values)} turns, p50 {statistics.median(values):.2f} s, "
                     f"p95 {p95(values):.2f} s")
    with capsys.disabled():
        print("\n" + "\n".join(lines))
    Path(stack.work / "load-report.txt").write_text("\n".join(lines) + "\n")
