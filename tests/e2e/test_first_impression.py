"""What a new user sees, in English and in French, in a real Chromium against the real app:
login page (Relais's logo, a username field) → the welcome of each profile with its own
starters → a help-center answer with the footer of the offline engine → the hand-off to the
coach (quick choices as buttons, the coach's badge) → a long message folded in its bubble →
thread titles that tell threads apart. Full-page screenshots: test-artifacts/browser/17-*.png.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.conftest import USERS, ask, scroll_into_view, shot, switch_profile, wait_idle

pytestmark = pytest.mark.browser

TEXTS = {
    "en-US": {
        "username": "Username",
        "login_title": "Sign in to Relais",
        "footer": "answers are quoted from your documents",
        "profiles": {"Assistant": "Assistant", "Coach": "Coach", "Debate": "Debate (needs a model)",
                     "Knowledge update": "Knowledge update"},
        "welcome": {"Assistant": "ask about the help center", "Coach": "your workout & nutrition coach",
                    "Debate": "needs a generative model", "Knowledge update": "tell me a change in one sentence"},
        "starter": {"Assistant": "Pricing", "Coach": "3-day workout plan", "Knowledge update": "New price"},
        "question": "How much does the base plan cost?",
        "action": "Build me a 3-day workout plan to gain muscle",
        "choice": "Vegetarian",
        "coach_header": "The agent is answering",
        "more": "Show more", "less": "Show less",
        "readme": "Readme", "readme_text": "Pick a profile",
        "step": "Training plan built",
    },
    "fr-FR": {
        "username": "Nom d'utilisateur",
        "login_title": "Connectez-vous à Relais",
        "footer": "les réponses sont citées de vos documents",
        "profiles": {"Assistant": "Assistant", "Coach": "Coach", "Debate": "Débat (modèle requis)",
                     "Knowledge update": "Mise à jour des connaissances"},
        "welcome": {"Assistant": "posez vos questions sur le centre d'aide", "Coach": "votre coach entraînement",
                    "Debate": "besoin d'un modèle génératif", "Knowledge update": "décrivez un changement en une phrase"},
        "starter": {"Assistant": "Tarifs", "Coach": "Programme 3 jours", "Knowledge update": "Nouveau prix"},
        "question": "Combien coûte l'abonnement de base ?",
        "action": "Propose-moi un programme de musculation sur 3 jours",
        "choice": "Végétarien",
        "coach_header": "L'agent vous répond",
        "more": "Afficher plus", "less": "Afficher moins",
        "readme": "Lisez-moi", "readme_text": "Choisissez un profil",
        "step": "Programme d'entraînement préparé",
    },
}


def body_text(page: Any) -> str:
    return page.locator("body").inner_text()


def pick_profile(page: Any, name: str, shown: str) -> None:
    switch_profile(page, name, shown)
    page.wait_for_selector("#chat-input")
    page.wait_for_timeout(800)


@pytest.mark.parametrize("locale", ["en-US", "fr-FR"])
def test_first_impression(new_page: Any, app_url: str, locale: str) -> None:
    t = TEXTS[locale]
    tag = f"17-{locale[:2]}"
    page = new_page(locale=locale)
    page.set_default_timeout(180_000)  # a first answer loads the encoder: slow on a busy machine

    # login page: Relais's logo and name, a username field (not an e-mail address)
    page.goto(app_url + "/login")
    page.get_by_text(t["login_title"]).wait_for()
    assert page.title() == "Relais"
    assert t["username"] in body_text(page) and "me@example.com" not in page.content()
    logo = page.locator("img.logo").first
    assert "/logo" in logo.get_attribute("src")
    assert page.evaluate("async () => (await fetch('/logo?theme=light')).headers.get('content-type')").startswith("image/svg")
    assert "Relais" in page.evaluate("async () => await (await fetch('/logo?theme=dark')).text()")
    assert "svg" in page.evaluate("async () => (await fetch('/favicon')).headers.get('content-type')")
    shot(page, f"{tag}-01-login")

    page.locator("input").first.fill("alice")
    page.locator("input[type=password]").fill(USERS["alice"])
    page.click("button[type=submit]")
    page.wait_for_url(app_url + "/")
    page.wait_for_selector("#chat-input")

    # each profile: its translated name, its welcome in the empty chat, its own starters
    seen_starters: dict[str, set[str]] = {}
    for name in ("Coach", "Debate", "Knowledge update", "Assistant"):
        pick_profile(page, name, t["profiles"][name])
        welcome = page.locator("#welcome-screen")
        welcome.get_by_text(t["welcome"][name], exact=False).first.wait_for()
        starters = set(page.locator("#starters button").all_inner_texts())
        seen_starters[name] = starters
        if name in t["starter"]:
            assert t["starter"][name] in starters
        else:
            assert not starters  # Debate without a model: nothing to start
        shot(page, f"{tag}-02-welcome-{name.lower().replace(' ', '-')}")
    assert seen_starters["Coach"].isdisjoint(seen_starters["Assistant"])  # the coach's are its own

    # the Readme in the user's language
    page.get_by_text(t["readme"], exact=True).first.click()
    page.get_by_text(t["readme_text"]).first.wait_for()
    shot(page, f"{tag}-03-readme")
    page.keyboard.press("Escape")
    page.get_by_text(t["readme_text"]).first.wait_for(state="hidden")

    # a help-center answer, then the hand-off to the coach
    ask(page, t["question"])
    text = body_text(page)
    assert re.search(r"\$10|10 ?\$|10 dollars", text)
    assert t["footer"] in text  # the footer of the offline engine, not "LLMs can make mistakes"
    # the new thread is renamed "HH:MM · <first request, shortened>" in the sidebar
    page.locator("#thread-history").get_by_text(re.compile(r"^\d{2}:\d{2} · ")).first.wait_for(timeout=30_000)
    shot(page, f"{tag}-04-answer")
    ask(page, t["action"])
    choice = page.get_by_role("button", name=t["choice"]).last
    choice.wait_for()
    page.get_by_text(t["coach_header"]).wait_for()  # the header says who answers now
    assert page.locator(".relais-coach-label").count() >= 1  # the coach's answers carry a badge
    scroll_into_view(choice)  # as a person scrolls until the buttons show
    page.wait_for_timeout(800)
    box = choice.bounding_box()
    assert box and box["y"] + box["height"] <= page.viewport_size["height"]
    # the quick choice is the element under its own centre: nothing (scroll arrow) covers it
    covered = page.evaluate(
        "([x, y, label]) => { const e = document.elementFromPoint(x, y); return e && e.closest('button') ? e.closest('button').innerText : null }",
        [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, t["choice"]],
    )
    assert covered == t["choice"]
    assert t["step"] in body_text(page)
    shot(page, f"{tag}-05-coach")
    choice.click()
    wait_idle(page)
    shot(page, f"{tag}-06-choice-clicked")

    # a very long message folds in its bubble
    long_text = ("word " * 30 + "\n\n") * 130
    page.locator("#chat-input").fill(long_text[:20_000])
    page.locator("#chat-submit").click()
    page.get_by_role("button", name=t["more"]).wait_for()
    wait_idle(page)
    bubble = page.locator("[data-step-type='user_message'] .relais-collapsed").last
    assert bubble.bounding_box()["height"] < 400
    shot(page, f"{tag}-07-long-message-folded")
    page.get_by_role("button", name=t["more"]).click()
    page.get_by_role("button", name=t["less"]).wait_for()
    assert page.locator("[data-step-type='user_message'] .message-content").last.bounding_box()["height"] > 1000
    page.get_by_role("button", name=t["less"]).click()
    page.get_by_role("button", name=t["more"]).wait_for()
