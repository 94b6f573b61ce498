"""Answer-type matching: what kind of fact a question asks, whether a unit states one, and how
the composer uses it (typed units preferred, whole articles searched for them, days as sets)."""

from __future__ import annotations

import pytest

from knowledge.answer_types import (
    AGE,
    BENEFIT,
    CHOICES,
    CONTACT,
    DATE,
    DEFAULT,
    DURATION,
    FREQUENCY,
    IDENTIFIER,
    MONEY,
    NAME,
    PLACE,
    QUANTITY,
    REQUIREMENT,
    TIME,
    VERSION,
    asked_types,
    days_named,
    states_type,
)
from knowledge.composer import compose
from knowledge.fragments import fragment_reasons
from knowledge.question_kind import polarity, states_polarity
from knowledge.retrieval import Hit
from relais.embeddings import get_embedder


@pytest.mark.parametrize("question, kind", [
    ("How much is a yearly pass for the museum?", MONEY),
    ("Combien coûte la location d'un kayak ?", MONEY),
    ("What time does the pool close?", TIME),
    ("À quelle heure ouvre la bibliothèque ?", TIME),
    ("How long does a passport renewal take?", DURATION),
    ("Sous quel délai la carte est-elle envoyée ?", DURATION),
    ("How old must a child be to ride alone?", AGE),
    ("How often is the filter replaced?", FREQUENCY),
    ("Where can I find my tickets?", PLACE),
    ("Dans quelle ville est le siège ?", PLACE),
    ("How many books can I borrow?", QUANTITY),
    ("What is the largest photo I can upload to my profile?", QUANTITY),  # a size: any stated number
    ("Quelle taille maximale pour une pièce jointe ?", QUANTITY),
    ("Quel poids minimal pour un colis ?", QUANTITY),
    ("What do I get when my neighbour signs up?", BENEFIT),
    ("Combien d'argent fait-on économiser avec le prélèvement ?", MONEY),  # an amount saved is an amount
    ("How much do I save with the yearly plan?", MONEY),
    ("On which page do I redeem a gift card?", PLACE),  # a page: its address or menu path
    ("Sur quelle page puis-je suivre ma commande ?", PLACE),
    ("Is the new sync switched on by default?", DEFAULT),
    ("Is it enabled out of the box?", DEFAULT),
    ("Quelle est la valeur par défaut du délai ?", DEFAULT),
])
def test_asked_types(question: str, kind: str) -> None:
    assert kind in asked_types(question)


@pytest.mark.parametrize("question", [
    "What is the longest a shared link can stay open before it is removed?",
    "What's the shortest time I can pause my plan for?",
    "What is the maximum lifetime of an invitation?",
    "Combien de jours au plus tard avant l'échéance ?",
    "Pendant quelle période le lien reste-t-il le plus longtemps valable ?",
])
def test_a_longest_or_shortest_span_is_asked_as_a_duration(question: str) -> None:
    assert asked_types(question) == {DURATION}


def test_the_longest_thing_that_is_not_a_span_is_not_a_duration() -> None:
    assert DURATION not in asked_types("What is the longest password I can use?")
    assert DURATION not in asked_types("Which is the longest river in the region?")


def test_how_to_pay_is_not_how_much() -> None:
    """"Ways to pay" asks for the means (cards, PayPal), not for an amount."""
    assert MONEY not in asked_types("What ways to pay do you take for online orders?")
    assert MONEY not in asked_types("Which payment methods are accepted at the ticket office?")
    assert MONEY not in asked_types("Quels moyens de paiement acceptez-vous pour la cantine ?")
    assert MONEY in asked_types("Can I pay for the course in cash?")
    assert MONEY in asked_types("How much do I pay by card?")


def test_a_delay_question_does_not_ask_for_an_amount() -> None:
    assert asked_types("How long until the refund reaches my bank?") == {DURATION}
    assert asked_types("When do I pay in a short month?") == frozenset()  # "when", not "how much"
    assert asked_types("Which phone systems run the app?") == frozenset()  # a phone is not a contact
    assert asked_types("How do I reset my router?") == frozenset()


