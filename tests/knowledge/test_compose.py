"""The answer composer on hand-made passages: each rule of the issue, EN and FR."""

from __future__ import annotations

import re

import pytest

from knowledge import composer
from knowledge.composer import compose
from knowledge.fragments import fragment_reasons
from knowledge.question_kind import HOWTO, OTHER, YESNO, asked_focus, polarity, question_kind
from knowledge.retrieval import Hit
from relais.embeddings import get_embedder
from tests.knowledge.test_code_versions import DRAFT, FIXED

PRICES = """Pulse offers three plans.

| Plan | Monthly price | Billed annually |
|---|---|---|
| Base | $10/month | $120/year |
| Premium | $25/month | $300/year |"""
PREMIUM = "Premium is the plan for members who travel between clubs. It costs $25 per month, or $300/year if you pay annually."
POINTER = "Full-time students pay less on the Base plan. Read [Student discount](student-discount.md)."
STUDENT = "Full-time students get 50% off the Base plan: they pay $5/month instead of the regular $10/month."
STEPS = """To book a class:

1. Open **Classes** to see the timetable.
2. Filter by type or time, then tap a class.
3. Tap **Book**. The class appears in **Classes > My bookings**."""
CODE = """Register a health check route with the `route` decorator:

```python
@app.route("/health")
def health():
    if app.ready:
        return "ok"
    return "starting"
```"""
FREEZE_FR = "La suspension met en pause votre abonnement. Elle est gratuite.\n\nAucun prélèvement n'est effectué pendant la suspension."


def hit(text: str, source: str, title: str, section: str = "", rank: int = 0) -> Hit:
    return Hit(text, source, title, section, 0, 1.0 - rank / 10)


class FakeKB:
    """Just what the composer asks a knowledge base for: whole documents by path or title."""

    def __init__(self, docs: dict[str, Hit]) -> None:
        self.docs = docs

    def source_chunks(self, source: str) -> list[Hit]:
        return [self.docs[source]] if source in self.docs else []

    def source_titles(self) -> dict[str, str]:
        return {h.title.lower(): s for s, h in self.docs.items()}


@pytest.fixture(scope="module")
def answer(tmp_path_factory):
    cache = tmp_path_factory.mktemp("emb")
    embedder = get_embedder("minilm")

    def run(question: str, hits: list[Hit], kb=None, **kwargs):
        result = compose(question, hits, embedder, cache, kb=kb, not_found="NOT FOUND", **kwargs)
        passages = [h.text for h in hits] + ([h.text for h in kb.docs.values()] if kb else [])
        assert not result.found or fragment_reasons(result.text, passages) == [], result.text
        return result

    return run


def test_table_row_is_read_with_its_header(answer) -> None:
    result = answer("What does Premium cost per year?", [hit(PRICES, "plans.md", "Plans and pricing")])
    assert "Premium — Monthly price: $25/month; Billed annually: $300/year." in result.text
    assert "| " not in result.text and result.text.rstrip().endswith("[1]")


def test_pronoun_sentence_carries_its_antecedent(answer) -> None:
    result = answer("How much is Premium per month?", [hit(PREMIUM, "premium.md", "Premium plan")])
    assert "Premium is the plan" in result.text
    assert result.text.index("Premium is the plan") < result.text.index("It costs $25")


def test_pointer_is_followed_to_the_linked_article(answer) -> None:
    kb = FakeKB({"student-discount.md": hit(STUDENT, "student-discount.md", "Student discount")})
    result = answer("What do students pay?", [hit(POINTER, "plans.md", "Plans and pricing")], kb=kb)
    assert "$5/month" in result.text and "Read Student discount" not in result.text
    assert "student-discount.md" in [s.source for s in result.sources]


def test_howto_gets_the_numbered_steps_as_a_list(answer) -> None:
    result = answer("How do I book a class in the app?", [hit(STEPS, "classes.md", "Group classes", "Booking")])
    assert re.search(r"^1\. Open Classes to see the timetable\.$", result.text, re.MULTILINE)
    assert re.search(r"^3\. Tap Book\.", result.text, re.MULTILINE)


def test_howto_gets_the_whole_code_block_with_indentation(answer) -> None:
    result = answer("How do I add a health check route?", [hit(CODE, "routes.md", "Routes")])
    block = CODE[CODE.index("```"):]
    assert block in result.text
    assert '    if app.ready:\n        return "ok"' in result.text


def test_yes_no_first(answer) -> None:
    result = answer("Will I be charged while my membership is frozen?",
                    [hit("Freezing pauses your membership. During a freeze you are not charged.", "f.md", "Freeze")])
    assert result.text.startswith("No.")


def test_french_pronoun_and_yes_no(answer) -> None:
    result = answer("Est-ce que la suspension est payante ?", [hit(FREEZE_FR, "suspendre.md", "Suspendre")])
    assert result.found and not result.text.startswith("Oui")  # free: "is it paid?" is not a yes
    if "Elle est gratuite" in result.text:
        assert result.text.index("La suspension met en pause") < result.text.index("Elle est gratuite")


def test_unrelated_question_is_not_found(answer) -> None:
    result = answer("Who painted the Mona Lisa?", [hit(PRICES, "plans.md", "Plans and pricing")])
    assert not result.found and result.text == "NOT FOUND" and result.sources == []


