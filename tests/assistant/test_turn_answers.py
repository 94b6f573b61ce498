"""With a model configured, `relais eval answers` scores the model's answers: the model gets the
same cleaned context as the app's turn (templated Markdown read as prose, the "not found" gate
applied), and its text goes through the same fact and fragment rules. The model is the scripted
fake: no network."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.orchestrator import Orchestrator
from assistant.settings import AssistantSettings
from assistant.turn_answers import turn_answerer
from knowledge.answer_eval import AnswerCase, evaluate_answers
from knowledge.fragments import has_markup
from knowledge.settings import KnowledgeSettings
from relais.retry import RetryPolicy
from relais.settings import Settings
from relais.testing import ScriptedChatModel
from tests.conftest import REPO_ROOT

ARTICLES = {
    "unlock-with-pin.md": (
        "---\ntitle: Unlock with PIN\ncategory: account\n---\n\n"
        "You can set a PIN code to unlock the app on your phone.\n\n"
        "{% callout warning %}\nAfter **five failed** PIN attempts, the app logs you out of your account."
        "\n{% endcallout %}\n\n"
        "To set it, open **Settings** &rarr; **Security** and choose **Unlock with PIN**.<br>\n"
    ),
    "export-vault.md": (
        "---\ntitle: Export your vault\n---\n\n"
        "Exports are written as `.json` or `.csv` files. Attachments are not included in an export.\n"
    ),
}


@pytest.fixture(scope="module")
def helpcenter(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """A two-article help center written as Jekyll templates, indexed once."""
    from knowledge.ingest import ingest_folder

    root = tmp_path_factory.mktemp("turn-answers")
    kb_dir = root / "kb"
    kb_dir.mkdir()
    for name, text in ARTICLES.items():
        (kb_dir / name).write_text(text, encoding="utf-8")
    settings = AssistantSettings(enable_orchestrator=False, relais_intents_file=REPO_ROOT / "data" / "intents" / "examples.yaml").on(Settings(relais_data_dir=root / "data"))
    ingest_folder(kb_dir, KnowledgeSettings().on(settings.kit), show_progress=False)
    return settings


def _orchestrator(settings: Settings, model: ScriptedChatModel) -> Orchestrator:
    from knowledge.retrieval import KnowledgeBase

    return Orchestrator(settings=settings, model=model, knowledge_base=KnowledgeBase(KnowledgeSettings().on(settings.kit)),
                        model_resolved=True, retry=RetryPolicy.no_wait(1))


def test_the_model_reads_clean_context_and_its_answers_are_scored(helpcenter: Settings) -> None:
    model = ScriptedChatModel([
        "After five failed attempts the app logs you out [1].",
        "Yes, attachments are included [1].",  # wrong on purpose: the eval must see the missing fact
    ])
    cases = [
        AnswerCase("How many wrong PIN entries before the app signs me out?", [["five failed", "5 failed"]]),
        AnswerCase("Are attachments part of an export?", [["not included"]]),
    ]
    report = evaluate_answers(cases, turn_answerer(_orchestrator(helpcenter, model)))

    prompts = model.prompt_texts()
    assert len(prompts) == 2
    assert "five failed" in prompts[0] and "Security" in prompts[0]
    context = prompts[0].split("Context:", 1)[1]
    assert not has_markup(context), context  # no {% callout %}, &rarr; or <br> reaches the model
    assert report["fact_recall"] == 0.5
    assert [row["missing"] for row in report["answers"]] == [[], ["not included"]]
    assert report["answerable_declined_rate"] == 0.0


def test_a_subject_the_base_never_names_gives_the_model_no_passage(helpcenter: Settings) -> None:
    model = ScriptedChatModel(["I could not find this in the knowledge base."])
    cases = [AnswerCase("How do I unlock my Norton Password Manager with a PIN?", [], expect_found=False)]
    report = evaluate_answers(cases, turn_answerer(_orchestrator(helpcenter, model)))

    context = model.prompt_texts()[0].split("Context:", 1)[1]
    assert "(no relevant passage found)" in context and "PIN attempts" not in context
    assert report["unanswerable_answered_rate"] == 0.0 and report["answers"][0]["sources"] == []


def test_an_answer_in_the_model_path_is_checked_for_fragments(helpcenter: Settings) -> None:
    model = ScriptedChatModel(["It logs you out {% endcallout %} [1]."])
    cases = [AnswerCase("How many wrong PIN entries before the app signs me out?", [["logs you out"]])]
    report = evaluate_answers(cases, turn_answerer(_orchestrator(helpcenter, model)))
    assert report["fact_recall"] == 1.0 and report["answerable_declined_rate"] == 0.0
    assert "markup_artifact" in report["answers"][0]["fragments"] and report["markup_rate"] == 1.0


def test_an_empty_base_is_an_error_not_a_decline(tmp_path: Path) -> None:
    settings = AssistantSettings().on(Settings(relais_data_dir=tmp_path / "empty"))
    answer = turn_answerer(Orchestrator(settings=settings, model=ScriptedChatModel(["x"]), model_resolved=True,
                                        retry=RetryPolicy.no_wait(1)))
    with pytest.raises(RuntimeError, match="relais ingest"):
        answer("How much is premium?")  # an empty base is an error, not a "not found"
