"""Profiles' names, welcomes and starters; the footer per engine; thread titles (no server)."""

from __future__ import annotations

import json
import logging
import re
from datetime import datetime, timezone
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import pytest

from assistant.settings import AssistantSettings
from chatbot.chainlit_fixes.translations import OncePerLanguage, for_engine
from chatbot.profiles import catalog
from chatbot.ui.page_info import page_info
from chatbot.ui.titles import shorten, thread_title, zone_from_cookie
from relais.settings import Settings
from tests.conftest import REPO_ROOT


def settings(**env: str) -> AssistantSettings:
    return AssistantSettings(_env_file=None).on(Settings(_env_file=None, **env))  # type: ignore[call-arg]


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
    assert first == f"14:05 · {request}" and second.startswith("14:40 · ")
    assert thread_title("Hi", datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)) == "09:00 UTC · Hi"
    assert zone_from_cookie("relais_tz=Not%2FAZone") is None and zone_from_cookie(None) is None
    assert shorten("one   two\nthree", 40) == "one two three"
    assert len(shorten("x" * 100)) <= 80


def test_a_title_holds_words_only_and_nothing_visible_names_nothing() -> None:
    """Issue 29: the rename box showed the title's own "…"; a zero-width space titled a thread
    "20:10 · ". The sidebar draws its own ellipsis where it cuts."""
    when = datetime(2026, 12, 1, 19, 10, tzinfo=timezone.utc)
    long_request = "How do I freeze my membership while I am abroad for three months this winter, and what does it cost?"
    title = thread_title(long_request, when)
    assert title is not None and "…" not in title and title.startswith("19:10 UTC · How do I freeze")
    assert long_request.startswith(title.removeprefix("19:10 UTC · "))  # cut at a word, nothing added
    assert thread_title("\u200b", when) is None and thread_title(" \u200b\ufeff\u2060 ", when) is None
    assert thread_title("Hi\u200b there", when) == "19:10 UTC · Hi there"


def test_the_offline_footer_is_said_of_the_profiles_that_quote_documents_only() -> None:
    """Issue 29: "answers are quoted from your documents" showed under the coach, the debate and
    the knowledge update too. The page script hides it under any other profile's icon."""
    offline = page_info(SimpleNamespace(identifier="bob"), offline=True)
    assert offline["footer_icons"] == ["/public/profiles/assistant.svg"]
    assert page_info(None, offline=False)["footer_icons"] is None  # a model's footer is every profile's
    assert offline["admin"] is False


def test_chainlits_readme_fallback_warning_is_said_once_per_language() -> None:
    """Issue 29: "Translated markdown file for en-US not found" filled the log (151 times)."""
    once = OncePerLanguage()

    def record(message: str) -> logging.LogRecord:
        return logging.LogRecord("chainlit", logging.WARNING, __file__, 1, message, None, None)

    fallback = "Translated markdown file for {} not found. Defaulting to chainlit.md."
    kept = [once.filter(record(fallback.format(lang))) for lang in ("en-US", "en-US", "de-DE", "en-US", "de-DE")]
    assert kept == [True, False, True, False, False]
    assert all(once.filter(record("Your app is available at http://127.0.0.1")) for _ in range(3))


@pytest.mark.parametrize("language", ["en-US", "fr-FR"])
def test_switching_profile_does_not_claim_to_clear_the_history(language: str) -> None:
    """The dialog Chainlit shows on a profile switch said "This will clear your current chat
    history": the conversation stays in the sidebar."""
    translation = json.loads((REPO_ROOT / ".chainlit" / "translations" / f"{language}.json").read_text())
    description = translation["navigation"]["newChat"]["dialog"]["description"]
    assert "clear" not in description and "effacera" not in description
    assert re.search(r"history|historique", description)
    errors = translation["auth"]["login"]["errors"]
    assert errors["credentialssignin"] == errors["credentialsSignin"]  # the login 401's detail, as sent