@pytest.mark.parametrize("question, kind", [
    ("How do I cancel?", HOWTO), ("Comment réserver un cours ?", HOWTO),
    ("Can I pause my plan?", YESNO), ("Puis-je geler mon abonnement ?", YESNO),
    ("Est-ce que je paie pendant la suspension ?", YESNO), ("Le support répond-il par téléphone ?", YESNO),
    ("How much is Premium?", OTHER), ("Combien coûte le forfait ?", OTHER),
    ("Je me suis trompé en rejetant un dossier, comment annuler ma décision ?", HOWTO),
    ("Users are signed straight back in after logging out. How do I make them log in again?", HOWTO),
    ("I paid the yearly price and quit after three months: how much comes back?", OTHER),
    ("Can I get a new encryption key without a new password? How?", HOWTO),
    ("Puis-je changer de forfait en cours de mois ? Et comment ?", HOWTO),
    ("My nightly job is blocked by a captcha. How can it be passed automatically?", HOWTO),  # the passive
    ("How should these be written?", HOWTO), ("How is the refund calculated?", OTHER),  # an explanation
    # what the asker's own code is to do is a procedure; how the product knows a thing is an explanation
    ("My app runs in an iframe. How does my Python code push a message to the parent page?", HOWTO),
    ("A report flags logins without codes. How does it know which websites support them?", OTHER),
    ("Vaut-il mieux ouvrir le compte à mon nom ou avec une adresse d'équipe ?", OTHER),  # a choice, not a yes
    ("Is it better to pay monthly or yearly?", OTHER), ("Can I pay by card or by transfer?", YESNO),
    ("New hires open their invitation too late and it has already run out. Can we give them more time?", YESNO),
    ("Mon invitation a expiré hier. Puis-je en recevoir une autre ?", YESNO),  # a statement, then the question
    ("Je reçois un e-mail chaque mois. Est-ce normal ?", YESNO), ("Est-ce possible ?", YESNO),  # "est-ce" + no "que"
    # a clause after a comma that asks nothing itself leaves the sentence to ask; one that asks keeps its own kind
    ("Could I nest a message inside another one, like a threaded reply?", YESNO),
    ("Peut-on récupérer, pour chaque mois, tous les dossiers traités ?", YESNO),
    ("Can I still get it back, and for how long?", OTHER),
    ("Une fois le fichier changé, que dois-je faire ?", OTHER),
])
def test_question_kind(question: str, kind: str) -> None:
    assert question_kind(question) == kind


@pytest.mark.parametrize("question, sentence, expected", [
    ("Is there a late fee?", "There is no late fee.", "no"),
    ("Can I freeze for free?", "You can freeze at no cost.", "yes"),
    ("Can I stop paying while I travel?", "You are not charged during a freeze.", "yes"),  # double negation
    ("Puis-je éviter de payer pendant un voyage ?", "Aucun prélèvement n'est effectué pendant la suspension.", "yes"),
    ("Can I stop coming for a month?", "You are not charged during a freeze.", None),
    ("Can a guest come at night?", "Guests can only arrive during staffed hours.", None),
    ("Le support répond-il par téléphone ?", "Nous ne proposons pas d'assistance téléphonique.", "no"),
    ("Is freezing paid?", "It is free on every plan.", "no"),
    ("Est-ce que la suspension est payante ?", "Elle est gratuite, quel que soit votre forfait.", "no"),
])
def test_polarity(question: str, sentence: str, expected: str | None) -> None:
    assert polarity(question, sentence) == expected


LIBRARY_FR = ("La médiathèque prête des livres et des films. Chaque adhérent peut emprunter jusqu'à huit "
              "documents à la fois. Les retards sont signalés par courriel. Le prêt dure trois semaines et se "
              "prolonge une fois en ligne. Les cartes perdues sont remplacées à l'accueil.")


class TwinKB(FakeKB):
    """A knowledge base that routes the question to a multilingual twin (`question_encoder`)."""

    def __init__(self, reader: tuple[object, float] | None) -> None:
        super().__init__({})
        self.reader = reader

    def question_encoder(self, question: str) -> tuple[object, float] | None:
        return self.reader


def test_a_question_routed_to_the_twin_is_read_by_it_too(tmp_path) -> None:
    """MiniLM reads French poorly: alone it quotes the wrong sentence; with the twin's encoder
    averaged in, the sentence that states the number of items is chosen."""
    question = "Combien d'ouvrages puis-je prendre en même temps ?"
    hits = [hit(LIBRARY_FR, "library.md", "Aide")]
    minilm, twin = get_embedder("minilm"), get_embedder("use-multilingual")
    alone = compose(question, hits, minilm, tmp_path, kb=TwinKB(None), max_units=1).text
    both = compose(question, hits, minilm, tmp_path, kb=TwinKB((twin, 0.8)), max_units=1).text
    assert "huit" not in alone
    assert "huit documents" in both


BIKE_SHOP = ("Our workshop repairs bikes of every brand. A full service keeps your bike safe on the road. "
             "A full service costs 60 euros. Original parts come with a warranty.")


def test_a_quantity_question_gets_the_unit_that_states_one(answer) -> None:
    """"How much": the sentence that names the service but states no amount is not the answer."""
    result = answer("How much does a full service of my bike cost?", [hit(BIKE_SHOP, "repairs.md", "Repairs")],
                    max_units=1)
    assert "60 euros" in result.text, result.text


def test_which_questions_ask_for_a_quantity() -> None:
    from knowledge.question_kind import asks_quantity, states_quantity

    assert all(asks_quantity(q) for q in ["How long does a refund take?", "What time do you close on Sunday?",
                                          "Combien de jours faut-il ?", "À quelle heure ferme l'accueil ?",
                                          "Quel âge faut-il avoir ?"])
    assert not any(asks_quantity(q) for q in ["How do I cancel?", "Can I pause my plan?", "Où est le club ?"])
    assert states_quantity("It takes two days.") and states_quantity("Comptez 48 heures.")
    assert not states_quantity("Open the app and tap Book.")


class ArticleKB(FakeKB):
    """Every chunk of one article, by index (the composer asks for whole documents)."""

    def __init__(self, chunks: list[Hit]) -> None:
        super().__init__({})
        self.chunks = chunks

    def source_chunks(self, source: str) -> list[Hit]:
        return [c for c in self.chunks if c.source == source]


def test_the_chunk_next_to_the_top_hit_can_answer(answer) -> None:
    """The chunker split the article: retrieval found its opening, the duration is in the next chunk."""
    chunks = [Hit("Pottery workshops are held in our studio on Tuesday evenings. An instructor guides "
                  "beginners through wheel throwing and glazing.", "pottery.md", "Pottery", "", 0, 1.0),
              Hit("Each workshop lasts 90 minutes and clay is included. Bring clothes that can get dirty.",
                  "pottery.md", "Pottery", "Practical details", 1, 0.0),
              Hit("Gift vouchers can be bought at the front desk.", "pottery.md", "Pottery", "Vouchers", 2, 0.0)]
    result = answer("How long is a pottery workshop?", [chunks[0]], kb=ArticleKB(chunks), max_units=2)
    assert "90 minutes" in result.text, result.text