@pytest.mark.parametrize("text, kind", [
    ("A day ticket costs $12.", MONEY), ("Le billet coûte 12 €.", MONEY), ("Members get 20% off.", MONEY),
    ("It is free for children.", MONEY), ("Closes at 9:30 p.m.", TIME), ("Ouvert de 7 h à 21 h.", TIME),
    ("Allow 5 to 10 business days.", DURATION), ("Comptez deux semaines.", DURATION),
    ("Riders must be 12 or older.", AGE), ("The filter is replaced every 3 months.", FREQUENCY),
    ("Open Account > Orders > Tickets.", PLACE), ("Stored in Dublin, Ireland.", PLACE),
    ("Go to shop.example.org/#/gift-cards.", PLACE), ("Rendez-vous sur https://exemple.fr/suivi.", PLACE),
    # a help center's places are in the app: a menu path with arrows, any address scheme, a named screen
    ("Phone app: Settings → Privacy → Hide Previews", PLACE), ("Open Profile › Billing.", PLACE),
    ("Enter `edge://settings/profiles` in the address bar.", PLACE),
    ("In Firefox, open the menu.", PLACE),
    # a directory on disk answers "where are the backups kept?"
    ("These backups are kept in the `./bwdata/mssql/backups` directory.", PLACE),
    ("Copy it to /usr/local/share/ca-certificates/ first.", PLACE),
    ("The `.jsx` file should be placed in `public/elements/ELEMENT_NAME.jsx`.", PLACE),
    ("By default, new apps are OFF for everyone.", DEFAULT), ("This feature is opt-in.", DEFAULT),
    ("`timeout` (int), default `60`: seconds to wait.", DEFAULT), ("Lock (default). Locking keeps…", DEFAULT),
    ("Le délai est de 3 jours par défaut.", DEFAULT),
])
def test_states_type(text: str, kind: str) -> None:
    assert states_type(text, {kind})


def test_a_frequency_is_how_often_not_once_something_is_done() -> None:
    """"Once you have…" and "Une fois la fonctionnalité activée" say "as soon as", and stated no
    frequency when a frequency was asked; a rank within the period ("every third Tuesday") does."""
    for text in ("Webinars take place every third Tuesday of the month.", "Chaque troisième mardi du mois.",
                 "Backups run once a week.", "Le rapport est envoyé une fois par an.", "Run it twice a day."):
        assert states_type(text, {FREQUENCY}), text
    for text in ("Once you have logged in, open the Settings tab.",
                 "Une fois la fonctionnalité activée, un onglet apparaît."):
        assert not states_type(text, {FREQUENCY}), text


def test_since_when_asks_a_calendar_date_which_a_unit_states() -> None:
    assert DATE in asked_types("Must new keys be limited to some addresses? Since when?")
    assert DATE in asked_types("À partir de quelle date le jeton doit-il être restreint ?")
    assert DATE not in asked_types("Until when can I cancel?")  # a delay
    for text in ("Tous les jetons créés à partir du 1er juillet 2026 doivent être restreints.",
                 "Keys made on July 1, 2026 or later are restricted.", "Released on 2021-09-21.",
                 "Audited in 2019 by an outside firm."):
        assert states_type(text, {DATE}), text
    assert not states_type("The key costs 2020 credits and you may renew it.", {DATE})


def test_a_default_named_as_a_thing_is_no_question_about_defaults() -> None:
    assert DEFAULT not in asked_types("Where do I change the default avatar?")
    assert not states_type("The default avatar is the favicon.", {DEFAULT})


