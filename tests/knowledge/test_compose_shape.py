"""The composer with `knowledge.polarity` and `knowledge.list_context` hooked in: what a person
walking the help center saw (a wrong "Oui", a lead-in twice and its list cut, items and labels
quoted out of their list)."""

from __future__ import annotations

import pytest

from knowledge.composer import compose
from knowledge.fragments import fragment_reasons
from knowledge.retrieval import Hit
from relais.embeddings import get_embedder

HOURS_FR = """| Jours | Horaires |
|---|---|
| Du lundi au vendredi | 5 h – 23 h |
| Samedi et dimanche | 7 h – 21 h |

Tous les clubs sont fermés le 25 décembre et le 1er janvier. Dernière entrée 30 minutes avant la fermeture."""
INCLUDES = """Everything in the Base plan, plus:

- **Access to every Pulse club**, not only your home club.
- **Unlimited group classes** instead of two bookings per week.
- **Meal plans** built around your calorie target.
- **Two guest passes per month**, so a friend can train with you for a day."""
ELIGIBLE = """- You are enrolled full-time at a university, college or vocational school.
- You are 16 or older.
- You can show a valid student ID card or you have an active school email address."""
CHAT = ("The fastest way. Open **Settings > Help > Chat with us**. The chat is staffed every day from 8:00 a.m. "
        "to 8:00 p.m.; outside those hours you can leave a message.")


def hit(text: str, source: str, title: str, section: str = "", index: int = 0) -> Hit:
    return Hit(text, source, title, section, index, 1.0 - index / 10)


@pytest.fixture(scope="module")
def answer(tmp_path_factory):
    cache = tmp_path_factory.mktemp("emb")
    embedder = get_embedder("minilm")

    def run(question: str, hits: list[Hit]):
        result = compose(question, hits, embedder, cache, not_found="NOT FOUND")
        assert result.found and fragment_reasons(result.text, [h.text for h in hits]) == [], result.text
        return result

    return run


def test_closed_answers_no_to_open(answer) -> None:
    result = answer("Les clubs sont-ils ouverts le 1er janvier ?",
                    [hit(HOURS_FR, "horaires.md", "Horaires des clubs", "Horaires d'ouverture")])
    assert "fermés le 25 décembre" in result.text and not result.text.startswith("Oui")


def test_a_list_answer_shows_its_lead_in_once_and_the_whole_list(answer) -> None:
    result = answer("What's included in Premium that Base doesn't have?",
                    [hit(INCLUDES, "premium.md", "Premium plan", "What Premium includes")])
    assert result.text.count("Everything in the Base plan, plus:") <= 1
    if "Access to every Pulse club" in result.text:
        assert all(item in result.text for item in ("Unlimited group classes", "Meal plans", "Two guest passes"))


def test_an_item_is_quoted_under_its_section(answer) -> None:
    result = answer("Do you offer a discount for university students?",
                    [hit(ELIGIBLE, "student.md", "Student discount", "Who is eligible")])
    assert "enrolled full-time at a university" in result.text
    assert result.text.index("Who is eligible:") < result.text.index("enrolled full-time")
    assert not result.text.startswith("Yes. You are enrolled")


def test_a_label_is_not_quoted(answer) -> None:
    result = answer("Can I talk to a human?", [hit(CHAT, "support.md", "Contact support", "In-app chat")])
    assert "Chat with us" in result.text and "The fastest way" not in result.text


HAND_OVER = ("You can hand your form over to a colleague who is also an administrator. For this, pick the tab "
             "labelled Send a copy in your profile. The colleague must already have an administrator account to "
             "receive the form you hand over. Instructors are added from the groups page. The logo is changed in "
             "the Presentation tab.")
REOPEN = ("Once a decision is made by mistake, you can move the file back to review. Click the status button at "
          "the top right of the screen, then click **Back to review**. The applicant is told by email. Decisions "
          "can carry a justification file.")


def test_a_how_to_answer_keeps_the_sentence_between_two_it_quotes(answer) -> None:
    result = answer("How do I hand my form over to a colleague?",
                    [hit(HAND_OVER, "admin.md", "Administrator guide", "Forms")])
    assert "You can hand your form over" in result.text and "must already have an administrator account" in result.text
    assert "pick the tab labelled Send a copy" in result.text  # not the first and third without the one that acts


def test_a_how_to_answer_goes_on_to_the_instruction_after_its_best_sentence(answer) -> None:
    result = answer("I rejected a file by mistake, how do I undo my decision?",
                    [hit(REOPEN, "review.md", "Reviewing files", "Moving a file back to review")])
    assert "move the file back to review" in result.text
    assert "Click the status button" in result.text and "Back to review" in result.text



DEBUGGING = ("To inspect your bot's handlers step by step, you need the bot's context in the process. In your entry "
             "script add:\n\n```\nif __name__ == \"__main__\":\n    from botkit.cli import serve\n    serve(__file__)\n```"
             "\n\nThen run the script from your editor in debug mode.")
RUNNING = ("Handlers are plain async functions. Finally, we start the bot with `botkit run bot.py` and send a first "
           "message in the editor's terminal. Breakpoints work in any editor that speaks the debug protocol.")


def test_a_then_sentence_brings_the_block_it_follows(answer) -> None:
    """"Then run the script…" goes on the code block above it: quoted without it, it follows nothing."""
    result = answer("How can I launch my bot from my editor so breakpoints in my handlers are hit?",
                    [hit(DEBUGGING, "debugging.md", "Debugging", "Debugging handlers"),
                     hit(RUNNING, "custom.md", "Custom elements", "Running it", 3)])
    assert "Then run the script from your editor" in result.text
    assert "In your entry script add:" in result.text and "serve(__file__)" in result.text
    assert result.text.index("serve(__file__)") < result.text.index("Then run the script")


def test_a_sentence_stating_no_amount_is_padding_beside_the_one_that_does(answer) -> None:
    """"How much money…?" answered by "…about $90 per year": another page's advice states no amount."""
    advice = ("Families who swim every week at the city pools often buy a yearly pass. A family that swims every "
              "week should get the yearly pass.")
    result = answer("How much money does a family that swims every week save with a yearly pass?",
                    [hit(advice, "passes.md", "Passes", "Family swimming"),
                     hit("A yearly pass saves a family about $90 per year.", "survey.md", "Survey", "Findings", 1)])
    assert "$90 per year" in result.text and "should get the yearly pass" not in result.text
