from __future__ import annotations

import re

import pytest

from knowledge.extractive import NOT_FOUND, extractive_answer
from knowledge.retrieval import Hit


def test_pricing_answer_contains_the_price(indexed) -> None:
    _, kb = indexed
    question = "How much does the base plan cost?"
    answer = extractive_answer(question, kb.search(question))
    assert answer.found
    assert "$10" in answer.text
    assert "$20" not in answer.text or answer.text.index("$10") < answer.text.index("$20")
    assert answer.sources[0].source == "plans-and-pricing.md"


@pytest.mark.parametrize(
    "question, fact",
    [
        ("What time do the gyms open on Sunday?", "8 am"),
        ("Combien de temps le lien de réinitialisation est-il valable ?", "24 heures"),
        ("How many sessions per week in the beginner workout plan?", "three sessions"),
        ("Que se passe-t-il après cinq tentatives de connexion échouées ?", "quinze minutes"),
        ("How long can I freeze my membership?", "three months"),
    ],
)
def test_answer_quotes_the_fact(indexed, question: str, fact: str) -> None:
    _, kb = indexed
    answer = extractive_answer(question, kb.search(question))
    assert answer.found and fact in answer.text


def test_citations_are_numbered_in_order(indexed) -> None:
    _, kb = indexed
    question = "How do I cancel or freeze my subscription?"
    answer = extractive_answer(question, kb.search(question), max_sentences=3)
    numbers = [int(n) for n in re.findall(r"\[(\d+)\]", answer.text)]
    assert numbers and numbers[0] == 1
    assert sorted(set(numbers)) == list(range(1, len(answer.sources) + 1))
    assert len({s.source for s in answer.sources}) == len(answer.sources)
    assert len(re.findall(r"\[\d+\]", answer.text)) <= 3


def test_sentences_come_back_in_document_order(indexed) -> None:
    _, kb = indexed
    hits = [h for h in kb.search("gym opening hours weekdays weekends holidays", top_k=5)
            if h.source == "gym-hours.html"]
    answer = extractive_answer("When are the gyms open on weekdays, weekends and holidays?", hits, max_sentences=3)
    assert answer.found
    text = answer.text
    assert text.index("weekdays") < text.index("Saturdays")


@pytest.mark.parametrize(
    "question, language",
    [("What is the capital of Australia?", "en"), ("Quelle est la capitale de l'Australie ?", "fr")],
)
def test_off_topic_is_an_honest_not_found(indexed, question: str, language: str) -> None:
    _, kb = indexed
    answer = extractive_answer(question, kb.search(question))
    assert not answer.found and answer.sources == []
    assert answer.text == NOT_FOUND[language]


def test_unrelated_hits_do_not_make_an_answer(indexed) -> None:
    """Even when handed chunks (no retrieval bar), an unrelated question is not 'answered'."""
    _, kb = indexed
    hits = kb.search("How much does the base plan cost?", top_k=3)
    answer = extractive_answer("Who painted the Mona Lisa?", hits)
    assert not answer.found


def test_no_hits() -> None:
    assert extractive_answer("anything", []).found is False
    empty_hit = Hit("ok", "a.md", "A", "", 0, 1.0)
    assert extractive_answer("", [empty_hit]).text == NOT_FOUND["en"]
