"""The chat app's settings: users, admins, and which of them are secrets."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from chatbot.settings import ChatbotSettings, chatbot_settings
from relais.settings import clear_settings_caches, secret_values


def test_users_and_admins_are_parsed() -> None:
    settings = ChatbotSettings(relais_users=SecretStr("alice:a-long-password, bob:b:c,:x,junk"),
                               relais_admins=" alice , ,carol")
    assert settings.users == {"alice": "a-long-password", "bob": "b:c"}
    assert settings.admins == frozenset({"alice", "carol"})


def test_passwords_and_tokens_are_secrets_the_plain_values_are_not(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELAIS_USERS", "alice:a-long-password,bob:abc")
    monkeypatch.setenv("CHAINLIT_AUTH_SECRET", "jwt-secret-value")
    monkeypatch.setenv("RELAIS_API_TOKEN", "")
    clear_settings_caches()
    settings = chatbot_settings()
    assert settings.relais_api_token is None  # blank: generated in the data folder
    values = secret_values()
    assert {"a-long-password", "jwt-secret-value"} <= set(values)
    assert "abc" not in values  # too short to scrub without mangling every log line
    assert "alice:a-long-password,bob:abc" not in settings.secret_values()
