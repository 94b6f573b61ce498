"""`relais eval answers`: fact matching, the fragment rules, and the CLI's JSON shape."""

from __future__ import annotations

import json

import pytest

from knowledge.answer_eval import (
    AnswerCase,
    evaluate_answers,
    load_cases,
    missing_facts,
    offline_answerer,
)
from knowledge.fragments import fragment_reasons
from knowledge.retrieval import Hit
from relais.embeddings import get_embedder

TABLE = "| Plan | Monthly price | Billed annually |\n|---|---|---|\n| Premium | $25/month | $300/year |"
ELIGIBLE = ("## Who is eligible\n\n- You are enrolled full-time at a university, college or school.\n"
            "- You are 16 or older.")
CODE = "Install it:\n\n```python\n@app.route('/health')\ndef health():\n    return 'ok'\n```"


@pytest.mark.parametrize("answer, passages, reason", [
    ("It costs $25 per month. [1]", [], "dangling_pronoun"),
    ("Elle est gratuite, quel que soit votre forfait. [1]", [], "dangling_pronoun"),
    ("C'est le plus rapide. [1]", [], "dangling_pronoun"),
    ("Configurer le champ:\n- Ce champ permet de simuler une réponse. [1]", [], "dangling_pronoun"),
    ("Étapes:\n6. Utilisez le champ Exemple.\n\nCe champ permet de simuler une réponse. [1]", [], "dangling_pronoun"),
    ("Premium $25/month $300/year [1]", [TABLE], "flattened_table_row"),
    ("Base | 2 classes per week [1]", [], "flattened_table_row"),
    ("Full-time students pay half price. Read Student discount. [2]", [], "pointer_only"),
    ("Lisez Remboursements. [1]", [], "pointer_only"),
    ("and you keep access until then [1]", [], "cut_sentence"),
    ("The link is valid for 60 [1]", [], "cut_sentence"),
    ("Tap Book . [1]", [], "markup_artifact"),
    ("Use `@app.route('/health')` [1]", [CODE], "lone_code_line"),
    ("```python\ndef health():\n    return 'ok'\n```\n[1]", [CODE], "lone_code_line"),
    ("```python\n@app.route('/health')\n", [CODE], "lone_code_line"),
    ("From 1 to 3 months a year. Confirm. The request must be made 3 days before. [1]", [], "bare_label"),
    ("Yes. The fastest way. Open Settings > Help > Chat with us. [1]", [], "bare_label"),
    ("Everything in the Base plan, plus: [1]\n\nPremium costs $25. [1]", [], "lead_without_list"),
    ("Base plan, plus:\n- Every club. [1]\n\nBase plan, plus:\n- Every club. [1]", [], "duplicated_line"),
    ("Yes. You are enrolled full-time at a university, college or school. [1]", [ELIGIBLE], "item_without_lead"),
    ("- You are enrolled full-time at a university, college or school. [1]", [ELIGIBLE], "item_without_lead"),
])
def test_each_rule_catches_its_fragment(answer: str, passages: list[str], reason: str) -> None:
    assert reason in fragment_reasons(answer, passages)


@pytest.mark.parametrize("answer, passages", [
    ("Premium costs $25 per month, or $300/year if you pay annually. [1]", [TABLE]),
    ("Premium: $25/month, or $300/year billed annually. [1]", [TABLE]),
    ("Yes. Freezing pauses your payments. It is free on every plan. [1]", []),
    ("Il y a un délai de 14 jours. [1]", []),
    ("To book a class:\n1. Open **Classes**.\n2. Tap **Book** [1]", []),
    ("Add a route:\n\n```python\n@app.route('/health')\ndef health():\n    return 'ok'\n```\n[1]", [CODE]),
    ("Who is eligible:\n- You are enrolled full-time at a university, college or school. [1]", [ELIGIBLE]),
    ("How to freeze:\n3. Confirm. The request must be made 3 days before. [1]", []),
    ("Oui. Open the app. The chat works. Tap Save. [1]", []),
    ("Everything in the Base plan, plus:\n- Every club.\n- Unlimited classes. [1]", []),
    ("Use the `@app.route` decorator on the function. [1]", ["```python\n@app.route\ndef health():\n    return 'ok'\n```"]),
    ("demarche.numerique.gouv.fr conserve les dossiers 12 mois. [1]", []),
    ("Options:\n- `-w, --watch`: Reload on change.\n- `-c, --ci`: Runs in CI mode. [1]", []),  # a flag's letter, not "C'est"
    ("Ajoutez :\n\n```graphql\n  a {\n\n  b\n```\n[1]", ["Ajoutez :\n\n```graphql\n  a {\n  \n  b\n```"]),  # blank line
    ("Étapes:\n6. Utilisez le champ Exemple.\n   - Ce champ permet de simuler une réponse. [1]", []),  # under its step
    # a code span the article's own sentence writes is a name in that sentence, even where a block has it as a line
    ("Firefox:\n5. Add the following inside of `\"policies\": {`:\n```json\n\"policies\": {\n  \"SavePasswords\": false\n}\n```\n[1]",
     ["5. Add the following inside of `\"policies\": {`:\n\n```json\n\"policies\": {\n  \"SavePasswords\": false\n}\n```"]),
    # …and so is a code line the article's prose writes bare
    ("The mic works only if you implemented the @app.on_audio_frame decorator. [1]",
     ["The mic works only if you implemented the @app.on_audio_frame decorator.\n\n```python\n@app.on_audio_frame\n"
      "async def on_frame(frame):\n    pass\n```"]),
])
def test_whole_answers_are_not_fragments(answer: str, passages: list[str]) -> None:
    assert fragment_reasons(answer, passages) == []


