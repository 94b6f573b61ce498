"""Which tabs hear that a thread went on elsewhere: the other connected sessions on the same thread."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from chatbot.ui import tabs


def test_only_the_other_connected_sessions_on_the_same_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    here = SimpleNamespace(thread_id="t1", socket_id="s-here")
    other_tab = SimpleNamespace(thread_id="t1", socket_id="s-other")
    reloaded_away = SimpleNamespace(thread_id="t1", socket_id="s-gone")  # kept by Chainlit for an hour
    elsewhere = SimpleNamespace(thread_id="t2", socket_id="s-elsewhere")
    monkeypatch.setattr(tabs, "ws_sessions_id", {"a": here, "b": other_tab, "c": elsewhere, "d": reloaded_away})
    monkeypatch.setattr(tabs, "_socket_connected", lambda session: session.socket_id != "s-gone")
    assert tabs.other_sessions("t1", here) == [other_tab]
    assert tabs.other_sessions("t2", here) == [elsewhere]
    assert tabs.other_sessions(None, here) == []


def test_a_tab_s_language_is_its_browser_s() -> None:
    """Chainlit 2.12 keeps Accept-Language as `session.language` (its user session has no
    "languages" key: reading that gave a French tab its notes in English)."""
    from chatbot.session import browser_language

    assert browser_language(SimpleNamespace(language="fr-FR")) == "fr"
    assert browser_language(SimpleNamespace(language="en-US")) == "en"
    assert browser_language(SimpleNamespace()) == "en"
