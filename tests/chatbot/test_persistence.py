"""Thread mode persistence across data-layer restarts: a real SQLite file, and Postgres in the scale run."""

from __future__ import annotations

import uuid

from chainlit.user import User

from assistant.modes import ALTER, NORMAL
from chatbot.persistence import create_data_layer, create_data_layer_sync
from chatbot.session import history_from_steps, mode_from_thread
from chatbot.thread_mode import read_thread_mode, write_alter_mode
from relais.settings import get_settings


async def test_alter_mode_survives_a_restart_and_normal_stays_normal(backend: str) -> None:
    settings = get_settings()
    layer = await create_data_layer(settings)
    user = await layer.create_user(User(identifier=f"alice-{uuid.uuid4().hex[:8]}"))
    alter_thread, normal_thread = str(uuid.uuid4()), str(uuid.uuid4())
    await layer.update_thread(alter_thread, user_id=user.id, name="coach thread")
    await layer.update_thread(normal_thread, user_id=user.id, name="faq thread", metadata={"chat_profile": "Assistant"})
    await write_alter_mode(layer, alter_thread, user.id)
    await layer.engine.dispose()

    restarted = create_data_layer_sync(settings)  # a new engine on the same database
    assert await read_thread_mode(restarted, alter_thread) == ALTER
    assert await read_thread_mode(restarted, normal_thread) == NORMAL
    thread = await restarted.get_thread(alter_thread)
    assert thread is not None and mode_from_thread(thread) == ALTER
    assert thread["metadata"]["mode"] == ALTER  # decoded to a dict, not a JSON string
    assert thread["userIdentifier"].startswith("alice-")
    normal = await restarted.get_thread(normal_thread)
    assert mode_from_thread(normal) == NORMAL and normal["metadata"]["chat_profile"] == "Assistant"
    await restarted.engine.dispose()


async def test_metadata_merges_and_tags_bind(backend: str) -> None:
    layer = await create_data_layer(get_settings())
    user = await layer.create_user(User(identifier=f"bob-{uuid.uuid4().hex[:8]}"))
    thread_id = str(uuid.uuid4())
    await layer.update_thread(thread_id, user_id=user.id, metadata={"chat_profile": "Coach"}, tags=["Coach"])
    await write_alter_mode(layer, thread_id)
    thread = await layer.get_thread(thread_id)
    assert thread["metadata"] == {"chat_profile": "Coach", "mode": ALTER}
    assert thread["tags"] == ["Coach"]
    await layer.engine.dispose()


async def test_a_rename_racing_a_metadata_write_keeps_the_metadata(backend: str) -> None:
    """The title task renames the thread while the profile is being remembered: both stay."""
    import asyncio

    layer = await create_data_layer(get_settings())
    user = await layer.create_user(User(identifier=f"carol-{uuid.uuid4().hex[:8]}"))
    thread_id = str(uuid.uuid4())
    await layer.update_thread(thread_id, user_id=user.id, name="first request")
    for turn in range(5):
        await asyncio.gather(
            layer.update_thread(thread_id, name=f"06:4{turn} · first request"),
            layer.update_thread(thread_id, metadata={"chat_profile": "Knowledge update", f"turn{turn}": turn}),
            layer.update_thread(thread_id, name=f"renamed {turn}", user_id=user.id),
        )
    thread = await layer.get_thread(thread_id)
    assert thread["metadata"] == {"chat_profile": "Knowledge update", **{f"turn{t}": t for t in range(5)}}
    assert thread["name"] == "renamed 4" and thread["userIdentifier"] == user.identifier
    await layer.engine.dispose()


def test_history_rebuilt_from_steps() -> None:
    steps = [
        {"type": "assistant_message", "output": "Hello", "createdAt": "2026-01-01T00:00:02Z"},
        {"type": "user_message", "output": "Hi", "createdAt": "2026-01-01T00:00:01Z"},
        {"type": "tool", "output": "workout_plan()", "createdAt": "2026-01-01T00:00:03Z"},
        {"type": "run", "output": "", "createdAt": "2026-01-01T00:00:04Z"},
    ]
    assert history_from_steps(steps) == [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello"},
    ]


async def test_a_step_s_metadata_comes_back_as_a_dict(backend: str) -> None:
    """The page reads a folded plan's avatar from its step metadata (`avatarName`): a JSON string
    there showed a blank grey avatar after a reload."""
    import json

    layer = await create_data_layer(get_settings())
    user = await layer.create_user(User(identifier=f"carol-{uuid.uuid4().hex[:8]}"))
    thread_id, step_id = str(uuid.uuid4()), str(uuid.uuid4())
    await layer.update_thread(thread_id, user_id=user.id, name="coach thread")
    await layer.execute_sql(  # as Chainlit's create_step writes it: the metadata JSON-encoded
        'INSERT INTO steps ("id", "threadId", "name", "type", "streaming", "output", "metadata", "createdAt") '
        "VALUES (:id, :thread, :name, 'tool', false, 'plan', :metadata, '2026-12-01T20:00:00Z')",
        {"id": step_id, "thread": thread_id, "name": "📋 Full meal plan (updated)",
         "metadata": json.dumps({"avatarName": "Coach", "relais_folded": True})})
    thread = await layer.get_thread(thread_id)
    stored = next(s for s in thread["steps"] if s["id"] == step_id)
    assert stored["metadata"] == {"avatarName": "Coach", "relais_folded": True}
    await layer.engine.dispose()


async def test_a_thread_read_after_steps_written_holds_every_fired_step(backend: str) -> None:
    """Chainlit fires each step write in its own task and never awaits it; another tab shown the
    thread right after a turn (`chatbot.ui.tabs`) must see the turn's last messages."""
    import asyncio

    from chainlit.context import init_http_context

    layer = await create_data_layer(get_settings())
    user = await layer.create_user(User(identifier=f"dave-{uuid.uuid4().hex[:8]}"))
    thread_id = str(uuid.uuid4())
    await layer.update_thread(thread_id, user_id=user.id, name="two tabs")
    init_http_context(thread_id=thread_id)
    ids = [str(uuid.uuid4()) for _ in range(6)]
    for n, step_id in enumerate(ids):  # as `cl.Message.send` does: fired, not awaited
        asyncio.get_running_loop().create_task(layer.create_step({
            "id": step_id, "threadId": thread_id, "name": "Coach", "type": "assistant_message", "streaming": False,
            "output": f"answer {n}", "createdAt": f"2026-12-02T05:00:0{n}Z", "metadata": {},
        }))
    await layer.steps_written()
    thread = await layer.get_thread(thread_id)
    assert [s["id"] for s in thread["steps"] if s["id"] in ids] == ids
    await layer.engine.dispose()
