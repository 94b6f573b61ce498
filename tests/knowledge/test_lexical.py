from __future__ import annotations

from pathlib import Path

from knowledge.lexical import LexicalIndex, LexicalParams, analyse, analyse_query

TEXTS = [
    ("en", "The base plan costs ten dollars per month"),
    ("fr", "Résiliation de l'abonnement en ligne depuis les paramètres"),
    ("en", "Gym opening hours and group classes"),
    ("en", "Monthly invoices list every dollar you paid"),
]


def _index(params: LexicalParams | None = None) -> LexicalIndex:
    return LexicalIndex.build([f"c{i}" for i in range(len(TEXTS))], [t for _, t in TEXTS],
                              [lang for lang, _ in TEXTS], params)


def test_analysis_stems_and_folds_accents() -> None:
    assert analyse("Les abonnements résiliés", "fr") == analyse("abonnement resilies", "fr")
    assert analyse("Réinitialisation", "fr") == analyse("reinitialisation", "fr")
    assert analyse("The plans cost", "en") == ["plan", "cost"]


def test_query_is_analysed_in_every_index_language() -> None:
    tokens = analyse_query("résilier abonnements", ["en", "fr"])
    assert set(analyse("résilier abonnements", "fr")) <= set(tokens)
    assert "the" not in analyse_query("the abonnement", ["en", "fr"])


def test_search_mixed_languages() -> None:
    index = _index()
    assert index.search("how much is the base plan", 2)[0][0] == 0
    assert index.search("resilier mon abonnement", 2)[0][0] == 1
    assert index.search("xyzzy", 3) == []


def test_feedback_expansion_brings_related_documents() -> None:
    plain = {row for row, _ in _index().search("base plan", 4)}
    expanded = {row for row, _ in _index(LexicalParams(prf_docs=1, prf_terms=8)).search("base plan", 4)}
    assert plain == {0}
    assert {0, 3} <= expanded  # "dollar"/"month" from the top document reach the invoices text


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    index = _index(LexicalParams(k1=0.9, b=0.4))
    index.payloads = [{"id": f"c{i}"} for i in range(len(TEXTS))]
    target = tmp_path / "lexical"
    index.save(target)
    index.save(target)  # overwrite in place
    loaded = LexicalIndex.load(target)
    assert loaded is not None
    assert loaded.ids == index.ids and loaded.params == index.params and loaded.fingerprint == index.fingerprint
    assert loaded.payloads == index.payloads
    assert loaded.search("gym classes", 1) == index.search("gym classes", 1)
    assert LexicalIndex.load(tmp_path / "missing") is None