def test_fact_matching_is_case_insensitive_and_ignores_emphasis() -> None:
    assert missing_facts("Students pay **$5**/month, HALF the price.", [["$5"], ["50%", "half"]]) == []
    assert missing_facts("Students pay less.", [["$5", "5 dollars"]]) == ["$5 | 5 dollars"]


def test_a_number_and_its_unit_match_however_they_are_typeset() -> None:
    assert missing_facts("Jusqu'à 200Mo par champ.", [["200 mo"]]) == []
    assert missing_facts("Up to 20\u00a0MB each.", [["20mb"]]) == []
    assert missing_facts("L\u2019usager ne peut pas.", [["l'usager ne peut pas"]]) == []
    assert missing_facts("Up to 2000 MB.", [["200 mb"]]) == ["200 mb"]  # another number is another fact


def test_report_counts_facts_fragments_and_relevance(tmp_path) -> None:
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [
        {"question": "price?", "facts": [["$5"], ["half"]]},
        {"question": "off topic?", "facts": [], "expect_found": False},
    ]))
    cases = load_cases(path)
    assert cases[1] == AnswerCase("off topic?", [], False)
    answers = {"price?": ("It costs $5. [1]", True, [], ["a.md"]),
               "off topic?": ("Here is something. [1]", True, [], ["b.md"])}
    report = evaluate_answers(cases, lambda q: answers[q])
    assert report["n"] == 2 and report["fact_recall"] == 0.5
    assert report["fragment_rate"] == 0.5  # the dangling "It"; the off-topic answer reads whole
    assert report["relevance_errors"] == 1
    assert report["answers"][0]["missing"] == ["half"]
    assert set(report["answers"][0]) >= {"question", "answer", "missing"}


def test_bad_line_is_reported_with_its_number(tmp_path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"question": "ok", "facts": []}\n{"facts": []}\n')
    with pytest.raises(ValueError, match="bad.jsonl:2"):
        load_cases(path)


def test_report_gives_both_not_found_error_rates_and_the_markup_rate(tmp_path) -> None:
    cases = [AnswerCase("a?", [["7 days"]]), AnswerCase("b?", [["31 days"]]),
             AnswerCase("off 1?", [], False), AnswerCase("off 2?", [], False)]
    answers = {"a?": ("Sends last 7 days &rarr; then go. [1]", True, [], ["s.md"]),
               "b?": ("I couldn't find this in the knowledge base.", False, [], []),
               "off 1?": ("Open Settings. [1]", True, [], ["x.md"]),
               "off 2?": ("I couldn't find this in the knowledge base.", False, [], [])}
    report = evaluate_answers(cases, lambda q: answers[q])
    assert report["answerable"] == 2 and report["unanswerable"] == 2
    assert report["answerable_declined_rate"] == 0.5 and report["unanswerable_answered_rate"] == 0.5
    assert report["fact_recall"] == 0.5 and report["markup_rate"] == 0.25
    assert [a["expect_found"] for a in report["answers"]] == [True, True, False, False]


def test_the_offline_answer_is_checked_against_its_cited_articles_whole() -> None:
    """The composer reads beyond the hits (the chunk after the best unit): a block quoted whole
    from there is whole, so the fragment check is given the cited articles, not the hits only."""
    opening = Hit("Backups are kept for thirty days, then deleted for good.", "backups.md", "Backups", "", 0, 1.0)
    rest = Hit("To restore one, run:\n\n```bash\nrelais restore --latest\n```", "backups.md", "Backups", "", 1, 0.0)

    class OneArticle:
        embedder = get_embedder("minilm")

        def search(self, question: str) -> list[Hit]:
            return [opening]

        def source_chunks(self, source: str) -> list[Hit]:
            return [opening, rest] if source == "backups.md" else []

    text, found, passages, sources = offline_answerer(OneArticle())("How long are backups kept?")
    assert found and "thirty days" in text and sources == ["backups.md"]
    assert rest.text in passages
