"""Nested lists keep their nesting and the source's numbering; a procedure is quoted whole."""

from __future__ import annotations

import pytest

from knowledge.list_context import heading_lead, render_item, whole_steps
from knowledge.passage_units import render_list, units_of

STEPS = ("To delete your account:\n\n1. Open **Settings**.\n3. On **My Account**, scroll down:\n"
         "   - select **Delete Account**\n   - confirm with your password\n4. Check your email.")


def test_a_nested_list_keeps_its_nesting_and_source_numbers() -> None:
    units = units_of(STEPS)
    whole = next(u for u in units if u.kind == "list")
    assert whole.text == ("1. Open Settings.\n3. On My Account, scroll down:\n   - Select Delete Account\n"
                          "   - Confirm with your password\n4. Check your email.")
    assert whole.lead == "To delete your account:"
    step = next(u for u in units if u.kind == "item" and u.text.startswith("Check"))
    assert render_item(step, units, "Delete") == "To delete your account:\n4. Check your email."
    sub = next(u for u in units if u.kind == "item" and u.text.startswith("Confirm"))
    assert render_item(sub, units, "Delete").endswith("\n- Confirm with your password.")


def test_render_list_without_markers_numbers_in_order() -> None:
    assert render_list(["a", "b"], True) == "1. a\n2. b"


class _Hit:
    source, chunk_index = "a.md", 0


class _Candidate:
    def __init__(self, unit):
        self.unit, self.hit = unit, _Hit()


def test_a_how_to_answer_quotes_the_whole_procedure_not_a_middle_step() -> None:
    units = units_of(STEPS)
    candidates = [_Candidate(u) for u in units]
    middle = next(i for i, u in enumerate(units) if u.kind == "item" and u.text.startswith("On My Account"))
    whole = next(i for i, u in enumerate(units) if u.kind == "list")
    assert whole_steps([middle], candidates) == [whole]
    assert whole_steps([middle, whole], candidates) == [whole]


def test_a_passage_opening_inside_a_step_keeps_its_sub_items_apart_from_the_next_step() -> None:
    """The chunker cut the list inside step 5: its last sub-items open the passage. They are not
    sub-items of nothing ahead of step 6 (quoted so, they read as a torn-out, misplaced step)."""
    cut = ("   - Only allowed addresses are accepted.\n   - Government domains are allowed by default.\n"
           "6. Fill in the example field.\n   - It simulates an answer.\n7. Save.")
    units = units_of(cut)
    lists = [u for u in units if u.kind == "list"]
    assert [u.text for u in lists] == [
        "- Only allowed addresses are accepted.\n- Government domains are allowed by default.",
        "6. Fill in the example field.\n   - It simulates an answer.\n7. Save."]
    assert len({u.block for u in lists}) == 2


@pytest.mark.parametrize("section, lead", [
    ("B. Avis", "Avis:"),
    ("2.1. Créer un compte ?", "Créer un compte:"),
    ("IV) Payment", "Payment:"),
    ("i) Choix du public : personnes morales ou particuliers ?", "Choix du public : personnes morales ou particuliers:"),
    ("a) Pièce à joindre", "Pièce à joindre:"),  # GitBook numbers sub-sections in lower case too
    ("Q. A question", "A question:"),
    ("Plan B", "Plan B:"),  # a letter that ends the name is part of it
    ("Only allow users from a specific domain.", "Only allow users from a specific domain:"),  # not "domain.:"
])
def test_a_section_number_or_letter_is_not_part_of_its_lead_in(section: str, lead: str) -> None:
    assert heading_lead(section) == lead
