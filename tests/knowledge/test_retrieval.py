from __future__ import annotations

import asyncio

import pytest

from knowledge.fusion import convex_combination, min_max, reciprocal_rank_fusion
from knowledge.retrieval import (
    DENSE_RUNNERS_UP,
    OTHER_LANGUAGE_EXTRA,
    RUNNERS_UP,
    Hit,
    KnowledgeBase,
    RetrievalConfig,
    get_knowledge_base,
    with_better_in_other_language,
)
from tests.knowledge.conftest import QUESTIONS

OFF_TOPIC = [
    "What is the capital of Australia?",
    "Who wrote War and Peace?",
    "Quelle est la recette de la ratatouille ?",
]


@pytest.mark.parametrize("question, source", QUESTIONS)
def test_hybrid_finds_the_right_article(indexed, question: str, source: str) -> None:
    _, kb = indexed
    hits = kb.search(question, top_k=3)
    assert hits, question
    assert hits[0].source == source
    assert all(h.dense_score is not None and h.dense_score >= 0.25 for h in hits)


@pytest.mark.parametrize("mode", ["dense", "bm25"])
def test_single_modes_find_english_articles(indexed, mode: str) -> None:
    _, kb = indexed
    english = [(q, s) for q, s in QUESTIONS if not s.endswith(("passe.md", "ments.md"))]
    found = sum(kb.search(q, top_k=3, mode=mode)[0].source == s for q, s in english if kb.search(q, 3, mode))
    assert found >= len(english) - 1


def test_bm25_matches_french_without_accents_and_inflections(indexed) -> None:
    _, kb = indexed
    hits = kb.search("mots de passe oublies", top_k=2, mode="bm25")  # plural, no accents
    assert hits and hits[0].source == "mot-de-passe.md"


@pytest.mark.parametrize("question", OFF_TOPIC)
def test_off_topic_question_returns_nothing(indexed, question: str) -> None:
    _, kb = indexed
    assert kb.search(question) == []
    assert kb.search(question, mode="dense") == []


def test_min_score_is_on_dense_cosine(indexed) -> None:
    _, kb = indexed
    everything = kb.search("What is the capital of Australia?", top_k=5, min_score=0.0)
    assert len(everything) == 5  # without the bar, something always comes back
    kept = kb.search("How much does the base plan cost?", top_k=10, min_score=0.5)
    assert kept and all(h.dense_score >= 0.5 for h in kept)


def test_runners_up_are_the_chunks_ranked_behind_the_hits(indexed) -> None:
    """What fusion ranked right behind the returned hits (dropped by the bar or cut by top_k) is
    kept for the composer, never mixed into the hits themselves."""
    _, kb = indexed
    question = "How much does the base plan cost?"
    hits = kb.search(question, top_k=2)
    behind = kb.runners_up(question)
    assert hits and behind and len(behind) <= RUNNERS_UP + DENSE_RUNNERS_UP
    assert not {h.id for h in behind} & {h.id for h in hits}
    ranked = kb.search(question, top_k=2 + RUNNERS_UP, min_score=0.0)
    fused = [h.id for h in behind][:RUNNERS_UP]
    assert fused == [h.id for h in ranked if h.id not in {x.id for x in hits}][: len(fused)]
    assert kb.runners_up("A question nobody asked") == []


def test_the_chunks_closest_by_meaning_are_read_even_when_fusion_ranks_them_far(indexed) -> None:
    """Shared words can outvote meaning in fusion; the chunks the encoder alone ranks first then
    join the runners-up (read by the composer, never a hit), unless they are hits already."""
    _, kb = indexed
    for question in ("How much does the base plan cost?", "Can a friend come and train with me?",
                     "How do I cancel my subscription?", "What time does the club open?",
                     "How many guest passes do I get?"):
        hits = kb.search(question, top_k=1)
        qvec = kb.embedder.embed_query(question)
        read = [h.id for h in hits] + [h.id for h in kb.runners_up(question)]
        for closest in [h.id for h in kb.store.query(qvec, DENSE_RUNNERS_UP)]:
            assert closest in read, question
            assert read.count(closest) == 1


def test_hit_fields_and_grouping(indexed) -> None:
    _, kb = indexed
    hits = kb.search("premium plan price", top_k=5)
    top = hits[0]
    assert (top.source, top.title, top.section) == ("plans-and-pricing.md", "Plans and pricing", "Premium plan")
    assert "$20/month" in top.text and top.id == f"{top.source}#{top.chunk_index}"
    assert hits == sorted(hits, key=lambda h: h.score, reverse=True)
    grouped = kb.search("premium plan price", top_k=5, group_by_source=True, min_score=0.0)
    assert len({h.source for h in grouped}) == len(grouped) == 5


