"""The offline NORMAL/ALTER classifier on held-out EN/FR phrasings, and its examples file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant.intent_classifier import IntentType
from assistant.offline_intent import get_offline_classifier, load_examples
from tests.conftest import REPO_ROOT

HELDOUT = REPO_ROOT / "tests" / "data" / "intents_heldout.jsonl"


def test_heldout_accuracy_at_least_95_percent() -> None:
    rows = [json.loads(line) for line in HELDOUT.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) >= 40
    assert {r["label"] for r in rows} == {"NORMAL", "ALTER"}
    classifier = get_offline_classifier()
    examples = {e.text.lower() for e in classifier.examples}
    assert not any(r["text"].lower() in examples for r in rows), "held-out lines must not be few-shot examples"
    wrong = [r for r in rows if classifier.classify(r["text"]).intent.value != r["label"]]
    accuracy = 1 - len(wrong) / len(rows)
    assert accuracy >= 0.95, f"accuracy {accuracy:.3f}; misclassified: {wrong}"


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("How much does the base plan cost?", IntentType.NORMAL),
        ("Quels sont les horaires du club le dimanche ?", IntentType.NORMAL),
        ("Build muscle, lose fat — suggest a workout plan", IntentType.ALTER),
        ("Réserve-moi une séance avec un coach jeudi soir", IntentType.ALTER),
    ],
)
def test_clear_cases(text: str, intent: IntentType) -> None:
    result = get_offline_classifier().classify(text)
    assert result.intent is intent
    assert (result.score > 0) is (intent is IntentType.ALTER)


def test_examples_file_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_examples(tmp_path / "missing.yaml")
    one_label = tmp_path / "one.yaml"
    one_label.write_text("- {text: hi, label: NORMAL}\n")
    with pytest.raises(ValueError, match="both"):
        load_examples(one_label)
    bad = tmp_path / "bad.yaml"
    bad.write_text("- {text: hi, label: MAYBE}\n")
    with pytest.raises(ValueError, match="#1"):
        load_examples(bad)


def test_swapped_examples_file_changes_the_classifier(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from relais.settings import clear_settings_caches

    travel = tmp_path / "travel.yaml"
    travel.write_text(
        '- {text: "What documents do I need to fly to Japan?", label: NORMAL}\n'
        '- {text: "Is breakfast included in the hotel price?", label: NORMAL}\n'
        '- {text: "Book me a train to Paris on Friday", label: ALTER}\n'
        '- {text: "Reserve a hotel room in Lyon for two nights", label: ALTER}\n'
    )
    monkeypatch.setenv("RELAIS_INTENTS_FILE", str(travel))
    clear_settings_caches()
    classifier = get_offline_classifier()
    assert len(classifier.examples) == 4
    assert classifier.classify("Please book a flight to Rome for me").intent is IntentType.ALTER
