"""`knowledge.list_context`: an item under its lead-in, a list once and whole; labels are not units."""

from __future__ import annotations

from dataclasses import dataclass, field

from knowledge.fragments import fragment_reasons
from knowledge.list_context import MAX_ITEMS, gather_lists, heading_of, render_item
from knowledge.passage_units import Unit, units_of
from knowledge.retrieval import Hit

INCLUDES = """Everything in the Base plan, plus:

- **Access to every Pulse club**, not only your home club.
- **Unlimited group classes** instead of two bookings per week.
- **Two guest passes per month**, so a friend can train with you."""
ELIGIBLE = """- You are enrolled full-time at a university, college or vocational school.
- You are 16 or older."""
STEPS = """1. In the app, go to **Profile > Membership > Freeze membership**.
2. Choose the start month and the number of months.
3. Confirm. The request must be made at least 3 days before your next billing date."""


@dataclass
class Candidate:
    unit: Unit
    hit: Hit
    siblings: list[Unit] = field(default_factory=list)
    order: int = 0
    deciding: bool = False
    pictured: bool = False


def candidates(text: str, section: str, pick) -> list[Candidate]:
    hit = Hit(text, "a.md", "Premium plan", section, 0, 1.0)
    units = units_of(text)
    return [Candidate(u, hit, units, i) for i, u in enumerate(units) if pick(u)]


def test_an_item_is_shown_under_its_section_when_its_list_has_no_lead_in() -> None:
    units = units_of(ELIGIBLE)
    rendered = render_item(units[0], units, "Who is eligible")
    assert rendered == "Who is eligible:\n- You are enrolled full-time at a university, college or vocational school."
    assert fragment_reasons(f"{rendered} [1]", [ELIGIBLE]) == []
    assert "item_without_lead" in fragment_reasons(f"Yes. {units[0].text} [1]", [ELIGIBLE])


def test_a_lead_in_that_points_back_comes_with_the_sentence_it_points_to() -> None:
    text = ("An estimate of the time needed is shown at the bottom of the form. This time depends on the fields:\n\n"
            "- Long fields: 3 minutes.\n- Short fields: 30 seconds.\n")
    units = units_of(text)
    item = next(u for u in units if u.kind == "item" and u.text.startswith("Long"))
    rendered = render_item(item, units, "Filling in a form")
    assert rendered == ("An estimate of the time needed is shown at the bottom of the form. This time depends on the "
                        "fields:\n- Long fields: 3 minutes.")
    assert fragment_reasons(f"{rendered} [1]", [text]) == []
    quoted = {"An estimate of the time needed is shown at the bottom of the form."}
    assert render_item(item, units, "Filling in a form", quoted).startswith("Filling in a form: this time depends")
    alone = units_of("This feature is useful when you want to:\n\n- Switch accounts\n- Log out properly\n")
    first = next(u for u in alone if u.kind == "item")
    assert render_item(first, alone, "Prompt configuration").startswith(
        "Prompt configuration: this feature is useful when you want to:")


def test_a_step_is_shown_whole_with_its_number() -> None:
    units = units_of(STEPS)
    step = next(u for u in units if u.kind == "item" and u.text.startswith("Confirm"))
    assert render_item(step, units, "How to freeze") == (
        "How to freeze:\n3. Confirm. The request must be made at least 3 days before your next billing date.")


def test_a_quoted_lead_in_brings_its_whole_list_once() -> None:
    chosen = candidates(INCLUDES, "What Premium includes",
                        lambda u: u.kind == "sentence" or u.text.startswith("Access"))
    out = gather_lists(chosen)
    assert len(out) == 1 and out[0].unit.kind == "list"
    assert out[0].unit.lead == "Everything in the Base plan, plus:"
    assert out[0].unit.items == ["Access to every Pulse club, not only your home club.",
                                 "Unlimited group classes instead of two bookings per week.",
                                 "Two guest passes per month, so a friend can train with you."]


def test_two_items_of_one_list_become_the_list_and_keep_the_deciding_mark() -> None:
    chosen = candidates(INCLUDES, "", lambda u: u.kind == "item" and not u.text.startswith("Access"))
    chosen[1].deciding = True
    out = gather_lists(chosen)
    assert len(out) == 1 and out[0].unit.kind == "list" and len(out[0].unit.items) == 3 and out[0].deciding


def test_a_long_list_keeps_the_quoted_items_only() -> None:
    text = "Supported:\n\n" + "\n".join(f"- Device number {i} works with the app." for i in range(MAX_ITEMS + 4))
    chosen = candidates(text, "", lambda u: u.kind == "item" and u.text.startswith(("Device number 2 ", "Device number 5 ")))
    out = gather_lists(chosen)
    assert out[0].unit.items == ["Device number 2 works with the app.", "Device number 5 works with the app."]


