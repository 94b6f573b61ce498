"""Issue 29, Knowledge update, in Chromium (one app for the module, on a temp copy of the KB):
"Type another value" shows as the person's reply and its buttons go; the Family price typed as
$35/month is followed by the yearly amount ($420/year, not $36 × 12) and the "three times the
Base plan" sentence is flagged; Publish shows a live step while it writes and re-indexes, and
the final message arrives without reopening the thread; no stale cross-article warning; the
written files keep their mode (644). Screenshots: test-artifacts/browser/29-kb-*.png.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO_ROOT
from tests.demo_index import cache_root_for, ingested_data_dir
from tests.e2e.conftest import Stack, login, shot, start_app, switch_profile, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.timeout(1200)]


@pytest.fixture(scope="module")
def kb_stack(stack: Stack, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """An app of its own on a temp copy of the KB and of the indexed data folder; the coach service
    is the shared one (a Knowledge-update job never hands off)."""
    root = tmp_path_factory.mktemp("walk-kb")
    kb = Path(shutil.copytree(REPO_ROOT / "data" / "knowledge", root / "kb"))
    for path in kb.rglob("*.md"):
        os.chmod(path, 0o644)
    data_dir = ingested_data_dir(root / "data", cache_root_for(tmp_path_factory))  # not the live app's files
    app = start_app(stack, root, data_dir=data_dir, RELAIS_KB_DIR=str(kb))
    running = Stack(app=app, agent=stack.agent, data_dir=data_dir, workdir=root)
    running.kb = kb  # type: ignore[attr-defined]
    yield running
    running.app.stop()


def answers(page: Any) -> list[str]:
    return page.locator("[data-step-type='assistant_message']").all_inner_texts()


def live_buttons(page: Any) -> list[str]:
    return [b.strip() for b in page.locator("[data-step-type='assistant_message'] button[id]").all_inner_texts()]


def wait_for_buttons(page: Any) -> None:
    page.wait_for_function(
        "() => [...document.querySelectorAll(\"[data-step-type='assistant_message'] button[id]\")]"
        ".some(b => /^(Yes, apply it|Use |Type another|Publish$)/.test(b.innerText.trim()))", timeout=180_000)
    wait_idle(page)


def click(page: Any, label: str) -> None:
    count = len(answers(page))
    page.get_by_role("button", name=label, exact=True).last.click()
    page.wait_for_function("n => document.querySelectorAll(\"[data-step-type='assistant_message']\").length > n",
                           arg=count, timeout=180_000)


def test_type_a_value_publish_with_progress_and_file_modes(page: Any, kb_stack: Stack) -> None:
    page.set_default_timeout(180_000)
    kb: Path = kb_stack.kb  # type: ignore[attr-defined]
    login(page, kb_stack.url)
    switch_profile(page, "Knowledge update")
    page.wait_for_timeout(1500)
    page.locator("#chat-input").click()
    page.keyboard.type("The base plan moves from $10/month to $12/month")
    page.locator("#chat-submit").click()
    typed = False
    for _ in range(20):
        wait_for_buttons(page)
        labels, last = live_buttons(page), answers(page)[-1]
        if "Publish" in labels:
            break
        if not typed and "$30/month" in last and "three times" in last and "Type another value" in labels:
            shot(page, "29-kb-01-family-item")
            page.get_by_role("button", name="Type another value", exact=True).last.click()
            page.get_by_text("Type the amount you want").wait_for()
            page.wait_for_timeout(800)
            assert page.locator("[data-step-type='user_message']", has_text="Type another value").count() == 1
            assert "Type another value" not in live_buttons(page)  # the old buttons went
            shot(page, "29-kb-02-type-another-value")
            count = len(answers(page))
            page.locator("#chat-input").click()
            page.keyboard.type("$35/month")
            page.locator("#chat-submit").click()
            page.wait_for_function("n => document.querySelectorAll(\"[data-step-type='assistant_message']\")"
                                   ".length > n", arg=count)
            typed = True
            continue
        if typed and "$360/year" in last:
            assert "$420/year" in last and "you typed" in last, last  # 35 × 12, not 36 × 12
            shot(page, "29-kb-03-follows-the-typed-value")
        pick = next(label for label in labels if label.startswith(("Yes, apply it", "Use ")) and "for all" not in label)
        click(page, pick)
    assert typed, "the Family item was never asked"
    review = answers(page)[-1]
    assert "To check before publishing" in review and "three times" in review
    shot(page, "29-kb-04-review")

    before = len(answers(page))
    page.get_by_role("button", name="Publish", exact=True).last.click()
    step = page.locator("[id='step-Publishing']")
    step.first.wait_for(timeout=60_000)  # a live step, at once
    shot(page, "29-kb-05-publishing")
    page.get_by_text("Published.").first.wait_for(timeout=300_000)  # live: no reload, no reopening
    wait_idle(page)
    assert len(answers(page)) > before
    step.first.click()
    page.wait_for_timeout(800)
    final = answers(page)[-1]
    assert "still states" not in final and "To check" in final
    shot(page, "29-kb-06-published")
    written = [p for p in kb.rglob("*.md") if "$12/month" in p.read_text() or "12 $/mois" in p.read_text()]
    assert written
    assert {oct(stat.S_IMODE(p.stat().st_mode)) for p in kb.rglob("*.md")} == {"0o644"}
    assert "$35/month" in (kb / "family-plan.md").read_text() and "$420/year" in (kb / "family-plan.md").read_text()