def test_a_list_ending_on_what_to_add_comes_with_the_code_in_the_next_chunk(answer) -> None:
    """The chunker cut the steps from the value the last one announces: quoted alone, "add the
    following" promises the extension's ID and does not give it."""
    chunks = [Hit("To deploy the add-on with Group Policy:\n\n1. Open the Group Policy editor and create a new GPO.\n"
                  "2. Navigate to Administrative Templates → Edge → Extensions.\n"
                  "3. Select Control which extensions are installed silently and toggle Enabled.\n"
                  "4. Select the Show... button and add the following:", "deploy.md", "Deploying the add-on", "Edge", 0, 1.0),
              Hit("4. Select the Show... button and add the following:\n\n   ```\n   kqpbhlmbmhdkgbgcdjofpncjnocdpale;"
                  "https://edge.example.com/crx\n   ```\n\n   Click OK.", "deploy.md", "Deploying the add-on", "Edge", 1, 0.0)]
    result = answer("Which extension ID goes in the list when I force-install the add-on on Edge with Group Policy?",
                    [chunks[0]], kb=ArticleKB(chunks))
    assert "add the following:\n" in result.text and "kqpbhlmbmhdkgbgcdjofpncjnocdpale" in result.text, result.text


def test_a_lead_in_ending_its_chunk_comes_with_the_list_opening_the_next(answer) -> None:
    """The chunker cut "You can then choose the kind of visit:" from the kinds it announces."""
    chunks = [Hit("Once the booking tool is on, each visit has a reason, a length and a colour in the calendar.\n\n"
                  "You can then choose the kind of visit:", "visits.md", "Booking visits", "Visit reasons", 0, 1.0),
              Hit("- On site: at the practice.\n- By phone: a call to the number on file.\n"
                  "- At home: a trip to the address on file.\n\n"
                  "Click Create to save the reason.", "visits.md", "Booking visits", "Reasons", 1, 0.0)]
    result = answer("Once the booking tool is on, which kind of visit can I choose?", [chunks[0]], kb=ArticleKB(chunks))
    assert "choose the kind of visit:\n" in result.text and "a trip to the address" in result.text, result.text


def test_a_procedure_cut_by_the_chunker_is_quoted_with_its_next_steps(answer) -> None:
    """Steps 1-2 end one passage and 3-4 open the next: what else is needed ("toggle Allow access
    to local files") is the third step, and "1. … 2. …" alone is half the procedure."""
    chunks = [Hit("To unlock the add-on with your face:\n\n1. In the desktop app, open Settings.\n"
                  "2. Check the Allow browser integration box.", "face.md", "Face unlock", "Add-on", 0, 1.0),
              Hit("3. In your browser's extension page, open the add-on and toggle Allow access to local files.\n"
                  "4. In the add-on, check Unlock with your face.", "face.md", "Face unlock", "Add-on", 1, 0.0),
              Hit("Your desktop app must stay logged in. Unlock needs it running.", "face.md", "Face unlock", "Notes",
                  2, 0.0)]
    result = answer("I checked the Allow browser integration box in the desktop app settings, but face unlock of the "
                    "add-on still fails. Is anything else needed?", [chunks[0]], kb=ArticleKB(chunks))
    assert "2. Check the Allow browser integration box.\n3. In your browser's extension page" in result.text, result.text
    assert "4. In the add-on, check Unlock with your face." in result.text, result.text


def test_a_yes_no_answer_leaves_out_another_articles_steps(answer) -> None:
    """"Does the PIN prompt encrypt the item?" is answered "…is not an encryption mechanism"; the
    steps to change a PIN, from another article, read close to the question but tell another
    procedure."""
    hits = [Hit("Turn on Confirm with PIN for any item to ask for your PIN before its details show.\n\n"
                "Warning: Confirm with PIN is not an encryption mechanism. It is a screen guard only.",
                "items.md", "Items", "Protect items", 0, 1.0),
            Hit("Complete the following steps to change your PIN and re-encrypt your data:\n\n1. Open Settings.\n"
                "2. Select Security.\n3. Enter your PIN again before showing an item, to re-encrypt that item with "
                "the new PIN.\n4. Check Re-encrypt my data and select Save.", "pin.md", "PIN", "Change your PIN", 0, 0.9)]
    result = answer("I turned on the option that asks for my PIN before showing an item. Does that add a layer of "
                    "encryption to the item?", hits)
    assert "not an encryption mechanism" in result.text, result.text
    assert "Open Settings" not in result.text and "re-encrypt that item" not in result.text, result.text


def test_a_lead_in_ending_its_chunk_over_a_picture_is_a_whole_statement(answer) -> None:
    """"…use the gear menu's Resend Invitations:" ended its passage over a screenshot, and the next
    passage opens a new section, on no block: what the colon announced was the picture. The
    sentence answers, closed; it was dropped as a lead-in to nothing."""
    chunks = [Hit("To add members, open the Members tab and select Invite Member. Enter up to 20 addresses, comma-separated, "
                  "and select Save.\n\nInvitations expire after 5 days. Re-invite members in bulk by selecting each "
                  "member and using the gear menu's Resend Invitations:", "members.md", "Members", "Invite", 0, 1.0),
              Hit("Invited members receive an email. Clicking its link opens the invitation page, where they log in "
                  "or create an account to accept.", "members.md", "Members", "Accept", 1, 0.0)]
    result = answer("How do I re-invite several members in bulk?", [chunks[0]], kb=ArticleKB(chunks))
    assert "gear menu's Resend Invitations." in result.text, result.text


def test_a_part_is_answered_by_the_note_of_the_chosen_field(answer) -> None:
    """Each field ends on "Note: Since version …": the version asked is the one under the field chosen."""
    chunks = [Hit("`drafts` (bool), default `false`: Keep unsent messages. When enabled, what a user typed stays "
                  "in the composer after a reload.\n\nNote: Since version 3.4.1.", "features.md", "Features", "Drafts",
                  0, 1.0),
              Hit("`edit_message` (bool), default `true`: Let users edit the messages they sent.\n\n"
                  "Note: Since version 3.2.0.", "features.md", "Features", "Editing", 1, 0.9)]
    result = answer("Can what I typed stay in the composer after a reload? What do I switch on, and since which "
                    "version does it exist?", chunks, kb=ArticleKB(chunks))
    assert "3.4.1" in result.text and "3.2.0" not in result.text, result.text


def test_one_procedure_told_by_two_articles_is_quoted_once(answer) -> None:
    """Both articles open their steps on the same line: quoted twice, the answer repeats it."""
    steps = ("1. On the Vault page, select the New Item button.\n2. Fill in the item.\n"
             "3. In the Owner section, choose your team.\n4. Select Save.")
    hits = [Hit(f"To create a shared item:\n\n{steps}", "sharing.md", "Sharing", "Share", 0, 1.0),
            Hit(f"Move an item to the team:\n\n{steps.replace('4. Select Save.', '4. Select Save to move it.')}\n\n"
                "Moving an item to the team makes it shared.", "teams.md", "Teams", "Move", 0, 0.9)]
    result = answer("How do I share an item with my team from my vault?", hits)
    assert result.text.count("select the New Item button") == 1, result.text