def test_a_screen_named_in_passing_or_french_quotes_are_no_place() -> None:
    assert not states_type("Get your code from the Two-step Login screen right after set-up.", {PLACE})
    assert not states_type("Tap the settings and save.", {PLACE})
    assert not states_type("It is kept in your account.", {PLACE})
    assert not states_type("Pay 10/20 of the fee and/or the rest later.", {PLACE})
    assert not states_type("Note: The `@/components/ui` imports are from Shadcn.", {PLACE})
    assert not states_type("« Envoyer » puis « Valider ».", {PLACE})  # French quotes are no menu path


def test_which_call_asks_for_code_not_for_a_phone_number() -> None:
    assert asked_types("Which call turns the pickers on?") == {IDENTIFIER}
    assert asked_types("What API call renders a PDF?") == {IDENTIFIER}
    assert CONTACT in asked_types("Can I call the office on Sundays?")
    assert CONTACT in asked_types("Is there a number I can call?")


def test_naming_a_thing_is_no_call_and_which_address_to_write_to_is_a_contact() -> None:
    assert CONTACT not in asked_types("Users see a Spanish readme: what do I call that file?")
    assert CONTACT in asked_types("Can I call them on Sunday?")  # people, not a thing named
    assert CONTACT in asked_types("Je voudrais écrire au délégué. À quelle adresse électronique ?")
    assert CONTACT in asked_types("Quelle adresse de courriel utiliser pour le support ?")
    # an address of one's own named in passing asks for none
    assert CONTACT not in asked_types("Vaut-il mieux ouvrir le compte avec mon adresse mail à mon nom ?")


def test_the_kind_of_fact_is_read_from_the_sentence_that_asks_not_from_the_situation() -> None:
    assert asked_types("Mon dossier a été accepté et je ne peux plus écrire au service. Pourquoi ?") == frozenset()
    assert asked_types("I named my sister as my emergency contact. Do I have to set her up again?") == frozenset()
    assert asked_types("Our plan costs too much for us. Where in the settings do I cancel it?") == {PLACE}
    # a question without a situation, or with no sentence ending on "?", is read whole
    assert CONTACT in asked_types("Can I call the office on Sundays?")
    assert CONTACT in asked_types("Tell me which phone number to call. I am locked out")


def test_how_much_a_thing_does_is_a_measure_not_a_price() -> None:
    assert asked_types("How big are the chunks, and how much do they overlap?") == {QUANTITY}
    assert asked_types("How much does the plan cost per user?") == {MONEY}
    assert asked_types("How much is the Families plan?") == {MONEY}


def test_an_age_the_question_states_gives_way_to_what_it_counts() -> None:
    assert asked_types("Pour le pass des 15-17 ans, combien de demandes la ville a-t-elle reçues ?") == {QUANTITY}
    assert asked_types("How many accounts can a 12-year-old have?") == {QUANTITY}
    assert asked_types("My son is 12 years old, can he have an account?") == {AGE}
    assert AGE in asked_types("Quel âge minimum faut-il avoir pour ouvrir 3 comptes ?")


def test_a_french_article_is_not_a_number_and_a_capital_a_is_not_a_place() -> None:
    assert not states_type("Personne ne peut vous aider pour un problème d'accès.", {TIME, DURATION, QUANTITY})
    assert not states_type("Tap a payment to download a PDF invoice.", {PLACE})
    assert not states_type("Open the app and tap Book.", {MONEY, TIME, DURATION})


def test_days_are_read_as_sets() -> None:
    weekdays = frozenset(range(5))
    assert days_named("À quelle heure ouvre la piscine en semaine ?") == weekdays
    assert days_named("Du lundi au vendredi : 6 h – 22 h") == weekdays
    assert days_named("Monday to Friday: 6:00 a.m. – 10:00 p.m.") == weekdays
    assert days_named("Saturday and Sunday: 8 a.m. – 6 p.m.") == {5, 6}
    assert days_named("How late is it open at weekends?") == {5, 6}
    assert days_named("Friday to Monday") == {4, 5, 6, 0}
    assert days_named("Open the app to book.") == frozenset()


