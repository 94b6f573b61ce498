"""`knowledge.polarity`: a yes/no read from what the sentence says of the asked predicate, or none."""

from __future__ import annotations

import pytest

from knowledge.polarity import answer_polarity
from knowledge.question_kind import asked_action

CLOSED_FR = "Tous les clubs sont fermés le 25 décembre et le 1er janvier."
REFUND_14 = ("Si vous résiliez dans les 14 jours qui suivent votre premier paiement, vous êtes remboursé "
             "intégralement, sans justification.")
NOT_REFUNDED = "Les mensualités ne sont pas remboursées."


@pytest.mark.parametrize("question, sentence, expected", [
    # opposite predicates: no surface negation, and still a "no"
    ("Les clubs sont-ils ouverts le 1er janvier ?", CLOSED_FR, "no"),
    ("Are the clubs open on 1 January?", "All clubs are closed on 25 December and 1 January.", "no"),
    ("Are the clubs closed on 1 January?", "All clubs are closed on 25 December and 1 January.", "yes"),
    ("Is freezing free?", "Freezing costs $5 per month.", "no"),
    ("Do I have to pay to freeze?", "Freezing is free on every plan.", "no"),
    ("Is the meal plan included in Base?", "Meal plans cost $5 extra on the Base plan.", "no"),
    ("Are personal training sessions included in Premium?", "One personal training session a month is included in Premium.", "yes"),
    ("Is a personal trainer included with the Base plan?", "Workout plans are included in every plan, including Base.", None),
    ("Are clubs closed on public holidays?", "All clubs are closed on December 25 and January 1.", None),
    ("Is a doctor's note required?", "A doctor's note is optional.", "no"),
    ("Faut-il réserver les cours ?", "La réservation est obligatoire pour tous les cours.", "yes"),
    ("Dois-je répondre au courriel de confirmation ?", "Il est inutile de répondre à ce courriel.", "no"),
    ("Do I need to restart the router?", "Restarting the router is unnecessary.", "no"),
    ("Ai-je besoin d'un compte pour suivre mon colis ?", "Un compte est facultatif pour suivre un colis.", "no"),
    # negation scope
    ("Is the club open on Sundays?", "The club is not open on Sundays.", "no"),
    ("Le club est-il ouvert le dimanche ?", "Le club n'est pas ouvert le dimanche.", "no"),
    ("Le club ferme-t-il le dimanche ?", "Le club ne ferme pas le dimanche.", "no"),
    ("Is there a fee to quit?", "There is no cancellation fee on monthly plans.", "no"),
    ("Can I pay in cash?", "We don't accept cash or bank transfers.", "no"),
    ("Peut-on payer en espèces ?", "Nous n'acceptons pas les espèces ni les virements.", "no"),
    ("Is phone support available?", "We don't offer phone support.", "no"),
    ("Can I bring my kid to the gym?", "Children under 14 cannot use the gym floor.", "no"),
    ("Can I stop paying for a couple of months while I travel?", "You are not charged.", "yes"),
    ("Do I have to pay during a freeze?", "You are not charged.", "no"),
    ("Will I be charged while my membership is frozen?", "During a freeze you are not charged.", "no"),
    # stated
    ("Can I still do workouts at home while my membership is on hold?",
     "The app keeps working: you can still follow home workout plans and log your progress.", "yes"),
    ("Est-ce que je peux mettre mon abonnement en pause ?",
     "Vous pouvez suspendre votre abonnement jusqu'à trois mois par an, gratuitement.", "yes"),
    ("Do you accept PayPal?", "We accept Visa, Mastercard, PayPal, Apple Pay and Google Pay.", "yes"),
    # not settled: no yes/no
    ("Can I bring my kid to the gym?", "Guests must be 18 or older, bring a photo ID and sign the waiver.", None),
    ("Can I use the app during a freeze?", "You cannot enter the club or book group classes.", None),
    ("Can I talk to a human?", "Open Settings > Help > Chat with us.", None),
    ("Les cours sont-ils gratuits ?", "Les cours collectifs sont inclus dans tous les forfaits.", None),
    ("Is the student discount available on Premium?", "The discount applies to the Base plan only.", None),
    ("Can I get a refund?", "After 14 days, monthly payments are not refunded.", None),  # "no" under a condition
    ("Can I get my money back?", "We do not offer refunds on subscriptions older than 30 days.", None),  # past a limit
    ("Puis-je être remboursé ?", "Aucun remboursement au-delà de 14 jours.", None),
    ("Can I get a refund?", "We do not offer refunds.", "no"),
    ("Puis-je être remboursé si je déménage ?", REFUND_14, None),  # a condition that is not the asked case
])
def test_polarity_of_one_sentence(question: str, sentence: str, expected: str | None) -> None:
    assert answer_polarity(question, sentence) == expected


