"""Passwords (plain or hashed), and the credentials that must never reach a network."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from chatbot.auth import (
    check_password,
    exposure_problem,
    hash_password,
    is_hashed,
    is_loopback,
    verify_password,
    weak_credentials,
)
from chatbot.settings import ChatbotSettings
from relais.settings import Settings


def settings(users: str, **kit: object) -> ChatbotSettings:
    return ChatbotSettings(relais_users=SecretStr(users)).on(Settings(**kit))


@pytest.mark.parametrize("method", ["scrypt:16384:8:1", "pbkdf2:sha256:1000"])
def test_hashed_passwords_verify_and_differ_per_salt(method: str) -> None:
    first, second = hash_password("correct horse", method), hash_password("correct horse", method)
    assert is_hashed(first) and first != second and "correct horse" not in first
    assert verify_password(first, "correct horse") and verify_password(second, "correct horse")
    assert not verify_password(first, "correct horsE") and not verify_password(first, "")


def test_users_may_mix_plain_and_hashed_passwords() -> None:
    s = settings(f"alice:{hash_password('alice-long-password')},bob:bob-plain-password")
    assert check_password("alice", "alice-long-password", s) and not check_password("alice", "nope", s)
    assert check_password("bob", "bob-plain-password", s) and not check_password("bob", "alice-long-password", s)
    assert not check_password("carol", "alice-long-password", s)
    assert not verify_password("scrypt:1:1:1$salt$00", "x")  # absurd parameters: refused, no crash


def test_a_plain_password_that_looks_like_a_method_name_is_still_plain() -> None:
    assert not is_hashed("scrypt:is-my-password")
    assert verify_password("scrypt:is-my-password", "scrypt:is-my-password")


@pytest.mark.parametrize(("host", "loopback"), [("127.0.0.1", True), ("127.0.1.9", True), ("::1", True),
                                                ("[::1]", True), ("localhost", True), ("0.0.0.0", False),
                                                ("::", False), ("10.0.0.5", False), ("relais.example", False)])
def test_loopback_addresses(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_weak_credentials_name_the_demo_account_and_short_passwords_but_accept_hashes() -> None:
    weak = weak_credentials(settings(f"demo:relais,bob:short-pass,carol:{hash_password('x', 'pbkdf2:sha256:10')}"))
    assert any("demo/relais" in w for w in weak) and any("'bob'" in w and "12" in w for w in weak)
    assert not any("carol" in w for w in weak)  # a hash's strength is the operator's call
    assert weak_credentials(settings("alice:twelve-chars")) == []


def test_demo_credentials_refused_off_loopback_or_on_a_shared_database() -> None:
    demo = settings("demo:relais")
    assert exposure_problem(demo, "127.0.0.1") is None  # the local demo keeps working
    off_loopback = exposure_problem(demo, "0.0.0.0")
    assert off_loopback and "listens on 0.0.0.0" in off_loopback and "RELAIS_USERS" in off_loopback
    assert "relais hash-password" in off_loopback
    shared = exposure_problem(settings("demo:relais", database_url="postgresql://db.internal/relais"), "127.0.0.1")
    assert shared and "shared database" in shared
    assert exposure_problem(settings("alice:a-long-password-1"), "0.0.0.0") is None
    # the app refusing to start (a real `chainlit run`): tests/chatbot/test_doctor.py