def test_bad_inputs(indexed) -> None:
    _, kb = indexed
    assert kb.search("") == [] and kb.search("   ") == []
    long_question = "How much does the base plan cost? " + "blah " * 20000
    assert kb.search(long_question) is not None  # truncated, not a crash
    with pytest.raises(ValueError, match="unknown retrieval mode"):
        kb.search("plans", mode="fuzzy")


def test_asearch_runs_off_the_loop(indexed) -> None:
    _, kb = indexed
    hits = asyncio.run(kb.asearch("How do I cancel my subscription?", 2))
    assert hits and hits[0].source == "cancellation.md"


def test_rrf_config_also_works(indexed) -> None:
    settings, kb = indexed
    rrf = KnowledgeBase(settings, embedder=kb.embedder, store=kb.store,
                        config=RetrievalConfig(fusion="rrf", rrf_k=60))
    assert rrf.search("How can I cancel my subscription?", 1)[0].source == "cancellation.md"


def test_empty_knowledge_base(tmp_path) -> None:
    from knowledge.settings import KnowledgeSettings
    from relais.settings import Settings

    kb = KnowledgeBase(KnowledgeSettings().on(Settings(relais_data_dir=tmp_path / "empty")))
    assert kb.is_empty() and kb.search("base plan") == []


def test_shared_instance_per_settings() -> None:
    assert get_knowledge_base() is get_knowledge_base()


def test_reciprocal_rank_fusion_by_hand() -> None:
    fused = reciprocal_rank_fusion([(["a", "b", "c"], 1.0), (["c", "a"], 0.5)], k=10)
    assert fused["a"] == pytest.approx(1 / 11 + 0.5 / 12)
    assert fused["b"] == pytest.approx(1 / 12)
    assert fused["c"] == pytest.approx(1 / 13 + 0.5 / 11)


def test_convex_combination_by_hand() -> None:
    assert min_max({"a": 2.0, "b": 4.0, "c": 3.0}) == {"a": 0.0, "b": 1.0, "c": 0.5}
    assert min_max({"only": 0.3}) == {"only": 1.0}
    fused = convex_combination([({"a": 0.9, "b": 0.5}, 0.6), ({"b": 10.0, "c": 2.0}, 0.4)])
    assert fused == pytest.approx({"a": 0.6, "b": 0.4, "c": 0.0})


def _hit(id_: str, cosine: float) -> Hit:
    return Hit(f"text {id_}", f"{id_}.md", id_, "", 0, cosine, cosine, None, id_)


def test_an_other_language_article_that_matches_better_is_offered_too() -> None:
    own = [_hit("fr-a", 0.42), _hit("fr-b", 0.34), _hit("fr-c", 0.30)]
    others = [_hit("en-x", 0.50), _hit("fr-a", 0.42), _hit("en-y", 0.45), _hit("en-z", 0.44), _hit("en-w", 0.20)]
    merged = with_better_in_other_language(own, others, top_k=3)
    assert [h.id for h in merged] == ["fr-a", "en-x", "en-y"]  # the best own hit stays first
    assert len([h for h in merged if h.id.startswith("en")]) <= OTHER_LANGUAGE_EXTRA
    roomy = with_better_in_other_language(own, others, top_k=5)
    assert [h.id for h in roomy] == ["fr-a", "fr-b", "fr-c", "en-x", "en-y"]


def test_own_language_hits_stay_alone_when_nothing_elsewhere_matches_better() -> None:
    own = [_hit("fr-a", 0.42), _hit("fr-b", 0.34)]
    others = [_hit("fr-a", 0.42), _hit("en-x", 0.41), _hit("fr-b", 0.34)]
    assert with_better_in_other_language(own, others, top_k=5) == own


def test_simultaneous_first_searches_build_bm25_once(indexed, monkeypatch, tmp_path) -> None:
    import threading

    from knowledge import retrieval

    settings, _ = indexed
    fresh = retrieval.KnowledgeBase(settings, lexical_dir=tmp_path / "bm25")  # no BM25 files yet (a new replica)
    builds: list[int] = []
    build = retrieval.build_lexical_index

    def counted(*args, **kwargs):
        builds.append(1)
        return build(*args, **kwargs)

    monkeypatch.setattr(retrieval, "build_lexical_index", counted)
    start = threading.Barrier(4)
    found: list[object] = []

    def first_search() -> None:
        start.wait()
        found.append(fresh.lexical())

    threads = [threading.Thread(target=first_search) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert len(builds) == 1 and len(found) == 4
    assert all(index is found[0] for index in found)
    assert fresh.search("How much does the base plan cost?")  # the rebuilt index serves


def test_articles_writing_counts_the_documents_holding_a_snippet(indexed) -> None:
    _, kb = indexed
    assert kb.articles_writing("the") >= 3
    assert kb.articles_writing("a snippet no article writes 1234") == 0