def test_a_pronoun_sentence_is_read_with_what_it_is_about() -> None:
    assert answer_polarity("Is freezing free?", "It is free on every plan.", context="Freeze your membership") == "yes"
    assert answer_polarity("Can I freeze my membership?", "It is free on every plan.",
                           context="Freeze your membership") is None  # free says nothing of "can I"


def test_an_answer_that_says_both_gets_no_yes_or_no() -> None:
    assert answer_polarity("Puis-je être remboursé ?", NOT_REFUNDED) == "no"
    assert answer_polarity("Puis-je être remboursé ?", NOT_REFUNDED, [NOT_REFUNDED, "Vous êtes remboursé "
                                                                     "intégralement."]) is None
    assert answer_polarity("Puis-je être remboursé ?", "Passé ce délai, les mensualités ne sont pas "
                                                       "remboursées.") is None  # "no" under a condition


def test_stated_hours_say_open() -> None:
    assert answer_polarity("Is the gym open on Sundays?", "Saturday and Sunday: 7:00 a.m. – 9:00 p.m.",
                           context="Gym hours and access. Standard opening hours") == "yes"
    assert answer_polarity("Le club est-il ouvert le dimanche ?", "Samedi et dimanche : 7 h – 21 h.",
                           context="Horaires des clubs. Horaires d'ouverture") == "yes"
    assert answer_polarity("Is the gym open on Sundays?", "Saturday and Sunday: 7:00 a.m. – 9:00 p.m.") is None


def test_stated_hours_of_the_asked_case_undo_a_closed_for_another() -> None:
    closed = "All clubs are closed on December 25 and January 1."
    assert answer_polarity("Are clubs closed on December 25?", closed) == "yes"
    assert answer_polarity("Are clubs closed on December 25?", closed,
                           ["Clubs on December 25: 8:00 a.m. – 6:00 p.m."]) is None


def test_the_asked_case_must_be_named_by_the_sentence() -> None:
    staffed = "The front desk is staffed every day from 8:00 a.m. to 8:00 p.m. Outside those hours the club is open."
    assert answer_polarity("Is the gym open on Christmas Day?", staffed, context="Gym hours and access") is None
    assert answer_polarity("Can I use any club with the Base plan?", "Base: one person, one home club.") is None


def test_a_sentence_that_says_can_for_some_and_cannot_for_others_gives_no_yes_or_no() -> None:
    both = "Teenagers aged 14 to 17 can train in the club. Children under 14 cannot use the gym floor."
    assert answer_polarity("Can I bring my kid to the gym?", both, context="Family plan. Who can join") is None


def test_a_weaker_opposite_sentence_does_not_undo_the_answer() -> None:
    others = [CLOSED_FR, "Certains clubs sont ouverts jour et nuit."]
    assert answer_polarity("Les clubs sont-ils ouverts le 1er janvier ?", CLOSED_FR, others) == "no"


def test_a_second_reading_must_agree_unless_an_opposite_predicate_decided() -> None:
    assert answer_polarity("Do you accept PayPal?", "We accept PayPal.", second_opinion="yes") == "yes"
    assert answer_polarity("Do you accept PayPal?", "We accept PayPal.", second_opinion=None) is None
    assert answer_polarity("Les clubs sont-ils ouverts le 1er janvier ?", CLOSED_FR, second_opinion="yes") == "no"


@pytest.mark.parametrize("question, action", [
    ("Dois-je répondre au mail reçu ?", "repondre"),
    ("Puis-je encore modifier mon dossier ?", "modifier"),
    ("Can I pause my membership?", "pause"),
    ("Do I need to bring an ID?", "bring"),
    ("Is parking free?", ""),  # no modal: no action asked
])
def test_the_action_a_yes_no_question_asks_about_is_the_verb_after_its_modal(question: str, action: str) -> None:
    assert asked_action(question) == action