class FixedCosineEmbedder:
    """Every sentence at the same cosine to every question: the relevance bar alone decides."""

    dim = 4

    def __init__(self, name: str, cosine: float) -> None:
        self.name, self.cosine = name, cosine

    def embed_query(self, text: str):
        import numpy as np

        return np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32)

    def embed_documents(self, texts, batch_size: int = 64):
        import numpy as np

        row = [self.cosine, (1 - self.cosine**2) ** 0.5, 0.0, 0.0]
        return np.array([row for _ in texts], dtype=np.float32)


def test_the_relevance_bar_reads_the_multilingual_encoders_lower_cosines_on_minilms_scale(tmp_path) -> None:
    """0.27 is below the bar for MiniLM but a usual on-topic cosine for the multilingual encoder."""
    passage = [hit("Un brouillon reste enregistré trois mois après votre dernière modification.", "b.md", "Brouillons")]
    question = "Quel délai ?"
    assert not compose(question, passage, FixedCosineEmbedder("minilm", 0.27), tmp_path / "a").found
    assert compose(question, passage, FixedCosineEmbedder("use-multilingual", 0.27), tmp_path / "b").found


OPTIONS = """Options:

- `-w, --watch`: Reload the app when the module changes.
- `-h, --headless`: Prevents the app from opening in the browser.
- `--port`: Specifies a different port to run the server on.
- `--host`: Specifies a different host to run the server on."""
WEBAPP = ("When you start the app, the chat is served in your browser on port 8000. "
          "The web app works on desktop and mobile.")


class RunnersUpKB(FakeKB):
    """A base whose search ranked `behind` right after the hits (`KnowledgeBase.runners_up`)."""

    def __init__(self, behind: list[Hit]) -> None:
        super().__init__({})
        self.behind = behind

    def source_chunks(self, source: str) -> list[Hit]:
        return [h for h in self.behind if h.source == source]

    def runners_up(self, question: str) -> list[Hit]:
        return list(self.behind)


def test_a_chunk_ranked_behind_the_hits_answers_when_it_holds_the_best_unit(answer) -> None:
    """A long list of options reads far from the question as a whole: its one item answers."""
    kb = RunnersUpKB([hit(OPTIONS, "command-line.md", "Command line", "run")])
    result = answer("How do I stop the browser from opening when I start the app?",
                    [hit(WEBAPP, "webapp.md", "Web app")], kb=kb)
    assert "--headless" in result.text, result.text
    assert "command-line.md" in [s.source for s in result.sources]


def test_chunks_ranked_behind_the_hits_stay_silent_when_a_hit_answers(answer) -> None:
    kb = RunnersUpKB([hit(OPTIONS, "command-line.md", "Command line", "run")])
    result = answer("Does the web app work on mobile?", [hit(WEBAPP, "webapp.md", "Web app")], kb=kb)
    assert result.found and "mobile" in result.text
    assert [s.source for s in result.sources] == ["webapp.md"]


def test_chunks_ranked_behind_the_hits_never_make_an_answer_found(answer) -> None:
    """The relevance bar reads only the hits: an off-topic question stays "not found"."""
    kb = RunnersUpKB([hit(OPTIONS, "command-line.md", "Command line", "run")])
    result = answer("Which port does the ferry to the island leave from?",
                    [hit("Gift vouchers can be bought at the front desk.", "vouchers.md", "Vouchers")], kb=kb)
    assert not result.found and result.text == "NOT FOUND"


def test_a_symbol_in_a_code_span_reads_as_text() -> None:
    """`+` and `→` written as code are key combinations and arrows, not code."""
    from knowledge.passage_units import plain

    assert plain("Press Ctrl `+` Shift `+` N `→` new window, or run `--help`.")[0] == \
        "Press Ctrl + Shift + N → new window, or run `--help`."


def test_a_sentence_pointing_back_is_read_and_quoted_with_the_one_before(answer) -> None:
    """"Passé ce délai, …" says nothing alone: the limit is in the sentence before it."""
    from knowledge.fragments import refers_back

    assert refers_back("Au-delà de ce délai, le panier est vidé.")
    assert refers_back("After that date, the cart is emptied.")
    assert not refers_back("If you leave this page, the cart is kept.")
    assert refers_back("In the meantime, you may see `Access denied` errors.")
    assert refers_back("En attendant, le dossier reste en brouillon.")
    text = ("Le panier est accessible depuis votre compte. Les articles restent dans le panier pendant 30 jours "
            "après votre dernière visite. Au-delà de ce délai, les paniers non validés sont vidés.")
    result = answer("Est-ce que mes paniers non validés sont vidés ?", [hit(text, "panier.md", "Panier")], max_units=1)
    assert "Au-delà de ce délai" in result.text and "30 jours" in result.text, result.text


def test_a_passage_cut_once_answers_the_same_every_time(answer) -> None:
    """Passages' units are cut once and shared across questions: nothing a question does to
    them changes the next answer."""
    hits = [hit(POINTER, "plans.md", "Plans"), hit(STEPS, "classes.md", "Classes", rank=1)]
    kb = FakeKB({"student-discount.md": hit(STUDENT, "student-discount.md", "Student discount")})
    first = answer("How much do students pay?", hits, kb=kb).text
    answer("How do I book a class?", hits, kb=kb)
    assert answer("How much do students pay?", hits, kb=kb).text == first
    assert "$5" in first


FAQ = ("A: We accept Credit/Debit Cards, PayPal, and gift vouchers.\n\nFor business orders, we also accept "
       "international bank transfers and corporate checks, with a minimum payment of 500 EUR.\n\n"
       "For more information regarding payment options, please contact support.")


def test_two_answers_under_one_faq_question_are_not_duplicates(answer) -> None:
    """Under one long question heading every sentence reads alike to the encoder (cosine > 0.9
    here): the words tell two different sentences apart, and the FAQ's own answer is kept."""
    section = "Payment Options > Q: What payment options do you accept for customers outside the European Union?"
    result = answer("What ways to pay do you take from customers outside the European Union?",
                    [hit(FAQ, "faq.md", "Billing FAQs", section)])
    assert "PayPal" in result.text, result.text


