"""A thread started in one process continues in another (same SQLite file, same thread id)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from coach.runner import CoachRunner
from tests.coach.conftest import SEED_TURNS, collect

CHILD = textwrap.dedent(
    """
    import asyncio, json, sys
    from coach.runner import CoachRunner
    from relais.testing import ScriptedChatModel, tool_call

    db, thread, message, scripted = sys.argv[1:5]
    model = None
    if scripted == "1":
        model = ScriptedChatModel([tool_call("meal_plan", {}), "Scripted meal answer."])

    async def main():
        async with CoachRunner.open(model=model, checkpoint_target=db) as runner:
            before = await runner.state(thread)
            events = [e async for e in runner.run_turn(thread, message)]
            after = await runner.state(thread)
        print(json.dumps({
            "before": before, "after": after,
            "kinds": [type(e).__name__ for e in events],
            "text": "".join(getattr(e, "text", "") for e in events),
            "prompts": model.prompt_texts() if model else [],
        }))

    asyncio.run(main())
    """
)


def run_child(db: Path, thread: str, message: str, scripted: bool) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(db), thread, message, "1" if scripted else "0"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow
async def test_turn_two_in_a_new_process(tmp_path: Path) -> None:
    db = tmp_path / "checkpoints.db"
    async with CoachRunner.open(model=None, checkpoint_target=str(db)) as runner:
        await collect(runner, "seed", SEED_TURNS[0] + " I have a bad knee.")
        assert (await runner.state("seed"))["paused"]

    child = run_child(db, "seed", SEED_TURNS[1], scripted=False)
    assert child["before"]["paused"] and child["before"]["messages"] == 4
    assert child["kinds"][-2:] == ["InterruptEvent", "DoneEvent"]
    assert child["after"]["last_active_agent"] == "nutrition_advisor"
    assert child["after"]["human_messages"] == 2 and child["after"]["messages"] == 8
    # constraints said in process 1 shape the answer given by process 2
    assert "build muscle and lose fat" in child["text"] and "Injury noted (knee)" in child["text"]

    # and a model in a third process receives the whole history without anyone resending it
    third = run_child(db, "seed", SEED_TURNS[2], scripted=True)
    assert third["text"] == "Scripted meal answer."
    assert "Build muscle, lose fat" in third["prompts"][0] and SEED_TURNS[1] in third["prompts"][0]
    assert third["after"]["human_messages"] == 3 and third["after"]["paused"]
