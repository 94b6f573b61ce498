"""Three Relais instances behind Debian's nginx (deploy/nginx.conf as shipped, ports swapped):
round-robin, no sticky sessions, WebSocket upgrade. PostgreSQL and a Chroma server are shared
(scripts/scale-tests.sh starts them and installs nginx if missing).

- 50 concurrent conversations through the balancer: zero lost, duplicated or cross-talking
  messages (each thread's persisted messages are exactly what it sent), latency and throughput
  printed; the coach's SSE turns go through a second balancer over the three agents.
- A button click sent to an instance that does not hold the socket is forwarded to the one that
  does; receipts, feedback and source excerpts written through one instance are read on all.
- A real Chromium tab with a pending coach prompt: the instance holding its socket is killed;
  the page reconnects through nginx to another instance, the thread and the prompt come back,
  one click resumes once.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from tests.chainlit_driver import ChatSession, relais_env
from tests.conftest import REPO_ROOT, free_port, scale_services
from tests.demo_index import cache_root_for, ingested_template
from tests.load.test_concurrency import (
    N_DIRECT,
    N_NORMAL,
    N_UI_COACH,
    RUN_TIMEOUT_S,
    TOKEN,
    Results,
    coach_scripts,
    direct_coach_conversation,
    help_center_conversation,
    p95,
    ui_coach_conversation,
)
from tests.resilience.harness import (
    USERS,
    USERS_ENV,
    Chat,
    Stack,
    coach_answered,
    coach_thread,
    get_thread,
    login_as,
    open_chat,
    settle_elements,
    thread_metadata,
    user_messages,
)

pytestmark = [pytest.mark.scale, pytest.mark.timeout(1800)]  # three instances start in the first test's setup

NGINX_CONF = REPO_ROOT / "deploy" / "nginx.conf"
WORKOUT = "Build muscle, lose fat — suggest a workout plan"
BUTTONS = "button:has-text('Vegetarian')"
NEXT_PROMPT = "button:has-text('Nothing to add')"


@dataclass
class Cluster:
    stacks: list[Stack]
    lb_url: str
    agent_lb_url: str
    database_url: str
    work: Path

    def stack_at(self, url: str) -> Stack:
        return next(s for s in self.stacks if s.url == url.rstrip("/"))


def nginx_config(app_ports: list[int], agent_ports: list[int], lb_port: int, agent_lb_port: int, work: Path) -> Path:
    """deploy/nginx.conf with its example ports replaced: nothing else changes."""
    conf = NGINX_CONF.read_text()
    for example, real in zip((8001, 8002, 8003, 8081, 8082, 8083), app_ports + agent_ports):
        conf, n = re.subn(rf"server 127\.0\.0\.1:{example} ", f"server 127.0.0.1:{real} ", conf)
        assert n == 1, example
    for example, real in ((8080, lb_port), (8090, agent_lb_port)):
        conf, n = re.subn(rf"listen 127\.0\.0\.1:{example};", f"listen 127.0.0.1:{real};", conf)
        assert n == 1, example
    path = work / "nginx.conf"
    path.write_text(conf)
    return path


def start_nginx(conf: Path, work: Path, port: int) -> subprocess.Popen:
    import os

    binary = os.environ.get("RELAIS_SCALE_NGINX") or shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(binary).exists():
        pytest.fail("nginx is missing: run scripts/scale-tests.sh (it installs Debian's nginx)")
    directives = f"daemon off; pid {work}/nginx.pid; error_log {work}/nginx-error.log;"
    tested = subprocess.run([binary, "-t", "-c", str(conf), "-g", directives], capture_output=True, text=True, check=False)
    assert tested.returncode == 0, tested.stderr
    proc = subprocess.Popen([binary, "-c", str(conf), "-g", directives], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            httpx.get(f"http://127.0.0.1:{port}/", timeout=2)
            return proc
        time.sleep(0.2)
    proc.kill()
    raise RuntimeError((work / "nginx-error.log").read_text())


@contextlib.contextmanager
def running_cluster(work: Path, cache_root: Path, prepare: Callable[[Stack, int], Any] | None = None) -> Iterator[Cluster]:
    """Three instances (app + agent each) on the shared PostgreSQL and Chroma server, behind nginx;
    `prepare(stack, i)` may change a stack's commands before it starts (the load bench profiles them)."""
    database_url, chroma_host, chroma_port = scale_services()
    shared = {
        "DATABASE_URL": database_url, "CHROMA_HOST": chroma_host, "CHROMA_PORT": str(chroma_port),
        "RELAIS_COLLECTION": f"relais_lb_{uuid.uuid4().hex[:8]}", "RELAIS_USERS": USERS_ENV,
        "EXTERNAL_AGENT_TOKEN": TOKEN, "RELAIS_TRUSTED_PROXIES": "127.0.0.1", "RELAIS_ADMINS": "alice",
        # six servers and 50 conversations on 2 shared cores: a coach event may take minutes
        "EXTERNAL_AGENT_READ_TIMEOUT_S": "300",
    }
    first_data = work / "data-0"
    shutil.copytree(ingested_template(cache_root) / "embeddings", first_data / "embeddings")
    ingest = subprocess.run([sys.executable, "-m", "cli.app", "ingest"], env=relais_env(first_data, **shared),
                            cwd=REPO_ROOT, capture_output=True, text=True, timeout=900, check=False)
    assert ingest.returncode == 0, ingest.stdout[-2000:] + ingest.stderr[-2000:]
    stacks = []
    for i in range(3):
        (work / f"s{i}").mkdir()
        stacks.append(Stack(work / f"s{i}", work / f"data-{i}", env=shared))
        if prepare is not None:
            prepare(stacks[-1], i)
    lb_port, agent_lb_port = free_port(), free_port()
    conf = nginx_config([s.app_port for s in stacks], [s.agent_port for s in stacks], lb_port, agent_lb_port, work)
    nginx = None
    try:
        from concurrent.futures import ThreadPoolExecutor

        stacks[0].start()  # creates the chat tables (Postgres CREATE IF NOT EXISTS is not race-free)
        with ThreadPoolExecutor(2) as pool:  # the other two start side by side
            list(pool.map(lambda stack: stack.start(), stacks[1:]))
        nginx = start_nginx(conf, work, lb_port)
        yield Cluster(stacks, f"http://127.0.0.1:{lb_port}", f"http://127.0.0.1:{agent_lb_port}", database_url, work)
    finally:
        if nginx is not None:
            nginx.terminate()
            nginx.wait(timeout=10)
        for stack in stacks:
            with contextlib.suppress(Exception):
                stack.stop()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    work = tmp_path_factory.mktemp("lb")
    try:
        with running_cluster(work, cache_root_for(tmp_path_factory)) as running:
            yield running
    finally:
        keep = REPO_ROOT / "test-artifacts" / "20-lb-logs"  # pytest's temp folders do not last
        keep.mkdir(parents=True, exist_ok=True)
        for log in [*work.glob("s*/*.log"), *work.glob("nginx-error.log")]:
            shutil.copy(log, keep / f"{log.parent.name}-{log.name}")


