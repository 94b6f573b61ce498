"""RELAIS_EMBEDDING_MODEL=auto: the first ingest picks the encoder by the documents' language and
every later process reads the choice back from the collection."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge.encoder_choice import choose_for_languages, indexed_model, resolve_model
from knowledge.ingest import ingest_folder
from knowledge.retrieval import KnowledgeBase
from knowledge.settings import KnowledgeSettings
from relais.settings import Settings
from tests.knowledge.conftest import write_kb

FRENCH = {
    "resiliation.md": "# Résilier son abonnement\n\nVous pouvez résilier votre abonnement à tout moment "
                      "depuis la page Mon compte. La résiliation prend effet à la fin du mois en cours.\n",
    "horaires.md": "# Horaires d'ouverture\n\nLa salle est ouverte de 6 h à 23 h en semaine, et de 8 h à "
                   "20 h le samedi et le dimanche. Les jours fériés, elle ferme à 18 h.\n",
    "tarifs.md": "# Tarifs\n\nL'abonnement de base coûte 10 € par mois. L'abonnement famille coûte 30 € par "
                 "mois pour quatre personnes d'un même foyer.\n",
}


@pytest.mark.parametrize(
    "languages, expected",
    [
        (["en"] * 10, "minilm"),
        (["fr"] * 10, "use-multilingual"),
        (["fr"] * 6 + ["en"] * 4, "use-multilingual"),
        (["fr"] * 5 + ["en"] * 5, "minilm"),  # half and half: English wins the tie
        (["en"] * 7 + ["fr"] * 3, "minilm"),  # a mostly English base with some French, like the demo
        ([], "minilm"),
    ],
)
def test_choice_by_share_of_non_english_chunks(languages: list[str], expected: str) -> None:
    assert choose_for_languages(languages) == expected


def _settings(tmp_path: Path, **overrides: object) -> KnowledgeSettings:
    return KnowledgeSettings(relais_kb_dir=tmp_path / "kb", **overrides).on(Settings(relais_data_dir=tmp_path / "data"))


def test_a_french_knowledge_base_gets_the_multilingual_encoder_and_keeps_it(tmp_path: Path) -> None:
    folder = tmp_path / "kb"
    folder.mkdir()
    for name, text in FRENCH.items():
        (folder / name).write_text(text, encoding="utf-8")
    settings = _settings(tmp_path)
    assert settings.relais_embedding_model == "auto"
    kb = KnowledgeBase(settings)
    assert kb.embedder.name == "minilm"  # nothing indexed yet
    report = ingest_folder(folder, settings, show_progress=False, kb=kb)
    assert len(report.indexed) == 3
    assert kb.embedder.name == "use-multilingual" and kb.store.embedder == ("use-multilingual", 512)
    assert indexed_model(settings) == resolve_model(settings) == "use-multilingual"

    reopened = KnowledgeBase(settings)  # another process: reads the choice from the collection
    assert reopened.embedder.name == "use-multilingual"
    hits = reopened.search("Comment résilier mon abonnement ?")
    assert hits and hits[0].source == "resiliation.md"
    assert reopened.search("Quelle est la capitale de l'Australie ?") == []
    again = ingest_folder(folder, settings, show_progress=False, kb=reopened)
    assert len(again.skipped) == 3  # same encoder: nothing re-embedded


def test_a_mostly_english_base_keeps_minilm(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    kb = KnowledgeBase(settings)
    ingest_folder(write_kb(tmp_path / "kb"), settings, show_progress=False, kb=kb)
    assert kb.embedder.name == "minilm" and indexed_model(settings) == "minilm"


def test_an_explicit_setting_wins_over_the_documents(tmp_path: Path) -> None:
    folder = tmp_path / "kb"
    folder.mkdir()
    for name, text in FRENCH.items():
        (folder / name).write_text(text, encoding="utf-8")
    settings = _settings(tmp_path, relais_embedding_model="minilm")
    kb = KnowledgeBase(settings)
    ingest_folder(folder, settings, show_progress=False, kb=kb)
    assert kb.embedder.name == "minilm" and resolve_model(settings) == "minilm"
