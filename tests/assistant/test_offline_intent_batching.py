"""Simultaneous questions share the intent classifier's encoder (issue 19, item 4): each help-center
turn classifies its question with the multilingual USE, and 16 at once used to run 16 forward
passes one after another. Through the query micro-batcher they share fewer passes, with the
same verdicts as one question at a time."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from assistant.offline_intent import get_offline_classifier
from assistant.settings import assistant_settings
from relais.embeddings import forget_questions

QUESTIONS = [
    "How much do students pay?", "Can I pause my membership while travelling?",
    "I hurt my knee, build me a workout plan", "Combien coûte le forfait Premium ?",
    "Propose-moi un programme pour courir un 10 km", "Where is my data stored?",
    "What should I eat before a morning run? I'm vegan", "Quand suis-je remboursé ?",
]


def test_simultaneous_classifications_share_forward_passes_and_keep_their_verdicts() -> None:
    classifier = get_offline_classifier(assistant_settings())
    alone = [classifier.classify(q) for q in QUESTIONS]  # one at a time: one pass each
    batchers = [e.batcher for e in classifier.encoders]
    assert all(b.window_s > 0 for b in batchers)  # on by default (RELAIS_QUERY_BATCH_MS)
    before = [b.batches for b in batchers]
    again = [classifier.classify(q) for q in QUESTIONS]  # a question already read is not encoded again
    assert [b.batches for b in batchers] == before
    assert [r.intent for r in again] == [r.intent for r in alone]

    forget_questions()  # the same questions as never seen, asked at once
    with ThreadPoolExecutor(len(QUESTIONS)) as pool:
        together = list(pool.map(classifier.classify, QUESTIONS))

    passes = [b.batches - n for b, n in zip(batchers, before)]
    assert all(0 < p < len(QUESTIONS) for p in passes), passes
    assert [r.intent for r in together] == [r.intent for r in alone]
    assert all(abs(a.score - b.score) < 1e-5 for a, b in zip(alone, together))
    assert {r.intent.value for r in alone} == {"NORMAL", "ALTER"}  # the set tells the two apart