def run_async(coro: Any) -> Any:
    """Run a coroutine from a sync test that Playwright's own loop already occupies."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


async def session_owners(database_url: str) -> dict[str, str]:
    """session id -> instance URL, from the shared chat database (what the instances recorded),
    oldest claim first."""
    import psycopg

    async with await psycopg.AsyncConnection.connect(database_url) as conn:
        rows = await (await conn.execute(
            "SELECT session_id, instance_url FROM socket_sessions ORDER BY updated_at")).fetchall()
    return {str(s): str(u) for s, u in rows}


# --- 1. fifty conversations through the balancer -------------------------------------------------
async def test_fifty_conversations_through_the_balancer_lose_and_mix_nothing(
        cluster: Cluster, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import socketio

    from tests.load import test_concurrency as load

    async def open_chat_retrying(base_url: str, user: str, thread_id: str | None = None, profile: str = "Assistant") -> Any:
        for attempt in range(3):  # a browser's socket reconnects by itself; nothing was sent yet
            try:
                return await open_chat(base_url, user, thread_id=thread_id, profile=profile)
            except (TimeoutError, socketio.exceptions.ConnectionError, httpx.TimeoutException):
                if attempt == 2:
                    raise
                await asyncio.sleep(2)

    async def patient_ask(self: Chat, text: str, timeout: float = 300) -> Any:
        return await ChatSession.ask(self, text, timeout=timeout)

    monkeypatch.setattr(load, "open_chat", open_chat_retrying)
    monkeypatch.setattr(load, "TURN_TIMEOUT_S", 300)  # 2 shared cores for six servers
    monkeypatch.setattr(Chat, "ask", patient_ask)
    balanced = SimpleNamespace(url=cluster.lb_url, agent=SimpleNamespace(url=cluster.agent_lb_url))
    scripts = coach_scripts(N_UI_COACH + N_DIRECT)
    results = Results()
    limits = httpx.Limits(max_connections=N_DIRECT * 2, max_keepalive_connections=N_DIRECT)
    async with httpx.AsyncClient(timeout=httpx.Timeout(300, connect=10), limits=limits) as http:
        conversations = (
            [help_center_conversation(balanced, results, i) for i in range(N_NORMAL)]
            + [ui_coach_conversation(balanced, results, scripts[i], i) for i in range(N_UI_COACH)]
            + [direct_coach_conversation(balanced, http, results, scripts[N_UI_COACH + i], i) for i in range(N_DIRECT)]
        )
        assert len(conversations) == 50
        start = time.perf_counter()
        outcomes = await asyncio.wait_for(asyncio.gather(*conversations, return_exceptions=True), RUN_TIMEOUT_S * 2)
        wall = time.perf_counter() - start
    failures = [f"{type(o).__name__}: {o}" for o in outcomes if isinstance(o, BaseException)]
    assert not failures, f"{len(failures)} of 50 conversations failed:\n" + "\n".join(failures[:10])

    # every UI thread holds exactly the messages it sent (none lost, none twice, none of another's),
    # read back through the balancer (any instance)
    tokens = {user: login_as(cluster.lb_url, user) for user in USERS}
    for user, thread_id, mode, sent in results.ui_threads:
        response = get_thread(cluster.lb_url, tokens[user], thread_id)
        assert response.status_code == 200, (user, thread_id)
        thread = response.json()
        assert user_messages(thread) == sent, (thread_id, user_messages(thread), sent)
        assert (thread_metadata(thread).get("mode") == "ALTER") == (mode == "ALTER"), thread_id
    for thread_id, sent, script in results.coach_threads:
        state, humans = await coach_thread(cluster.database_url, thread_id)
        assert humans == sent, (thread_id, humans, sent)
        assert state["paused"] and state["last_active_agent"] == script.expected_advisor(2), (thread_id, state)
    owners = await session_owners(cluster.database_url)
    spread = {s.url: sum(1 for u in owners.values() if u == s.url) for s in cluster.stacks}
    assert all(count > 0 for count in spread.values()), spread  # round-robin reached every instance
    agent_posts = [s.agent.logs().count('"POST /assistant') for s in cluster.stacks if s.agent]
    assert all(posts > 0 for posts in agent_posts), agent_posts

    every = [x for values in results.latencies.values() for x in values]
    lines = [(f"load through nginx (3 instances, no sticky sessions): 50 conversations, {len(every)} turns in "
              f"{wall:.1f} s -> {len(every) / wall:.2f} turns/s, p50 {statistics.median(every):.2f} s, "
              f"p95 {p95(every):.2f} s, max {max(every):.2f} s; lost 0, duplicated 0, cross-talk 0"),
             f"  sockets per instance: {sorted(spread.values())}; agent POSTs per instance: {agent_posts}"]
    for kind, values in results.latencies.items():
        lines.append(f"  {kind}: {len(values)} turns, p50 {statistics.median(values):.2f} s, p95 {p95(values):.2f} s")
    with capsys.disabled():
        print("\n" + "\n".join(lines))
    (REPO_ROOT / "test-artifacts").mkdir(exist_ok=True)
    (REPO_ROOT / "test-artifacts" / "20-load-balancer.txt").write_text("\n".join(lines) + "\n")


# --- 2. session calls forwarded; receipts, feedback, excerpts shared ------------------------------
async def test_a_click_on_another_instance_is_forwarded_and_data_is_shared(cluster: Cluster) -> None:
    chat = await open_chat(cluster.lb_url, "alice")
    try:
        answer = await chat.ask("How much does the base plan cost?")
        elements = await settle_elements(answer)
        first = await chat.ask("I have a knee injury. " + WORKOUT)
        assert coach_answered(first), first.text
        owner = (await session_owners(cluster.database_url))[chat.session_id]
        elsewhere = next(s for s in cluster.stacks if s.url != owner)
        chat.base_url = elsewhere.url  # the click lands on an instance without the socket
        clicked = await chat.click_label("Vegetarian", first.actions)
        assert coach_answered(clicked) and "vegetarian" in clicked.text.lower(), clicked.text[:400]
        assert "forwarded" not in clicked.text
        thread_id = chat.thread_id
        assert thread_id
        _, humans = await coach_thread(cluster.database_url, thread_id)
        assert humans[-2] == "I have a knee injury. " + WORKOUT and humans[-1] == "I'm vegetarian.", humans
        assert humans.count("I'm vegetarian.") == 1, humans  # one click, one resume

        # feedback through another instance than the socket's (forwarded too), on the first answer
        message_id = next(m["id"] for m in answer.messages.values() if m.get("type") == "assistant_message")
        async with httpx.AsyncClient(cookies={"access_token": chat.token}, timeout=60) as http:
            put = await http.put(elsewhere.url + "/feedback", json={"sessionId": chat.session_id, "feedback": {
                "forId": message_id, "value": 0, "comment": "price unclear"}})
        assert put.status_code == 200, put.text
    finally:
        await chat.close()

    assert any("Plans and pricing" in (e.get("name") or "") for e in elements)
    await asyncio.to_thread(read_on_every_instance, cluster, thread_id, message_id)


def read_on_every_instance(cluster: Cluster, thread_id: str, message_id: str) -> None:
    """The excerpt, the thumbs-down and the thread's handoff receipts, read on each instance."""
    for stack in cluster.stacks:
        token = login_as(stack.url, "alice")
        thread = get_thread(stack.url, token, thread_id).json()
        blob_url = next(e["url"] for e in thread.get("elements") or []
                        if "Plans and pricing" in (e.get("name") or "") and e.get("url"))
        excerpt = httpx.get(stack.url + blob_url, cookies={"access_token": token}, timeout=60)
        assert excerpt.status_code == 200 and "$10" in excerpt.text, (stack.url, excerpt.status_code)
        rated = [s for s in thread.get("steps") or [] if (s.get("feedback") or {}).get("value") == 0]
        assert [s["id"] for s in rated] == [message_id], (stack.url, rated)
        audit = httpx.get(stack.url + "/admin/audit", cookies={"access_token": token}, timeout=30)
        assert audit.status_code == 200 and thread_id in audit.text, (stack.url, audit.status_code)