def test_a_negation_bears_on_the_rest_of_its_clause() -> None:
    """"do not currently support this type of auto-fill" says no about filling, five words on."""
    assert states_polarity("Will my phone fill in my card number?",
                           "Phones do not currently support this type of auto-fill function.")
    assert not states_polarity("Will my phone fill in my card number?",
                               "Phones do not sync at night, but they fill in card numbers.")


def test_polarity_about_what_was_asked() -> None:
    assert states_polarity("Can I pay for the course in cash?", "We don't accept cash or cheques.")
    assert states_polarity("Is there a fee to leave the club?", "There is no exit fee on monthly plans.")
    assert states_polarity("Can I stop paying while abroad?", "You are not charged during a pause.")
    assert not states_polarity("Can I pay in cash?", "To change your card, open Settings.")
    # "no need to", "inutile de" say no about what follows them
    assert states_polarity("Dois-je répondre au courriel ?", "Il est inutile de répondre au courriel.")
    assert polarity("Dois-je répondre au courriel ?", "Il est inutile de répondre au courriel.") == "no"
    assert states_polarity("Do I have to restart the app?", "It is unnecessary to restart the app.")
    assert polarity("Do you charge extra if a payment fails?", "There is no late fee.") == "no"
    # a sentence about another case than the asked one gives no yes/no
    assert polarity("Suis-je remboursé si j'arrête la première semaine ?",
                    "Passé ce délai, les mensualités ne sont pas remboursées.") is None


def hit(text: str, source: str, title: str, section: str = "", index: int = 0, score: float = 1.0) -> Hit:
    return Hit(text, source, title, section, index, score)


class ArticleKB:
    """Whole articles by path and title: what the composer asks a knowledge base for."""

    def __init__(self, chunks: list[Hit]) -> None:
        self.chunks = chunks

    def source_chunks(self, source: str) -> list[Hit]:
        return [c for c in self.chunks if c.source == source]

    def source_titles(self) -> dict[str, str]:
        return {c.title.lower(): c.source for c in self.chunks}


@pytest.fixture(scope="module")
def answer(tmp_path_factory):
    cache = tmp_path_factory.mktemp("emb")
    embedder = get_embedder("minilm")

    def run(question: str, hits: list[Hit], kb=None, **kwargs):
        result = compose(question, hits, embedder, cache, kb=kb, not_found="NOT FOUND", **kwargs)
        passages = [h.text for h in hits] + ([c.text for c in kb.chunks] if kb else [])
        assert not result.found or fragment_reasons(result.text, passages) == [], result.text
        return result

    return run


POOL = [
    hit("The municipal pool welcomes swimmers of every level, from beginners to training clubs.",
        "pool.md", "Municipal pool", "", 0),
    hit("| Days | Hours |\n|---|---|\n| Monday to Friday | 6:30 a.m. – 9:00 p.m. |\n"
        "| Saturday and Sunday | 8:00 a.m. – 7:00 p.m. |", "pool.md", "Municipal pool", "Opening hours", 1),
    hit("Lifeguards watch the pool at all times. Children under 8 must be with an adult in the water.",
        "pool.md", "Municipal pool", "Safety", 2),
    hit("Lockers take a coin, which you get back. Towels can be rented at the desk.", "pool.md",
        "Municipal pool", "Lockers", 3),
]


def test_the_row_of_the_asked_days_is_found_in_a_chunk_retrieval_missed(answer) -> None:
    """Retrieval returned the article's lockers chunk and its opening; the hours table is in
    neither, nor next to the top hit. A time question searches the article for units that state
    a time, and the weekday row wins over the weekend one."""
    result = answer("Until what time can I swim on weekdays?", [POOL[3], POOL[0]], kb=ArticleKB(POOL), max_units=1)
    assert "9:00 p.m." in result.text and "Saturday" not in result.text, result.text
    result = answer("Until what time can I swim on Sunday?", [POOL[3], POOL[0]], kb=ArticleKB(POOL), max_units=1)
    assert "7:00 p.m." in result.text, result.text


