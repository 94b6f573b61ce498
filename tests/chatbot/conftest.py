"""One real app for the chat tests that need the stock configuration.

The app tests and the pending-prompt tests both ran the same thing in their own processes: the
coach service and the Chainlit app (orchestrator on, the demo users) over the demo KB. Each start
costs the imports and, on the first question, the encoders of two processes; state never needed
fresh processes to stay apart (every test opens its own threads), so one start serves them all."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.chainlit_driver import agent_server, chainlit_server, start_together
from tests.conftest import free_port
from tests.demo_index import demo_data_dir


@pytest.fixture(scope="session")
def demo_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The coach service and the Chainlit app (orchestrator on) over an indexed copy of the demo KB.
    A test may stop and start the app again (same port, same files): it is running when it yields."""
    data_dir = demo_data_dir(tmp_path_factory, "demo-app")
    work = data_dir.parent
    agent = agent_server(data_dir, work)
    env = {"ENABLE_ORCHESTRATOR": "true", "EXTERNAL_AGENT_URL": agent.url}
    port = free_port()
    app = chainlit_server(data_dir, work, port=port, **env)
    start_together((agent, 180), (app, 180))  # side by side: each slower, together sooner
    try:
        yield {"agent": agent, "app": app, "data_dir": data_dir, "work": work, "env": env, "port": port}
    finally:
        app.stop()
        agent.stop()
