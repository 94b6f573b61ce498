"""`knowledge.question_kind`: the things a question asks."""

from __future__ import annotations

import pytest

from knowledge.question_kind import question_parts


@pytest.mark.parametrize("question, parts", [
    ("How do I set that up, and which version do I need?", ["How do I set that up", "which version do I need?"]),
    ("We run a shop. Can I pay by card? And for how long is the offer valid?",
     ["Can I pay by card?", "for how long is the offer valid?"]),
    ("Qu'est-ce qui a changé et comment le corriger ?", ["Qu'est-ce qui a changé", "comment le corriger ?"]),
    ("Quelle mutation envoie un message, et sera-t-il prévenu ?", ["Quelle mutation envoie un message",
                                                                  "sera-t-il prévenu ?"]),
    ("Je paie et je veux savoir où aller.", ["Je paie et je veux savoir où aller."]),
    ("Where do I change the theme of the desktop app?", ["Where do I change the theme of the desktop app?"]),
    ("I bought it before they added SSO, and it isn't mandatory. How do I link my account?",
     ["How do I link my account?"]),  # the statement before the question is no part
    ("Can I bring cats and dogs?", ["Can I bring cats and dogs?"]),
    ("Is there a link parameter for that, and since which version?",
     ["Is there a link parameter for that", "since which version?"]),
    ("Le champ existe-t-il, et depuis quelle version ?", ["Le champ existe-t-il", "depuis quelle version ?"]),
])
def test_question_parts_are_the_things_asked(question: str, parts: list[str]) -> None:
    assert question_parts(question) == parts