BOOKING = ("Courts can be booked 10 days ahead in the app. At the club, show your booking code at the desk; "
           "your court is held until 10 minutes after the start, then it may go to someone waiting. "
           "Rackets can be borrowed for free.")


def test_the_clause_that_states_the_asked_duration_is_read_on_its_own(answer) -> None:
    result = answer("If I am late, how long is my court kept?", [hit(BOOKING, "courts.md", "Courts")], max_units=1)
    assert "10 minutes after the start" in result.text, result.text


REFERRAL = [
    hit("If you only need a break, you can pause your subscription for up to two months, and keep your price.",
        "cancel.md", "Cancel your subscription", "", 0),
    hit("Pausing stops your subscription for a while. You are not charged during a pause. Your access "
        "ends until the pause is over.", "pause.md", "Pause your subscription", "", 0),
]


def test_an_article_named_by_the_best_sentence_is_searched(answer) -> None:
    """The best sentence names another article by its title ("pause your subscription"); that
    article says the asked fact ("not charged")."""
    result = answer("Can I stop paying for a while when I travel?", [REFERRAL[0]], kb=ArticleKB(REFERRAL))
    assert "not charged" in result.text, result.text


def test_an_item_that_is_only_an_article_title_is_not_a_candidate() -> None:
    """A "Related articles" list once links were dropped at ingest: its items are pointers."""
    from knowledge.composer import _titles, _units

    chunks = [hit("Invoices are in Account > Billing.\n\nRelated articles:\n\n- Cancel your subscription\n"
                  "- Refunds for annual plans", "billing.md", "Billing", "", 0),
              hit("You can cancel at any time.", "cancel.md", "Cancel your subscription", "", 0)]
    texts = [c.unit.text for c in _units([(chunks[0], 0.0)], set(), titles=_titles(ArticleKB(chunks)))]
    assert "Invoices are in Account > Billing." in texts and "Refunds for annual plans" in texts
    assert "Cancel your subscription" not in texts


@pytest.mark.parametrize("question", [
    "Which decorator runs my code when a session opens?",
    "Which environment variable holds the signing key?",
    "Which option of the serve command turns on hot reload?",
    "What file names does the theme expect for its icons?",
    "Which method pushes partial output to the page?",
    "À quelle URL faut-il envoyer les requêtes ?",
    "Avec quel verbe HTTP appeler le service ?",
    "Which GraphQL mutation closes a ticket?",
    "Quelle mutation utiliser pour clore un ticket ?",
    "Quelle variable dois-je passer pour inclure les tickets archivés ?",
    "Quel argument passer pour obtenir la page suivante ?",
    "Which setting turns the cache on, and in which file?",
    "Dans quel fichier faut-il mettre la clé ?",
    "What object do I create with the server's address?",
    "Which login prompt value lets users pick another account?",
    "My app fails at startup with a missing module. Which package do I have to install myself?",
    "Which npm package is meant for a React frontend?",
    "What do I pass to the backup command so the archive comes out compressed?",
    "What do I put in the item's address so it points at the mobile app?",
    "Readers in Spanish should get their own welcome page. What do I call that file?",
    "Which theme variable sets the font of the headings?",
])
def test_a_question_asking_for_a_name_in_code_asks_an_identifier(question: str) -> None:
    assert IDENTIFIER in asked_types(question)


@pytest.mark.parametrize("question", [
    "What payment methods do you accept?", "Which class should I join as a beginner?",
    "What options do I have to pay?", "Which settings page shows my plan?", "Quelle classe pour mon enfant ?",
    "Which file formats can I import?", "Which file type should my export be?", "Quel fichier au format PDF joindre ?",
    "What value does the Premium plan add?", "Which package should I buy for my family?",
    "What do I need to bring to my first class?", "What do I get when a friend joins?",
])
def test_everyday_options_and_classes_are_not_asked_as_code(question: str) -> None:
    assert IDENTIFIER not in asked_types(question)