# --- 3. the instance holding a browser's socket dies ----------------------------------------------
def test_the_browser_reconnects_to_another_instance_and_resumes_the_pending_prompt_once(cluster: Cluster) -> None:
    from playwright.sync_api import sync_playwright

    from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, ask, login, shot

    base = cluster.lb_url
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.set_default_timeout(180_000)
        try:
            login(page, base)
            ask(page, WORKOUT)
            page.locator(BUTTONS).last.wait_for()
            owners_before = run_async(session_owners(cluster.database_url))
            token = next(c["value"] for c in page.context.cookies() if c["name"] == "access_token")
            from tests.chainlit_driver import list_threads

            thread_id = run_async(list_threads(base, token))[0]["id"]
            shot(page, "20-lb-before-kill")
            assert owners_before, "no socket session recorded"
            holder_url = list(owners_before.values())[-1]  # the newest claim: this tab, the only one open
            holder = cluster.stack_at(holder_url)
            tab_session = list(owners_before)[-1]
            holder.kill9()  # the instance holding this tab's socket dies (app and its agent)
            # the page reconnects through nginx to a living instance, which resumes the thread
            deadline = time.monotonic() + 240
            while run_async(session_owners(cluster.database_url)).get(tab_session) == holder_url:
                assert time.monotonic() < deadline, "the tab's session was not taken over by another instance"
                page.wait_for_timeout(1000)
            page.wait_for_timeout(3000)  # the resumed thread is re-emitted, then its pending prompt
            page.locator(BUTTONS).first.wait_for(timeout=180_000)
            assert page.locator(BUTTONS).count() == 1, "one live prompt, one set of buttons"
            assert page.locator("[data-step-type='user_message']", has_text=WORKOUT).count() == 1
            shot(page, "20-lb-after-kill")
            answers = page.locator("[data-step-type='assistant_message']").count()
            page.locator(BUTTONS).first.click()
            page.wait_for_function(
                "n => document.querySelectorAll(\"[data-step-type='assistant_message']\").length > n + 1", arg=answers)
            page.locator(NEXT_PROMPT).first.wait_for()  # the next prompt (a diet once stated is not offered again)
            page.wait_for_timeout(1500)  # a second resume, if any, would land now
            _, humans = run_async(coach_thread(cluster.database_url, thread_id))
            assert humans[0] == WORKOUT and len(humans) == 2 and "vegetarian" in humans[1].lower(), humans
            assert page.locator("[data-step-type='user_message']", has_text="Vegetarian").count() == 1
            shot(page, "20-lb-resumed")
        finally:
            browser.close()