def test_a_procedure_whose_steps_have_sub_items_is_quoted_whole_with_its_numbers() -> None:
    """Five steps and five sub-items: the sub-items are parts of their steps, not more steps (counted
    as items, the list was "long" and steps 1 and 5 were quoted alone, renumbered 1 and 2)."""
    text = ("1. Open Task Scheduler.\n2. Set the security options:\n   - Use the service account.\n"
            "   - Run whether logged on or not.\n3. Add a trigger:\n   - At startup.\n   - Delay by 1 minute.\n"
            "4. Add an action:\n   - Start the program.\n5. Select OK.")
    chosen = candidates(text, "Start on boot", lambda u: u.kind == "item" and u.text.startswith(("Open", "Select OK")))
    out = gather_lists(chosen)
    assert len(out) == 1 and out[0].unit.text == (
        "1. Open Task Scheduler.\n2. Set the security options:\n   - Use the service account.\n"
        "   - Run whether logged on or not.\n3. Add a trigger:\n   - At startup.\n   - Delay by 1 minute.\n"
        "4. Add an action:\n   - Start the program.\n5. Select OK.")


def test_steps_kept_from_a_long_procedure_keep_their_source_numbers() -> None:
    text = "\n".join(f"{i}. Do step number {i} now." for i in range(1, MAX_ITEMS + 4))
    chosen = candidates(text, "", lambda u: u.kind == "item" and u.text.startswith(("Do step number 2 ", "Do step number 9 ")))
    assert gather_lists(chosen)[0].unit.text == "2. Do step number 2 now.\n9. Do step number 9 now."


def test_one_item_and_prose_are_left_to_the_renderer() -> None:
    chosen = candidates(INCLUDES, "", lambda u: u.text.startswith("Unlimited"))
    chosen += candidates("Premium costs $25 per month.", "", lambda u: True)
    assert [c.unit.text for c in gather_lists(chosen)] == [c.unit.text for c in chosen]


def test_a_lead_in_without_its_list_is_not_quoted() -> None:
    chosen = candidates("Everything in the Base plan, plus:", "", lambda u: True)
    chosen += candidates("Premium costs $25 per month.", "", lambda u: True)
    assert [c.unit.text for c in gather_lists(chosen)] == ["Premium costs $25 per month."]


def test_a_label_is_not_a_quotable_sentence() -> None:
    texts = [u.text for u in units_of("The fastest way. Open **Settings > Help > Chat with us**. Confirm.")]
    assert texts == ["Open Settings > Help > Chat with us."]


def test_a_section_name_that_opens_on_a_pronoun_gives_way_to_the_title() -> None:
    assert heading_of(Hit("", "s.md", "Synchroniser sa montre", "Ça ne synchronise pas ?", 0, 1.0)) == (
        "Synchroniser sa montre")
    assert heading_of(Hit("", "s.md", "Synchroniser sa montre", "Appareils compatibles", 0, 1.0)) == (
        "Appareils compatibles")


def test_the_sentence_that_introduces_a_quoted_code_block_is_not_quoted_twice() -> None:
    text = "Decorate a function with `@task` to make it a task.\n\n```python\n@task\ndef send():\n    pass\n```"
    chosen = candidates(text, "", lambda u: True)
    assert [c.unit.kind for c in chosen] == ["sentence", "code"]
    assert [c.unit.kind for c in gather_lists(chosen)] == ["code"]


DECISIONS = """Each request ends with one of three decisions:

- Accept
- Close without action
- Refuse

A refusal must give its reason."""


def test_one_option_of_a_short_enumeration_brings_the_others() -> None:
    chosen = candidates(DECISIONS, "Decisions", lambda u: u.text == "Close without action")
    out = gather_lists(chosen)
    assert len(out) == 1 and out[0].unit.kind == "list"
    assert out[0].unit.items == ["Accept", "Close without action", "Refuse"]
    assert out[0].unit.lead == "Each request ends with one of three decisions:"


def test_one_condition_of_a_list_of_long_items_stays_alone() -> None:
    text = "To qualify, all of these must hold:\n\n" + ELIGIBLE.replace("You are 16", "You are at least 16 years old on the day you apply")
    chosen = candidates(text, "Who is eligible", lambda u: u.kind == "item" and u.text.startswith("You are enrolled"))
    out = gather_lists(chosen)
    assert len(out) == 1 and out[0].unit.kind == "item"


def test_one_step_of_a_short_procedure_brings_the_whole_procedure() -> None:
    chosen = candidates(STEPS, "How to freeze", lambda u: u.kind == "item" and u.text.startswith("Choose"))
    out = gather_lists(chosen)
    assert len(out) == 1 and out[0].unit.kind == "list" and out[0].unit.numbered
    assert out[0].unit.items[0].startswith("In the app") and out[0].unit.items[2].startswith("Confirm")
    assert fragment_reasons(f"How to freeze:\n{out[0].unit.text} [1]", [STEPS]) == []


def test_a_last_step_announcing_a_screenshot_ends_the_list() -> None:
    steps = STEPS.replace("billing date.", "billing date, which opens this panel:")
    chosen = candidates(steps, "How to freeze", lambda u: u.kind == "item" and u.text.startswith("Choose"))
    text = gather_lists(chosen)[0].unit.text
    assert text.endswith("which opens this panel.")
    assert fragment_reasons(f"How to freeze:\n{text} [1]", [steps]) == []