def test_where_something_comes_from_asks_a_cause_not_a_place() -> None:
    assert PLACE not in asked_types("Our threads carry tags we never added. Where do they come from, and how do I "
                                    "turn that off?")
    assert PLACE not in asked_types("Where does this charge come from?")
    assert PLACE in asked_types("Where do I find my invoices?")
    assert PLACE in asked_types("Where do the nightly backups sit on the host?")


@pytest.mark.parametrize("text, expected", [
    ("Use `on_start` for this.", True), ("Set APP_SIGNING_KEY first.", True), ("Run it with --reload.", True),
    ("Call ui.stream( with each piece.", True), ("Put icon_dark.png in the public folder.", True),
    ("Send a POST request.", True), ("Open the Settings tab.", False), ("Read it - then decide.", False),
])
def test_a_unit_states_an_identifier_when_it_writes_a_name_as_code(text: str, expected: bool) -> None:
    assert states_type(text, {IDENTIFIER}) is expected


DEV_DOCS = ("Session tokens of your app are signed, so nobody can forge them. "
            "The signing key is read from `APP_SIGNING_KEY` at start.")  # without the type, the first one wins


def test_the_unit_that_names_the_asked_variable_is_chosen(answer) -> None:
    result = answer("Which environment variable signs the session tokens of my app?",
                    [hit(DEV_DOCS, "auth.md", "Authentication")], max_units=1)
    assert "APP_SIGNING_KEY" in result.text, result.text


@pytest.mark.parametrize("question", [
    "Can I keep a shared link longer than a week?",
    "Is the backup kept for more than 30 days?",
    "Peut-on garder les dossiers plus longtemps qu'un an ?",
    "Le fichier reste-t-il au-delà d'un mois ?",
])
def test_a_duration_named_to_compare_with_asks_for_a_duration(question: str) -> None:
    assert DURATION in asked_types(question)


def test_a_year_written_un_an_is_a_stated_duration() -> None:
    assert states_type("La pièce est gardée un an.", {DURATION})
    assert DURATION not in asked_types("Pourquoi un an ?")


@pytest.mark.parametrize("question", [
    "What must be switched on before old conversations can be resumed?",
    "What do I need before I can invite members?",
    "Que faut-il pour déposer un dossier ?",
    "Quelles sont les conditions pour obtenir une attestation ?",
])
def test_a_prerequisite_question_asks_for_a_requirement(question: str) -> None:
    assert REQUIREMENT in asked_types(question)


def test_a_requirement_is_stated_by_need_must_requires_or_only_if() -> None:
    assert states_type("Requires both data persistence and authentication to be enabled.", {REQUIREMENT})
    assert states_type("Le dépôt n'est possible que si le compte est vérifié ; il faut un compte.", {REQUIREMENT})
    assert not states_type("Decorator to enable users to continue a conversation.", {REQUIREMENT})
    assert REQUIREMENT not in asked_types("How do I reset my password?")


@pytest.mark.parametrize("question", [
    "My bot joined the server but can't read messages. What do I need to switch on in the developer portal?",
    "The add-on can't sign in since I installed a script blocker. What do I need to whitelist?",
    "What do we need to allow there?",
])
def test_what_to_act_on_is_not_a_prerequisite(question: str) -> None:
    """"What do I need to switch on?" asks for the thing to switch on: the verb has no object."""
    assert REQUIREMENT not in asked_types(question)


@pytest.mark.parametrize("question", [
    "What do I need to run the app on my own server?",
    "What do I need to install first?",
    "What is required, and what do I need to enable?",
])
def test_a_verb_with_its_object_still_asks_for_a_requirement(question: str) -> None:
    assert REQUIREMENT in asked_types(question)


def test_an_english_unit_after_a_french_article_is_no_duration() -> None:
    """"dans un second temps" is "at a second stage": "un" + "second" is not one second."""
    assert not states_type("Dans un premier temps la demande est enregistrée, dans un second temps elle est "
                           "programmée.", {DURATION})
    assert states_type("La démarche a été mise en œuvre en deux jours.", {DURATION})
    assert states_type("Wait a second before retrying.", {DURATION})


