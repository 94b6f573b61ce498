"""Profiles' names, welcomes and starters; the footer per engine; thread titles (no server)."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from chatbot.chainlit_fixes.translations import for_engine
from chatbot.profiles import catalog
from chatbot.ui.titles import shorten, thread_title, zone_from_cookie
from relais.settings import Settings
from tests.conftest import REPO_ROOT


def settings(**env: str) -> Settings:
    return Settings(_env_file=None, **env)  # type: ignore[call-arg]


@pytest.fixture(autouse=True)
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MISTRAL_API_KEY", "RELAIS_MODEL", "DEBATE_MODEL_NAME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(REPO_ROOT / "tests")  # no .env of the developer's


@pytest.mark.parametrize("language", ["en-US", "fr-FR"])
def test_each_profile_has_its_own_starters_and_a_welcome_in_the_users_language(language: str) -> None:
    profiles = {p.name: p for p in catalog.chat_profiles(language, settings())}
    assert list(profiles) == ["Assistant", "Coach", "Debate", "Knowledge update"]
    assistant = {s.message for s in profiles["Assistant"].starters}
    coach = {s.message for s in profiles["Coach"].starters}
    assert assistant and coach and assistant.isdisjoint(coach)
    assert profiles["Debate"].starters == []  # an empty list: Chainlit falls back to nothing
    french = language.startswith("fr")
    assert (profiles["Knowledge update"].display_name == "Mise à jour des connaissances") == french
    for profile in profiles.values():  # the welcome names the profile as the menu does
        assert profile.markdown_description.startswith(f"**Relais · {profile.display_name.split(' (')[0]}** — ")


def test_debate_is_marked_needs_a_model_offline_with_a_hint_that_renders() -> None:
    [debate] = [p for p in catalog.chat_profiles("en-US", settings()) if p.name == "Debate"]
    assert debate.display_name == "Debate (needs a model)"
    outside_code = re.sub(r"`[^`]*`", "", debate.markdown_description)
    assert "`RELAIS_MODEL=provider:model`" in debate.markdown_description
    assert not re.search(r"[A-Za-z]:[A-Za-z]", outside_code)  # Chainlit would eat `:model`


def test_debate_with_a_model_is_plain() -> None:
    [debate] = [p for p in catalog.chat_profiles("fr-FR", settings(RELAIS_MODEL="openai:gpt-4o-mini"))
                if p.name == "Debate"]
    assert debate.display_name == "Débat" and "modèle requis" not in debate.markdown_description


@pytest.mark.parametrize("language", ["en-US", "fr-FR"])
def test_the_footer_matches_the_engine(language: str) -> None:
    translation = json.loads((REPO_ROOT / ".chainlit" / "translations" / f"{language}.json").read_text())
    offline = for_engine(translation, offline=True)["chat"]["watermark"]
    online = for_engine(translation, offline=False)["chat"]["watermark"]
    assert offline != online
    assert ("documents" in offline) and ("LLM" not in offline)
    assert translation["auth"]["login"]["form"]["email"]["label"] in ("Username", "Nom d'utilisateur")
    assert "@" not in translation["auth"]["login"]["form"]["email"]["placeholder"]


def test_thread_titles_tell_threads_apart() -> None:
    request = "Build me a 3-day workout plan to gain muscle and lose fat"
    paris = zone_from_cookie("access_token=x; relais_tz=Europe%2FParis")
    assert paris == ZoneInfo("Europe/Paris")
    first = thread_title(request, datetime(2026, 12, 1, 13, 5, tzinfo=timezone.utc), paris)
    second = thread_title(request, datetime(2026, 12, 1, 13, 40, tzinfo=timezone.utc), paris)
    assert first == "14:05 · Build me a 3-day workout…" and second.startswith("14:40 · ")
    assert thread_title("Hi", datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)) == "09:00 UTC · Hi"
    assert zone_from_cookie("relais_tz=Not%2FAZone") is None and zone_from_cookie(None) is None
    assert shorten("one   two\nthree", 40) == "one two three"
    assert len(shorten("x" * 100)) <= 29
