"""Pointers inside quotable units (knowledge.pointers.strip_pointers): the pointer goes, the
statement stays, and nothing dangling is left behind."""

from __future__ import annotations

import pytest

from knowledge.pointers import strip_pointers


@pytest.mark.parametrize(("text", "expected"), [
    # the pointer was the sentence's main clause: its lead-in alone goes too
    ("Items are grouped. For more information, see [Folders](folders.md).", "Items are grouped."),
    ("If you don't know your password, see [I forgot](forgot.md). Otherwise reset it.", "Otherwise reset it."),
    ("It cannot be reset. For our technical users, see the article on [Encryption](e.md) to learn how.",
     "It cannot be reset."),
    ("Pour plus d'informations, consultez [la FAQ](faq.md).", ""),
    ("Une fois connecté, voir [Mon compte](compte.md). Le dossier reste en ligne.", "Le dossier reste en ligne."),
    # a statement before the pointer stays
    ("You can export your vault, see [Export](export.md).", "You can export your vault."),
    ("In the Admin Console, select Settings; see Policies.", "In the Admin Console, select Settings."),
    ("If you use SSO, select Log in with SSO, see [SSO](sso.md).", "If you use SSO, select Log in with SSO."),
    # a parenthesised pointer holding a link goes whole, its closing parenthesis too
    ("To enable it, go to Settings (see [Policies](policies.md)).", "To enable it, go to Settings."),
    ("Sends expire after 7 days (see Send lifespan).", "Sends expire after 7 days."),
    ("MSPs manage clients from the Provider Portal. Learn more here.", "MSPs manage clients from the Provider Portal."),
    ("Audits run yearly. For more information, please see the blog post Audit 2020.", "Audits run yearly."),
    ("Pour plus de détails, veuillez consulter [la FAQ](faq.md). Le dossier reste en ligne.", "Le dossier reste en ligne."),
    ("Sync runs hourly (please see [Sync](sync.md)).", "Sync runs hourly."),
])
def test_a_pointer_goes_and_leaves_no_fragment(text: str, expected: str) -> None:
    assert strip_pointers(text) == expected


def test_text_without_a_pointer_is_unchanged() -> None:
    text = "For example, a Send can be opened 3 times."
    assert strip_pointers(text) == text


def test_items_and_lists_under_a_pointer_lead_in_are_pointers() -> None:
    from knowledge.passage_units import units_of
    from knowledge.pointers import is_pointer

    units = units_of("Audits run yearly.\n\nRead more:\n- [Security FAQs](faqs.md)\n"
                     "- [Security and Compliance Assessments, Reviews, PenTesting](#audits)\n\n"
                     "Steps:\n- Open the Admin Console\n- Select Reports\n")
    pointed = [u for u in units if u.kind in ("item", "list") and "Security" in u.text]
    steps = [u for u in units if u.kind in ("item", "list") and "Admin Console" in u.text]
    assert pointed and all(is_pointer(u) for u in pointed)
    assert steps and not any(is_pointer(u) for u in steps)