STREAM = """Send a reply word by word to the chat window.

```python
import chat

@chat.on_message
async def main(message):
    reply = chat.Reply(content="")
    for word in ["the", "quick", "fox"]:
        await reply.push_word(word)
    await reply.close()
```"""


def test_a_question_for_a_name_gets_the_example_that_writes_it(answer, tmp_path) -> None:
    """"Which method …?" is answered by the code that calls it when no sentence names it: a code
    block fits a question for a name (an identifier), and only such a question."""
    from knowledge.composer import TYPE_BONUS, _Scorer, _units

    block = next(c for c in _units([(hit(STREAM, "streaming.md", "Streaming", "Stream a reply"), 0.0)], set())
                 if c.unit.kind == "code")
    embedder = get_embedder("minilm")
    named = _Scorer("Which method sends a reply word by word?", embedder, tmp_path, None)._fit(block, False)
    plain_question = _Scorer("Can a reply be sent word by word?", embedder, tmp_path, None)._fit(block, False)
    assert named - plain_question == TYPE_BONUS
    result = answer("Which method sends a reply word by word as the words arrive?",
                    [hit(STREAM, "streaming.md", "Streaming", "Stream a reply")])
    assert "push_word" in result.text, result.text


def test_a_sentence_opening_on_a_lower_case_name_is_quotable_and_whole(answer) -> None:
    from knowledge.fragments import opens_on_name, starts_lower

    text = ("**portal.example.org** keeps files for **12 months** at most. You can ask support to extend it.")
    assert opens_on_name("portal.example.org keeps files.") and opens_on_name("iPhone users can.")
    assert opens_on_name("https://help.example.org, the public help site.")
    assert starts_lower("and then it stops.") and not starts_lower("config.toml holds the settings.")
    result = answer("How long are files kept?", [hit(text, "retention.md", "Retention")])
    assert "12 months" in result.text
    assert "cut_sentence" not in fragment_reasons(result.text, [text])


HELP_SITES = ("Where to get help with a procedure:\n\n"
              "- The town hall's front desk, open on weekdays, helps you fill in your forms.\n"
              "- The regional help line answers questions about your forms by phone.\n")
FORMS_HELP = ("Who helps with the forms:\n\n"
              "- The county office checks your forms before you send them.\n"
              "- The town hall's front desk, open on weekdays, helps you fill in your forms.\n")


def test_a_line_two_articles_share_is_quoted_once(answer) -> None:
    """Articles copy lines from each other: one article's item quoted as the answer is not quoted
    again inside the other article's list."""
    result = answer("Is there a front desk that helps with forms?",
                    [hit(HELP_SITES, "help.md", "Help"), hit(FORMS_HELP, "forms.md", "Forms", rank=1)])
    assert result.text.count("open on weekdays") == 1, result.text
    assert "duplicated_line" not in fragment_reasons(result.text, [HELP_SITES, FORMS_HELP])


def test_what_follows_the_best_unit_in_the_next_chunk_is_read(answer) -> None:
    """The best unit, in a hit other than the top one, announces what follows ("this will result
    in the following:") and the chunker put the rest in the next chunk, which nobody returned."""
    intro = hit("If your subscription lapses, your account reverts to the free plan. "
                "Until you renew, this will result in the following:", "renewal.md", "Renewal", rank=1)
    rest = Hit("Attachments: files are not deleted from your vault, but you cannot upload new ones. "
               "Reports: the vault health reports are no longer available.", "renewal.md", "Renewal", "", 1, 0.0)
    billing = hit("Your renewal date and payment method are shown under Settings > Billing.", "billing.md", "Billing")
    kb = FakeKB({"billing.md": billing})
    kb.source_chunks = lambda source: {"renewal.md": [intro, rest], "billing.md": [billing]}.get(source, [])  # type: ignore[method-assign]
    result = answer("My subscription lapsed; are my attached files deleted?", [billing, intro], kb=kb)
    assert "not deleted" in result.text, result.text


PAUSE_HOOK = ("Decorator to let members pause a recurring booking. Requires both a premium plan and a verified "
              "phone number to be enabled.\n\nWhen a booking is paused, reminders stop. If you are using a "
              "calendar sync for instance, you will need to remove the paused events yourself.")


def test_a_sentence_without_its_subject_is_read_and_quoted_with_the_one_naming_it(answer) -> None:
    result = answer("What must be turned on before a recurring booking can be paused?",
                    [hit(PAUSE_HOOK, "on-pause.md", "on_pause")])
    assert ("Decorator to let members pause a recurring booking. Requires both a premium plan and a verified "
            "phone number to be enabled.") in result.text
    assert "reminders stop" not in result.text  # read alone it scored as low as the sentences around it


CART_PAGE = (f"A first attempt at a running total of the items a shopper adds:\n\n{DRAFT}\n\n"
             f"Every shopper then adds to the same total. Let's rewrite it with the cart store:\n\n{FIXED}")


def test_an_example_rewritten_further_on_is_quoted_in_its_new_version(answer) -> None:
    result = answer("How do I keep a running total for each shopper?", [hit(CART_PAGE, "cart.md", "Cart store")])
    assert 'shop.cart.set("total", total)' in result.text
    assert "global total" not in result.text


def test_a_sentence_introducing_code_without_a_full_stop_ends_on_a_colon(answer) -> None:
    page = "The `setup` command creates a settings file located at `.shop/settings.toml`\n\n```bash\nshop setup\n```"
    result = answer("Which file does the setup command create?", [hit(page, "cli.md", "Command line")])
    assert "located at `.shop/settings.toml`:\n\n```bash\nshop setup\n```" in result.text


PANELS = '''Panels are small windows shown beside the conversation.

```python panels.py
import shop

@shop.set_panels
async def set_panels():
    return [
        shop.Panel(
            label="Weekly meal plan",
            message="Can you plan a week of dinners with plenty of vegetables, no fish, and a shopping list sorted by aisle?",
            icon="/public/meal.svg",
        ),
        shop.Panel(
            label="Stretching break",
            message="Give me a ten-minute stretching routine I can do at my desk without any equipment.",
            icon="/public/stretch.svg",
        ),
    ]
```'''


def test_an_example_is_read_as_the_sentence_introducing_it_not_only_as_its_sample_values(answer) -> None:
    hits = [hit(PANELS, "panels.md", "Panels"), hit("Small windows can be shown next to the conversation.", "ui.md", "UI", rank=1)]
    result = answer("How do I show small windows next to the conversation?", hits)
    assert "@shop.set_panels" in result.text
    assert result.text.startswith("Panels are small windows shown beside the conversation.\n\n```python panels.py")


