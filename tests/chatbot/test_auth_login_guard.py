"""Failed-login limits counted in the chat database: backoff, lock, shared by every instance."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from chatbot.login_guard import LoginGuard, Refusal
from chatbot.settings import ChatbotSettings


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def policy(**overrides: float) -> ChatbotSettings:
    values = {"relais_login_max_failures": 6, "relais_login_max_failures_per_address": 20,
              "relais_login_lock_minutes": 10, "relais_login_backoff_s": 2.0}
    return ChatbotSettings(**{**values, **overrides})


@pytest.fixture
async def engines(tmp_path: Path) -> AsyncIterator[list[AsyncEngine]]:
    """Two engines on one SQLite file: two app instances sharing their chat database."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'chat.db'}"
    made = [create_async_engine(url, connect_args={"timeout": 30}) for _ in range(2)]
    yield made
    for engine in made:
        await engine.dispose()


async def fail(guard: LoginGuard, user: str = "alice", address: str | None = "203.0.113.5") -> None:
    await guard.begin_attempt(user, address)  # counted; the password was wrong: nothing given back


async def test_backoff_then_lock_then_forgotten_after_the_window(engines: list[AsyncEngine]) -> None:
    clock = Clock()
    guard = LoginGuard(engines[0], policy(), clock)  # per user: backoff after 2, lock at 6
    await fail(guard)
    await fail(guard)
    with pytest.raises(Refusal) as early:
        await fail(guard)  # third try straight away: must wait 2 s
    assert not early.value.locked and early.value.retry_after in (2, 3)
    for wait in (2, 4, 8):
        clock.now += wait
        await fail(guard)
    clock.now += 16
    assert await guard.begin_attempt("alice", "203.0.113.5") == ["user"]  # the sixth: locks if wrong
    clock.now += 60
    with pytest.raises(Refusal) as locked:
        await guard.begin_attempt("alice", "203.0.113.5")
    assert locked.value.locked and 500 < locked.value.retry_after <= 600
    with pytest.raises(Refusal):
        await guard.begin_attempt("ALICE ", "198.51.100.1")  # any address, the same name
    await guard.begin_attempt("bob", "203.0.113.5")  # other users are not locked out by alice's
    clock.now += 601
    await guard.begin_attempt("alice", "203.0.113.5")  # the lock expired, failures forgotten
    await guard.begin_attempt("alice", "203.0.113.5")


async def test_a_success_starts_the_username_afresh(engines: list[AsyncEngine]) -> None:
    clock = Clock()
    guard = LoginGuard(engines[0], policy(), clock)
    await fail(guard)
    await fail(guard)
    clock.now += 3
    await guard.begin_attempt("alice", "203.0.113.5")
    await guard.succeeded("alice", "203.0.113.5")
    await fail(guard)  # no wait needed right after a success
    await fail(guard)


async def test_many_usernames_from_one_address_lock_the_address(engines: list[AsyncEngine]) -> None:
    clock = Clock()
    guard = LoginGuard(engines[0], policy(relais_login_max_failures_per_address=5, relais_login_backoff_s=1), clock)
    for i in range(5):  # per address: backoff after 1, lock at 5
        clock.now += 20
        await fail(guard, user=f"user{i}", address="198.51.100.9")
    clock.now += 20
    with pytest.raises(Refusal) as locked:
        await guard.begin_attempt("carol", "198.51.100.9")
    assert locked.value.locked
    await guard.begin_attempt("carol", "198.51.100.10")  # another address is not affected


async def test_two_instances_share_one_count(engines: list[AsyncEngine]) -> None:
    clock = Clock()
    a, b = (LoginGuard(engine, policy(), clock) for engine in engines)
    await fail(a)
    await fail(b)
    with pytest.raises(Refusal):
        await fail(a)  # b's failure counts on a
    for wait, guard in ((2, b), (4, a), (8, b)):
        clock.now += wait
        await fail(guard)
    clock.now += 16
    await fail(a)  # the sixth failure, on a
    clock.now += 1
    with pytest.raises(Refusal) as locked:
        await b.begin_attempt("alice", None)
    assert locked.value.locked


async def test_a_parallel_burst_on_two_instances_gets_no_more_than_the_free_attempts(engines: list[AsyncEngine]) -> None:
    clock = Clock()
    a, b = (LoginGuard(engine, policy(), clock) for engine in engines)
    outcomes = await asyncio.gather(*(fail(a if i % 2 else b, address=f"192.0.2.{i}") for i in range(40)),
                                    return_exceptions=True)
    passed = [o for o in outcomes if not isinstance(o, BaseException)]
    assert all(isinstance(o, Refusal) for o in outcomes if isinstance(o, BaseException)), outcomes
    assert len(passed) == 2  # counted before the password is checked: the burst cannot slip through
