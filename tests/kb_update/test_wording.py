"""Typed replies to a pending question (EN/FR) and the plain-language review."""

from __future__ import annotations

import pytest

from kb_update import replies, wording


@pytest.mark.parametrize("reply, expected", [
    ("yes, add to the brief", True), ("Publish", True), ("oui", True), ("Oui, publier !", True), ("ok", True),
    ("approve", True), ("valider", True), ("rejeter", False), ("no", False), ("don't publish", False),
    ("ne pas publier", False), ("Non merci", False), ("what is this?", None), ("the base plan moves to $12", None),
])
def test_yes_no_replies(reply: str, expected: bool | None) -> None:
    assert replies.yes_no(reply) is expected


@pytest.mark.parametrize("reply, expected", [
    ("use the new value", {"choice": "computed", "all": False}),
    ("oui pour tout", {"choice": "computed", "all": True}),
    ("keep it", {"choice": "keep", "all": False}),
    ("garder", {"choice": "keep", "all": False}),
    ("35", {"choice": "value", "value": "35"}),
    ("$36.50 per month", {"choice": "value", "value": "$36.50 per month"}),
    ("hmm", None),
])
def test_decision_replies(reply: str, expected: dict | None) -> None:
    assert replies.decision_reply(reply) == expected


def test_changes_are_words_struck_and_bold_per_sentence_and_table_row() -> None:
    before = "# P\n\n| Plan | Price |\n|---|---|\n| Base | $10/month |\n\nIt costs $10/month. Nothing else.\n"
    after = before.replace("$10/month", "$12/month")
    assert wording.changes(before, after) == ["Base: ~~$10/month~~ **$12/month**",
                                            "It costs ~~$10/month~~ **$12/month**."]