QUEUE = '''`SHOP_QUEUE_URL` points the workers at the queue. The default is `redis://localhost:6379/2`.

```python
from shop import App

app = App(
    queue="amqp://guest@rabbit:5672//",
    results="redis://cache:6379/1",
)
```'''


def test_a_fact_question_is_answered_by_the_sentence_not_the_example_after_it(answer) -> None:
    result = answer("What is the default queue address?", [hit(QUEUE, "config.md", "Configuration", "Queue")])
    assert "`redis://localhost:6379/2`" in result.text
    assert "```" not in result.text


@pytest.mark.parametrize("question, focus", [
    ("Avec quel verbe HTTP faut-il appeler l'API ?", "verbe"),
    ("Quelle est la taille maximale d'un fichier ?", "taille"),
    ("What is the longest value allowed?", ""),  # an English noun group: its head is not the first word
    ("What file names does the app expect?", ""),
    ("What port does the server use?", "port"),
    ("Which browser do I need to sign?", "browser"),
    ("What do I need to sign?", ""),  # "what" + an auxiliary names nothing
    ("How do I sign a file?", ""),
])
def test_the_asked_focus_is_the_word_after_which_what_quel(question: str, focus: str) -> None:
    assert asked_focus(question) == focus


def test_the_unit_naming_what_a_quel_question_asks_for_is_chosen(answer) -> None:
    """Both sentences share the question's topic ("signer un dossier"); only one names a browser."""
    text = ("Pour signer un dossier en ligne, ouvrez le dossier puis cliquez sur Signer. "
            "Le navigateur Firefox ou Chrome est requis pour signer.")
    result = answer("Quel navigateur faut-il pour signer un dossier en ligne ?", [hit(text, "signer.md", "Signer")],
                    max_units=1)
    assert "Firefox" in result.text, result.text


def test_one_list_cut_in_two_passages_is_quoted_as_one_list(answer) -> None:
    """The chunker cut a list of actions: the second passage opens mid-list, under its section's
    name only ("F. Actions on a file"). The answer shows one lead-in and one list, not the second
    half under "F. Actions on a file:" (whose "F." reads as a sentence of its own)."""
    first = Hit("Using the Actions button of a file you can:\n\n- Transfer the file to someone else by entering "
                "their email address.\n- Print the file as a PDF document.", "files.md", "Files",
                "F. Actions on a file", 0, 1.0)
    second = Hit("- Move the file to the bin: this action deletes the file and cancels the request.\n"
                 "- Copy the file to start a new request from it.", "files.md", "Files", "F. Actions on a file", 1, 0.9)
    result = answer("How do I transfer a file or delete it?", [first, second])
    assert result.text == ("Using the Actions button of a file you can:\n"
                           "- Transfer the file to someone else by entering their email address.\n"
                           "- Move the file to the bin: this action deletes the file and cancels the request. [1]")


@pytest.mark.parametrize("passage, expected", [
    (("Your fingerprint phrase is made of five random words in a set order, for example:\n\n"
      "![A phrase](phrase.png)"), "Your fingerprint phrase is made of five random words in a set order."),
    ("La phrase d'empreinte compte cinq mots tirés au hasard, par exemple :",
     "La phrase d'empreinte compte cinq mots tirés au hasard."),
])
def test_a_sentence_announcing_what_the_page_showed_next_ends_where_it_is_quoted(answer, passage, expected) -> None:
    """The example after it (a picture, gone from the text) is not in the answer: no dangling ":"."""
    question = ("How many words are in my fingerprint phrase?" if passage.startswith("Your")
                else "Combien de mots compte la phrase d'empreinte ?")
    result = answer(question, [hit(passage, "fingerprint.md", "Fingerprint")])
    assert result.text == f"{expected} [1]"


def test_an_example_beside_the_sentence_that_answers_a_fact_question_is_not_quoted(answer, monkeypatch) -> None:
    """Scored close to the sentence (its lead-in shares the question's words), the example is
    still padding for a fact question; a how-to gets it."""
    score = composer._Scorer.score

    def example_close_behind(self, candidates):
        vectors = score(self, candidates)
        best = max(c.score for c in candidates)
        for c in candidates:
            if c.unit.kind == "code":
                c.score = 0.95 * best
        return vectors

    monkeypatch.setattr(composer._Scorer, "score", example_close_behind)
    upload = hit("Each attached file can weigh up to 200 MB.\n\nTo list the attached files, add:\n\n```graphql\n"
                 "fragment Files on Champ {\n  files { url }\n}\n```", "upload.md", "Upload")
    fact = answer("What is the maximum size of an attached file?", [upload])
    assert "200 MB" in fact.text and "```" not in fact.text, fact.text
    howto = answer("How do I list the attached files?", [upload])
    assert "```graphql" in howto.text, howto.text


def test_once_a_unit_names_what_a_quel_question_asks_for_other_articles_are_padding(answer) -> None:
    api = hit("Attention : les requêtes doivent être envoyées avec le verbe HTTP POST.", "api.md", "API")
    setup = hit("Renseignez l’URL de l’API à interroger. L’API sera appelée avec une requête HTTP GET pour tester "
                "sa réponse.", "champ.md", "Champ", rank=1)
    result = answer("Avec quel verbe HTTP faut-il appeler l'API ?", [api, setup])
    assert result.text == "Attention : les requêtes doivent être envoyées avec le verbe HTTP POST. [1]"


def test_of_two_sentences_saying_no_the_one_about_the_asked_action_decides(answer) -> None:
    """Both say no about a word of the question; only one about what it asks to do."""
    text = ("Aucune demande d'avis ne pourra être envoyée pour un dossier déjà instruit. Vous recevez un e-mail "
            "de l'instructeur. Il est inutile de répondre à cet e-mail : connectez-vous.")
    result = answer("Dois-je répondre au mail de demande d'avis sur un dossier ?", [hit(text, "expert.md", "Expert")])
    assert result.text.startswith("Non.") and "inutile de répondre" in result.text, result.text


SSO_FIELDS = ("| Field | Description |\n|---|---|\n| Signing Algorithm | The algorithm the vault uses to sign requests. |\n"
              "| Public Certificate | Paste the downloaded certificate, removing the BEGIN and END lines. Extra spaces "
              "will cause certificate validation to fail. |")
