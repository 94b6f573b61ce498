"""One store of handoff receipts for every instance, on PostgreSQL (run by scripts/scale-tests.sh).

Instance A's coach service (its own data dir) runs a coach turn: its receipts go to the shared
chat database. Instance B — a Chainlit app with another data dir, and `relais audit` run with B's
environment — lists them: on B's admin page and from the CLI. Nothing is shared but DATABASE_URL.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest

from tests.chainlit_driver import agent_server, chainlit_server, login, relais_env
from tests.conftest import REPO_ROOT, scale_services
from tests.resilience.harness import USERS, USERS_ENV

pytestmark = pytest.mark.scale


@pytest.fixture(scope="module")
def instances(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, object]]:
    database_url, _, _ = scale_services()
    work = tmp_path_factory.mktemp("shared-receipts")
    env = {"DATABASE_URL": database_url, "RELAIS_USERS": USERS_ENV}  # no demo passwords on a shared DB
    agent_a = agent_server(work / "data-a", work, **env).start()
    app_b = chainlit_server(work / "data-b", work, RELAIS_ADMINS="alice", **env).start()
    try:
        yield {"agent_a": agent_a, "app_b": app_b, "env": env, "data_b": work / "data-b"}
    finally:
        app_b.stop()
        agent_a.stop()


def test_a_receipt_written_on_a_is_listed_on_b(instances: dict) -> None:
    thread = "scale-receipts-thread-1"
    with httpx.stream(
        "POST",
        instances["agent_a"].url + "/assistant",
        json={"message": "Build muscle, 3 days a week", "user_id": "alice", "thread_id": thread},
        headers={"Accept": "text/event-stream"},
        timeout=120,
    ) as response:
        assert response.status_code == 200
        body = "".join(response.iter_text())
    assert "done" in body

    # B's CLI (B's data dir, the shared DATABASE_URL) lists A's receipts
    listed = subprocess.run(
        [sys.executable, "-m", "cli.app", "audit", "list", "--thread", thread, "--json"],
        env=relais_env(instances["data_b"], **instances["env"]), cwd=REPO_ROOT,
        capture_output=True, text=True, timeout=120, check=True,
    )
    items = [json.loads(line) for line in listed.stdout.splitlines() if line.strip()]
    assert [(i["route_contract"], i["verdict"]) for i in items] == [
        ("coach.router/v2", "HEALTHY"),
        ("coach.human/v1", "WAITING_ON_APPROVAL"),
    ]

    # B's admin page shows them too
    base = instances["app_b"].url
    token = login(base, "alice", USERS["alice"])
    page = httpx.get(f"{base}/admin/audit?thread={thread}", cookies={"access_token": token}, timeout=60)
    assert page.status_code == 200
    assert f"<code>{thread}</code>" in page.text and "2 receipt(s)" in page.text
    assert items[0]["operation_id"] in page.text