def test_which_version_asks_a_release_number_which_a_unit_states() -> None:
    assert VERSION in asked_types("Which version of the client do I need for this widget?")
    assert VERSION in asked_types("À partir de quelle version le champ est-il disponible ?")
    assert VERSION not in asked_types("Which browser do you support?")
    for text in ("Available since release 3.4.1.", "The client requires `python>=3.10`.", "Upgrade to v2 first."):
        assert states_type(text, {VERSION}), text
    assert not states_type("The widget shows a row of preset colours.", {VERSION})


def test_what_values_asks_for_the_values_a_setting_takes_which_an_enumeration_states() -> None:
    for question in ("What values does the new option take?", "What are the possible values for `display`?",
                     "Quelles valeurs peut prendre ce champ ?"):
        assert CHOICES in asked_types(question), question
    for question in ("Which value should I put there?", "What options do I have to import?"):
        assert CHOICES not in asked_types(question), question  # one value to set, a how-to
    for text in ("The `mode` parameter can be set to `hidden`, `tool_call`, or `full`.",
                 'Choices are "side" (default), "inline", or "page".', "Set it to `true` or `false`.",
                 "Les valeurs possibles sont listées ci-dessous."):
        assert states_type(text, {CHOICES}), text
    assert not states_type("The `hide_cot` parameter has been replaced with `cot`.", {CHOICES})


def test_which_app_or_option_asks_for_a_name_the_question_does_not_hold() -> None:
    for question in ("Which application do I search for in the identity provider's portal?",
                     "What is the option called?", "Which widget should I use for an on/off choice?",
                     "Avec quel compte je m'identifie sur le portail des rendez-vous ?",
                     "Quelle option dois-je choisir au début du formulaire ?"):
        assert asked_types(question) == {NAME}, question
    for question in ("What options do I have to import?", "Which version of the app do I need?",
                     "Which settings page shows my plan?"):
        assert NAME not in asked_types(question), question  # an enumeration; a narrower type
    asked = "Avec quel compte je m'identifie sur le Portail Rendez-vous ?"
    assert states_type("Vous devez vous authentifier sur le Portail Rendez-vous avec AgentConnect.", {NAME}, asked)
    assert states_type("Select the « Generic Service Provider » application.", {NAME}, asked)
    # the name the question holds is what was asked about; a capital after a colon opens a sentence
    assert not states_type("Lancez la configuration de votre compte Portail Rendez-vous.", {NAME}, asked)
    assert not states_type("Si vous avez déjà un compte : Votre authentification vous dirige vers l'écran.", {NAME}, asked)
    # the question holds a name as a word, not inside one: "id" is no word of "widget"
    assert states_type("`id` (str): The identifier of the widget.", {NAME}, "Which widget do I use?")


SIGN_IN = ("Agents first confirm their identity on the booking portal. You can then configure the portal's services "
           "from an admin account.\n\nTo sign in on the booking portal, agents use StateLogin.")


def test_the_unit_naming_what_was_asked_is_chosen(answer) -> None:
    result = answer("To turn bookings on, with which account do I sign in on the booking portal?",
                    [hit(SIGN_IN, "bookings.md", "Bookings")], max_units=1)
    assert "StateLogin" in result.text, result.text


def test_a_duration_written_short_is_a_duration_and_a_clock_time_is_not() -> None:
    assert states_type("Elle tient informée l’Administration au minimum 48h à l’avance.", {DURATION})
    assert states_type("Elle vise un délai de rétablissement de 72h.", {DURATION})
    assert states_type("The export takes about 30 min.", {DURATION})
    for clock in ("Le support est disponible de 8h à 18h.", "Le club ouvre à 7h.", "Open 6h-22h.",
                  "Du lundi au vendredi : 6 h – 22 h", "Le service est ouvert 24h/24.", "Open until 18h."):
        assert not states_type(clock, {DURATION}), clock