SSO_CERTIFICATE = ("From the navigation, select **Realm Settings** → **Keys** and get your certificate:\n\n"
                   "Copy the certificate for use in a later step.")  # the screenshot between them is not read


def test_a_section_of_the_best_article_ranked_behind_the_hits_answers_too(answer) -> None:
    """The field list ranked first; the section that says where the certificate is ranked behind
    the hits. It is of the same article, so it may answer; its lead-in over a screenshot is a
    whole statement, and the sentence after it, under the same heading, is no duplicate."""
    kb = RunnersUpKB([Hit(SSO_CERTIFICATE, "sso/keycloak.md", "Keycloak SSO", "Download your certificate", 1, 0.6)])
    result = answer("We're connecting our Keycloak server to single sign-on. Where in Keycloak do I find the "
                    "certificate I have to paste?", [hit(SSO_FIELDS, "sso/keycloak.md", "Keycloak SSO", "Fields")],
                    kb=kb)
    assert "Realm Settings → Keys" in result.text, result.text


SAML_FIELDS = ("| Field | Mapping |\n|---|---|\n"
               "| Sign On URL | Azure AD Field: Login URL; Okta Field: IdP URL; OneLogin Field: SAML 2.0 Endpoint. |\n"
               "| Signing Algorithm | Azure AD Field: must match the vault; Okta Field: Signature Algorithm. |\n"
               "| Entity ID | Azure AD Field: Identifier (Entity ID); Okta Field: Audience URI. |\n"
               "| Single Sign-On URL | Azure AD Field: Reply URL; Okta Field: Single sign on URL. |\n"
               "| Certificate | Azure AD Field: download the Base64 certificate; Okta Field: X.509 certificate. |")
OIDC_FIELDS = ("| Field | Description |\n|---|---|\n"
               "| Callback Path | Set automatically, cannot be edited. |\n"
               "| Authority | Enter `https://login.example.net/<TENANT_ID>/v2.0`, where `TENANT_ID` is the tenant ID. |\n"
               "| Client ID | Enter the Application (client) ID of the app registration. |")


def test_the_row_labelled_by_the_field_a_question_names_answers(answer) -> None:
    """"What goes in the Authority field?": the row labelled "Authority" is about it; rows that only
    share the page's topic words ("Azure AD Field…") are not."""
    result = answer("We're wiring Azure AD to single sign-on over OpenID Connect. What goes in the Authority field?",
                    [hit(SAML_FIELDS, "sso/saml-providers.md", "SAML providers", "Fields"),
                     hit(OIDC_FIELDS, "sso/oidc-azure.md", "OIDC with Azure", "Configure", 1)])
    assert "login.example.net" in result.text, result.text


LOCAL_SERVER = ("We can reuse the client instrumentation to log calls from local inference servers.\n\n"
                "Then run the following command:\n\n```bash\nshop run app.py -w\n```")
LOCAL_EXAMPLE = ("```python\nimport shop\nfrom client import AsyncClient\n\nclient = AsyncClient(base_url=\"http://localhost:1234/v1\")"
                 "\nshop.instrument_client()\n```")


class SharedBlocksKB(FakeKB):
    """A docs site whose pages all end on the same "run it" block."""

    def articles_writing(self, snippet: str) -> int:
        return 12 if snippet == "shop run app.py -w" else 1


def test_a_code_block_every_page_shows_gets_no_how_to_bonus(tmp_path) -> None:
    """"Then run the following command: shop run app.py -w" closes every tutorial: it is no page's
    own example, so a how-to does not favour it over the page's instrumentation code."""
    from knowledge import composer

    question = "I run a model locally behind an OpenAI-style endpoint. How do I get the calls logged as steps?"
    hits = [hit(LOCAL_SERVER, "local.mdx", "Local servers"), Hit(LOCAL_EXAMPLE, "local.mdx", "Local servers", "", 1, 0.5)]
    embedder = get_embedder("minilm")

    def ranking(kb: FakeKB) -> dict[str, float]:
        candidates = composer._candidates(question, hits, kb, None, set())
        scores = composer._Scorer(question, embedder, tmp_path, kb).ranking(candidates)
        return {c.unit.text: score for c, score in zip(candidates, scores, strict=True) if c.unit.kind == "code"}

    plain, shared = ranking(FakeKB({})), ranking(SharedBlocksKB({}))
    run_block = next(text for text in plain if "shop run" in text)
    example = next(text for text in plain if "instrument_client" in text)
    assert shared[run_block] <= plain[run_block] - composer.BLOCK_BONUS
    assert shared[example] == pytest.approx(plain[example])


PIN_DESKTOP = ("To set a PIN in the desktop app:\n\n1. Open the Preferences window.\n"
               "2. Type the PIN you want in the box. Your PIN can be any mix of characters (a-z, 0-9, $, #).\n")
PIN_MOBILE = ("To set a PIN in the mobile app:\n\n1. Open the Settings tab.\n"
              "2. Type the PIN you want in the box. Your PIN can be any mix of numbers (0-9) only.\n")


def test_of_two_sibling_sections_telling_the_same_step_the_asked_one_answers(answer) -> None:
    """A page tells the same step under "Desktop" and "Mobile", worded alike but for what differs:
    the question's "on my phone" is answered from the mobile section, although retrieval ranked
    the desktop passage first."""
    hits = [hit(PIN_DESKTOP, "pin.md", "Unlock with PIN", "Set a PIN > Desktop app"),
            hit(PIN_MOBILE, "pin.md", "Unlock with PIN", "Set a PIN > Mobile app on your phone", rank=1)]
    result = answer("On my phone, which characters can my PIN use?", hits)
    assert "numbers (0-9) only" in result.text and "$, #" not in result.text, result.text
    result = answer("In the desktop app, which characters can my PIN use?", hits)
    assert "$, #" in result.text and "numbers (0-9) only" not in result.text, result.text


SSO = ("## Corporate SSO\n\nCreate a client in your identity provider's realm first.\n\n"
       "You have the option of changing the `id` of your SSO provider, which by default is `corpsso`. "
       "This is useful if you want to display a more appropriate name on your login page. "
       "Use the `SSO_PROVIDER_NAME` environment variable to set the name. "
       "Don't choose an `id` that another provider uses.\n\n"
       "The redirect address for your client should be: `APP_URL/auth/${SSO_PROVIDER_NAME}/callback`.")


def test_a_part_leaning_on_the_question_is_answered_beside_the_chosen_sentences(answer) -> None:
    """"Which variable renames it?" reads far from any sentence on its own ("it" is the button the
    question told of): the sentence right beside those quoted for the question, reading close to
    the whole question, answers it."""
    result = answer("Our login page shows a 'corpsso' button, but I'd like it to show our company's name. "
                    "Which variable renames it, and does that change the redirect address?",
                    [hit(SSO, "sso.md", "Single sign-on", "Corporate SSO")])
    assert "Use the `SSO_PROVIDER_NAME` environment variable" in result.text, result.text


EXPORT_LATEST = ("To export logins from the latest version:\n\n1. Navigate to `about:logins`.\n"
                 "2. Select the menu button from the top right and select Export Logins from the dropdown.\n")
EXPORT_FORKS = ("Some browsers built on Firefox keep the export elsewhere:\n\n1. Navigate to `about:preferences#privacy`.\n"
                "2. Click the menu button from the top right and select Export Logins from the dropdown.\n")


def test_a_heading_word_the_question_writes_keeps_its_section() -> None:
    """Of two sibling sections telling the same step, the one whose heading holds a word the
    question writes ("Firefox-based") is the one asked about, whatever the encoder reads closer;
    without such a word, the encoder decides."""
    from knowledge.composer import _in_asked_section, _units
    from knowledge.lexical import analyse_query

    candidates = _units([(hit(EXPORT_FORKS, "firefox.md", "Import from Firefox",
                              "Export > Export from Firefox-based browsers"), 0.0),
                         (hit(EXPORT_LATEST, "firefox.md", "Import from Firefox",
                              "Export > Export from the latest version", rank=1), 1.0)], set())
    fork, latest = (next(i for i, c in enumerate(candidates) if c.unit.kind == "item" and "menu button" in c.unit.text
                         and c.hit.section.endswith(leaf)) for leaf in ("Firefox-based browsers", "latest version"))
    candidates[fork].similarity, candidates[latest].similarity = 0.70, 0.75  # the encoder misses "don't work"
    on_waterfox = set(analyse_query("I'm on Waterfox and the usual Firefox steps don't work. Where is the export?",
                                    ["en", "fr"]))
    assert _in_asked_section([fork], candidates, on_waterfox) == [fork]
    plain = set(analyse_query("Where is the export button?", ["en", "fr"]))
    assert _in_asked_section([fork], candidates, plain) == [latest]


def test_a_shared_line_stays_when_the_list_holding_it_is_not_quoted() -> None:
    """A line is left to another article's list only when that list is quoted: a list dropped for
    repeating a step of a list quoted before it does not take the line with it."""
    from knowledge.composer import _one_telling, _units

    first = "To start:\n\n1. Open the Settings tab.\n2. Select the Account option.\n"
    second = "To begin:\n\n1. Open the Settings tab.\n2. Ask the front desk for a printed form.\n"
    third = "Ask the front desk for a printed form.\n\nIt takes a minute."
    candidates = _units([(hit(third, "c.md", "C"), 0.0), (hit(first, "a.md", "A", rank=1), 1.0),
                         (hit(second, "b.md", "B", rank=2), 2.0)], set())
    list_a, list_b = (next(c for c in candidates if c.unit.kind == "list" and c.hit.source == s) for s in ("a.md", "b.md"))
    line = next(c for c in candidates if c.hit.source == "c.md" and c.unit.text.startswith("Ask the front desk"))
    told = _one_telling([list_a, list_b, line])
    assert list_b not in told and line in told, [c.unit.text for c in told]


def test_a_question_for_a_package_finds_the_install_command_further_in_the_article(answer) -> None:
    """Retrieval found the page's set-up steps; the package to install is a code block of a later
    section: a question asking a name in code searches the article's code blocks too."""
    chunks = [Hit("To make your app available in the team chat, you will need to create a bot and set up the "
                  "necessary environment variables. Navigate to the portal and add the Bot feature.",
                  "teams.md", "Team chat", "", 0, 1.0),
              Hit("The bot library is not included in the app's dependencies. You will have to install it "
                  "manually.\n\n```bash\npip install botbuilder-core\n```", "teams.md", "Team chat",
                  "Install the library", 1, 0.0),
              Hit("The bot will have to be authorized by the chat admin before it can be used.",
                  "teams.md", "Team chat", "Authorize the bot", 2, 0.0)]
    result = answer("I set up the team chat bot as described, but my app fails at startup with a missing module. "
                    "Which package do I have to install myself?", [chunks[0], chunks[2]], kb=ArticleKB(chunks))
    assert "pip install botbuilder-core" in result.text, result.text


HOOKS = "The client package provides a set of React hooks to show who is signed in and to sign out from your own frontend."
SESSION_HOOK = """```tsx
import { useSession } from '@acme/client';

const Profile = () => {
  const { user, signOut } = useSession();
  return <button onClick={signOut}>{user.name}</button>;
};
```"""


def test_a_question_for_a_name_written_as_code_keeps_the_example_that_writes_it(answer) -> None:
    """"Which hook…?": a sentence of another article saying "hooks" names none; the example does."""
    result = answer("In my own frontend I want to show who is signed in and a sign-out button. Which hook from the package gives me that?",
                    [hit(SESSION_HOOK, "usage.md", "Usage", "The useSession hook"),
                     hit(HOOKS, "setup.md", "Installation", rank=1)])
    assert "useSession()" in result.text, result.text


BOOKMARK = ("Nope! Bookmarking the sign-in page with your team identifier included in its address will save you "
            "typing it each time. For example:\n\n"
            "- `https://app.example.com/login?team=your-team` for the cloud service\n"
            "- `https://your.domain/login?team=your-team` for self-hosted servers")


def test_a_sentence_followed_by_for_example_comes_with_the_examples() -> None:
    """The best sentence, then a bare "For example:" and the addresses: the answer made concrete."""
    from knowledge.composer import _units, _with_what_follows

    candidates = _units([(hit(BOOKMARK, "faq.md", "FAQ", "Do I need to enter my team identifier every time?"), 0.0)], set())
    at = {(c.hit.source, c.hit.chunk_index, c.order): i for i, c in enumerate(candidates)}
    best = next(i for i, c in enumerate(candidates) if c.unit.text.startswith("Bookmarking"))
    added = [candidates[i].unit for i in _with_what_follows([best], candidates, at) if i != best]
    assert [(u.kind, u.lead) for u in added] == [("list", "For example:")]
    assert not candidates[_with_what_follows([best], candidates, at)[1]].led  # its lead-in is quoted with it
