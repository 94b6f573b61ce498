"""The composer with `knowledge.polarity` and `knowledge.list_context` hooked in: what a person
walking the help center saw (a wrong "Oui", a lead-in twice and its list cut, items and labels
quoted out of their list)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from knowledge import composer
from knowledge.answer_types import CHOICES, states_type
from knowledge.composer import compose
from knowledge.fragments import fragment_reasons
from knowledge.passage_units import Unit, captions_code
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


DETACH = ("As a reseller, you may want to end your management of a customer account when you no longer serve "
          "them. In order for a customer account to be detached:\n\n"
          "- You must be a reseller administrator.\n"
          "- The customer account must have at least one verified owner.\n\n"
          "Once both hold, open the reseller console and choose Detach from the account's menu.")


def test_every_condition_of_a_requirement_list_is_quoted(answer) -> None:
    """Two conditions listed under "In order for X:" are both the answer, not the first alone."""
    result = answer("We're a reseller and no longer look after one customer's account. What has to be in place before "
                    "we can detach it from our console?",
                    [hit(DETACH, "resellers.md", "Detaching a customer account", "")])
    assert "reseller administrator" in result.text and "verified owner" in result.text


PUBLIC_KEYS = ("If you publish your bot for everyone, you should not store your own API key in the settings file.\n"
               "Instead, set `per_user_keys = [\"LLM_KEY\"]` in `bot.toml`.\n\n"
               "You can then read a visitor's keys in your code with:\n\n```python\nkeys = session.get(\"keys\")\n```")
PROVIDER = "Add your provider API key in the `PROVIDER_KEY` variable of the settings file."


def test_a_sentence_saying_what_not_to_do_comes_with_the_instead(answer) -> None:
    """"…you should not store your own key in the settings file." answers only with what follows it."""
    result = answer("My bot is going public and I don't want strangers spending my API key. How can each person "
                    "bring their own?", [hit(PUBLIC_KEYS, "keys.md", "API keys", "Public bots"),
                                         hit(PROVIDER, "provider.md", "Providers", "Keys", 1)])
    assert "should not store your own API key" in result.text and "per_user_keys" in result.text


CACHE_UPGRADE = ("Since the cached page layouts changed in 4.2, you need to rebuild them. To do so, delete the "
                 "`.site/layouts` folder and restart the server.\n\nThe rest of the upgrade needs no action.")
DEFAULT_ICON = ("The default bot icon is the site logo. See how to change the logo [here](/logo).\n"
                "However, you can give each bot its own icon by putting a picture in the `/static/icons` folder.")
BALANCER = ("Behind a load balancer, turn on sticky sessions. Even then, some balancers send a visitor to "
            "another server now and then. In that case set `keep_alive = false` in `site.toml`.\n\n"
            "Each server keeps its own cache.")


@pytest.mark.parametrize("question, page, said, how", [
    ("I upgraded to 4.2. What must I do about the page layouts the old version cached?", CACHE_UPGRADE,
     "you need to rebuild them", ".site/layouts"),
    ("Why does my bot use the site logo as its icon?", DEFAULT_ICON, "default bot icon", "/static/icons"),
    (("Sticky sessions are on, yet our balancer still sends some visitors to another server now and then. "
      "What can we do?"), BALANCER, "another server now and then", "keep_alive"),
])
def test_a_sentence_comes_with_the_one_saying_how(answer, question: str, page: str, said: str, how: str) -> None:
    """"…you need to rebuild them. To do so, delete…": the second says how; "The default is X.
    (a pointer) However, you can…": the third says how to do otherwise; "…some balancers send a
    visitor elsewhere. In that case set…": the second says what to do in the case the first names."""
    result = answer(question, [hit(page, "upgrade.md", "Upgrading", "")])
    assert said in result.text and how in result.text, result.text


TOKEN_ERRORS = ("If the server answers:\n\n```json\n{\n  \"error\": \"request hidden by access rules\",\n"
                "  \"code\": 403\n}\n```\n\nCheck that:\n\n- the key is sent in the `X-Api-Key` header\n"
                "- the key holds no spaces\n- the key was granted access to this project")
TOKEN_USE = "Send the key in the `X-Api-Key` header of every request. Keys are created from your profile page."


def test_the_error_a_question_quotes_is_not_its_answer(answer) -> None:
    """The output the question quotes is what the reader already has: the fix follows it."""
    result = answer("The server keeps saying \"request hidden by access rules\" although I have a key. How should "
                    "I send my key?", [hit(TOKEN_ERRORS, "errors.md", "Frequent errors", "Requests fail with my key"),
                                    hit(TOKEN_USE, "keys.md", "API keys", "Using a key", 1)])
    assert "request hidden by access rules" not in result.text and "If the server answers" not in result.text
    assert "Check that:" in result.text or "X-Api-Key" in result.text


SLIDER = ("`min` (int): The smallest value a user can pick. Defaults to 0.\n\n"
          "`max` (int): The largest value a user can pick. Defaults to 100.\n\n"
          "`step` (int): The interval between two values. Defaults to 1.")


def test_a_default_is_quoted_with_the_attribute_it_belongs_to(answer) -> None:
    result = answer("If I leave out the upper bound of the range widget, what is the largest value people can pick?",
                    [hit(SLIDER, "range.md", "Range widget", "Attributes")])
    assert "Defaults to 100." in result.text


BLOCKERS = ("By default, script blockers may stop the add-on from reaching the sync servers. Without a rule, "
            "signing in fails.\n\nAllowing the following domain in ScriptGuard is required: `sync.example.org`")


def test_a_sentence_handing_its_value_in_code_after_a_colon_is_quotable(answer) -> None:
    result = answer("I use ScriptGuard and the add-on can't sign in. What do I need to allow?",
                    [hit(BLOCKERS, "blockers.md", "Script blocker rules", "ScriptGuard")])
    assert "sync.example.org" in result.text


POLICY_STEPS = ("1. Download the policy templates.\n"
                "2. To turn off the browser's own password saving, add the following to `policies.json`:\n\n"
                "   ```\n   {\n    \"SavePasswords\": false\n   }\n   ```\n\n"
                "3. Deploy the file with your device management tool.")


def test_a_list_item_ending_on_a_colon_comes_with_its_code(answer) -> None:
    result = answer("What goes in policies.json to turn off the browser's own password saving?",
                    [hit(POLICY_STEPS, "deploy.md", "Deploying the add-on", "Firefox")])
    assert "add the following to `policies.json`" in result.text and '"SavePasswords": false' in result.text


WINDOWS_STEPS = ("4. Open the **Group Policy** editor.\n5. To stop the browser from saving passwords itself, set "
                 "`SavePasswords` to false in `policies.json`.")
MAC_STEPS = ("3. Open the **Profiles** pane.\n4. To stop the browser from saving passwords itself, set `SavePasswords` "
             "to false in `org.example.plist`.")


def test_two_lists_far_apart_under_the_same_heading_stay_two_lists(answer) -> None:
    """"Firefox:" under Windows, then under macOS: merged, the steps read 4, 5, 3, 4."""
    result = answer("Where do I tell the browser to stop saving passwords itself?",
                    [hit(WINDOWS_STEPS, "deploy.md", "Deploying the add-on", "Windows > Firefox", 3),
                     hit(MAC_STEPS, "deploy.md", "Deploying the add-on", "macOS > Firefox", 9)])
    numbers = [line.split(".")[0] for line in result.text.splitlines() if line[:1].isdigit()]
    assert numbers in (["4", "5", "3", "4"], ["3", "4", "4", "5"])
    assert result.text.count("Firefox:") == 2


COURT = "**Request to get back an identity document (passport, ID card, residence permit)**"
FORMS = ("Identity document: this field lets the applicant attach an ID card (front only), a passport or a residence "
         "permit. Accepted formats: jpg/png.")


def test_a_passage_of_labels_only_is_quoted_as_its_list(answer) -> None:
    """A page listing its procedures as bold labels has no sentence: the label is what it says."""
    result = answer("The court clerk kept my ID card. Can I ask for it back online?",
                    [hit(COURT, "court.md", "Procedures of the city court", "Criminal registry"),
                     hit(FORMS, "forms.md", "Form fields", "Attachments", 1)])
    assert "Request to get back an identity document" in result.text
    assert "Criminal registry:" in result.text


def test_an_article_talking_about_itself_is_not_a_label(answer) -> None:
    result = answer("Do you charge extra if my card payment fails?",
                    [hit("This article explains when you are charged and what happens if a payment fails",
                         "billing.md", "Billing", "Billing and payments"),
                     hit("There is no late fee. A failed payment is retried after 3 days.", "billing.md", "Billing",
                         "Failed payments", 1)])
    assert "This article explains" not in result.text and "no late fee" in result.text


GAUGE = ("`label` (str): The text shown above the gauge.\n\n"
         "`width` (int): Sets the width of the gauge in pixels. Only applies when `layout=\"grid\"`. "
         "Gauge widths range from 50 to 400 pixels, the default width being 120.")
SWATCHES = """The colour picker lets people choose a colour from the settings panel.

Pass `mode="swatches"` to show a row of preset colours instead of the full wheel:

```python
picker = ColourPicker(id="accent", mode="swatches", swatches=["#ff0000", "#00ff00"])
```

`swatches` (list[str]): The preset colours, as hex codes.

Note: Available since release 3.4.1."""


def test_a_sentence_between_two_quoted_ones_of_a_paragraph_is_kept(answer) -> None:
    result = answer("I set width=300 on my gauge but it always shows at the same size. Why is the width ignored?",
                    [hit(GAUGE, "gauge.md", "Gauge", "Parameters")])
    assert "Sets the width of the gauge" in result.text
    assert 'Only applies when `layout="grid"`' in result.text  # the restriction between them, not skipped


INSTALL = """The kit requires `python>=3.10`. Install it with pip:

```bash
pip install colourkit
```

This adds the `colourkit` command to your system. Check that everything runs smoothly:

```bash
colourkit demo
```

A window opens with a sample palette."""


def test_a_question_asking_two_things_gets_both(answer) -> None:
    result = answer("Which Python version does the kit need, and is there a quick command to check the install works?",
                    [hit(INSTALL, "install.md", "Installation", "Installation")])
    assert "python>=3.10" in result.text
    assert "colourkit demo" in result.text  # the second thing asked, with the block its sentence announces


def test_a_how_to_and_a_version_in_one_question_get_both(answer) -> None:
    result = answer("How do I show a row of preset colours in the picker, and which version do I need for it?",
                    [hit(SWATCHES, "colour-picker.md", "Colour picker", "Usage")])
    assert 'mode="swatches"' in result.text
    assert "3.4.1" in result.text


def test_a_part_asking_the_values_of_a_setting_gets_the_sentence_listing_them(answer) -> None:
    page = ("Version 3.0 changes how the reasoning is shown.\n\nThe `hide_steps` setting has been replaced with "
            "`steps`. The `steps` setting can be set to `hidden`, `compact`, or `full`. This setting controls the "
            "display of the reasoning steps in the UI.\n\nJoin the forum for live updates.")
    result = answer("My config.toml still sets hide_steps, and since upgrading it seems to be ignored. What replaced "
                    "it, and what values does the new option take?",
                    [hit(page, "migration.md", "Migration to 3.0", "Settings")])
    assert "replaced with `steps`" in result.text
    assert "`compact`" in result.text  # the second part: short, it reads far from every sentence on its own


def test_after_a_situation_the_sentence_that_answers_the_ask_follows_the_one_echoing_it(answer) -> None:
    """The question tells its situation first; units echoing it read closest to the whole question
    (here from three articles), and what the ask wants is said right after the best of them."""
    page = ("When your dropdown list is too long, you can upload a spreadsheet of its choices as a CSV reference "
            "file. Applicants only see its leftmost column.\n\nReviewers can export every application as a "
            "spreadsheet, one row per application.")
    result = answer("For a long dropdown I upload a spreadsheet holding the school name and several internal "
                    "columns. What will applicants see of it?",
                    [hit(page, "forms.md", "Building a form", "Choice lists"),
                     hit("The exported spreadsheet has as many columns as the form has fields, one application per "
                         "row.", "exports.md", "Exports", "Spreadsheet"),
                     hit("To fill a long dropdown faster, you can upload a spreadsheet holding the school names.",
                         "lists.md", "Lists", "Dropdowns"),
                     hit("Internal columns of a spreadsheet you upload are kept with the form.", "columns.md",
                         "Columns", "Internal columns")])
    assert "leftmost column" in result.text


def test_a_part_asking_a_version_gets_the_note_after_the_chosen_example_not_an_echo(answer) -> None:
    """"…and which version do I need?": a sentence naming the product reads closer to that part
    than the note "Since version 2.9.1." that closes the example in the next passage."""
    usage = ("Use `Tab` to group settings into named tabs when you have many inputs.\n\n```python\n"
             "settings = await cl.ChatSettings(tabs=[Tab(id=\"llm\", label=\"LLM\", inputs=[model])]).send()\n```")
    note = "Note: Since version 2.9.1.\n\nYou can also open the Chainlit settings with the / command."
    result = answer("My settings form has grown to twenty inputs. Can I split it into named sections, and which "
                    "Chainlit version do I need?",
                    [hit(usage, "settings.md", "Chat settings", "Tabs", 0),
                     hit(note, "settings.md", "Chat settings", "Tabs", 1)])
    assert "2.9.1" in result.text

def test_a_part_is_answered_by_a_unit_stating_its_type_that_reads_close_to_the_whole_question() -> None:
    """A part ("…and what values does it take?") is short: its own cosines run below the bar."""
    def candidate(kind: str, text: str, whole: float) -> composer._Candidate:
        return composer._Candidate(Unit(kind, text, 0, 0), hit(text, "m.md", "Migration"), 0.0, 0, [],
                                   similarity=whole)

    asks_values = SimpleNamespace(types=frozenset({CHOICES}), question="What values can it take?",
                                  states=lambda text: states_type(text, {CHOICES}, "What values can it take?"))
    listing = "The `steps` setting can be set to `hidden`, `compact`, or `full`."
    assert composer._answers_part(candidate("sentence", listing, 0.5), 0.25, asks_values)
    assert not composer._answers_part(candidate("sentence", listing, 0.2), 0.25, asks_values)  # far from the question
    assert not composer._answers_part(candidate("sentence", "This setting controls the display.", 0.5), 0.25,
                                      asks_values)  # states no value
    asks_no_type = SimpleNamespace(types=frozenset(), question="", states=lambda text: False)
    assert not composer._answers_part(candidate("sentence", listing, 0.5), 0.25, asks_no_type)
    assert composer._answers_part(candidate("sentence", "This setting controls the display.", 0.2), 0.35,
                                  asks_values)  # a part score above the bar is enough


def test_a_how_to_answered_by_a_sentence_gets_the_articles_example_naming_what_was_asked() -> None:
    def candidate(kind: str, text: str, source: str = "handler.md", whole: float = 0.5) -> composer._Candidate:
        return composer._Candidate(Unit(kind, text, 0, 0), hit(text, source, "Handler"), 0.0, 0, [],
                                   score=whole, similarity=whole)

    sentence = candidate("sentence", "Callback handler that shows the intermediate steps of a pipeline in the UI.", whole=0.7)
    example = candidate("code", "```python\nTraceManager([ck.WidgetKitCallbackHandler()])\n```", whole=0.4)
    run = candidate("code", "```bash\nchatkit run app.py -w\n```", whole=0.45)
    elsewhere = candidate("code", "```python\nWidgetKit.trace()\n```", source="other.md", whole=0.6)
    pool = [sentence, example, run, elsewhere]
    asked = "My pipeline is built with WidgetKit. How do I get its intermediate steps to show in the UI?"
    assert composer._with_example([0], pool, asked) == [0, 1]  # its own article's example, naming WidgetKit
    assert composer._with_example([0], pool, "How do I get the intermediate steps to show in the UI?") == [0]  # no name
    assert composer._with_example([0, 2], pool, asked) == [0, 2]  # code is quoted already


def test_two_articles_examples_under_the_same_lead_in_show_it_once(answer) -> None:
    lead = "Voici un exemple complet de script que vous pouvez exécuter :"
    result = answer("Comment lancer les scripts ruby d'exemple avec mon jeton ?",
                    [hit(f"{lead}\n\n```bash\nAPI_TOKEN=\"VOTRE_JETON\" ruby ./export_dossiers.rb\n```", "export.md", "Export"),
                     hit(f"{lead}\n\n```bash\nAPI_TOKEN=\"VOTRE_JETON\" ruby ./archive_dossiers.rb\n```", "archive.md", "Archive", index=1)])
    assert "export_dossiers.rb" in result.text and "archive_dossiers.rb" in result.text
    assert result.text.count(lead) == 1, result.text  # the fragment rules read a repeated line as a defect


UPGRADE_COLUMNS = """Before you upgrade, note that two fields have been added to the `orders` table since 3.0:

| Field | Since |
|-------|-------|
| `coupon` | 3.2 |
| `giftWrap` | 3.5 |

The rest of the schema is unchanged."""


def test_a_table_row_and_the_sentence_introducing_it_are_both_quoted(answer) -> None:
    # the row is encoded with its lead-in, so the two read alike; they were taken for one statement
    # and the row, which holds the answer, was left out
    result = answer("We just moved to 3.5. Which field do I have to add to the orders table?",
                    [hit(UPGRADE_COLUMNS, "schema.md", "Database schema", "Schema")])
    assert "giftWrap" in result.text, result.text
    assert "two fields have been added" in result.text, result.text  # the row is shown without its lead-in


HOOK_PAGE = """Hook called when the user closes the settings panel without saving.

The hook receives the settings as they were before the panel was opened.

```python
@app.on_settings_cancel
def restore(previous):
    print(previous)
```"""
PRODUCT_PAGE = """Route every model call through the gateway so that one key serves all providers.

Calls are logged as steps in the interface."""


def test_a_reference_page_answer_names_what_the_page_documents(answer) -> None:
    hits = [hit(HOOK_PAGE, "hooks/on-settings-cancel.mdx", "on_settings_cancel")]
    result = answer("What gets called when someone closes the settings panel without saving?", hits)
    assert result.text.startswith("`app.on_settings_cancel`: Hook called when"), result.text  # as its code calls it
    # a page titled in prose names nothing; a unit that writes the name as the code calls it needs it no more
    prose = answer("What gets called when someone closes the settings panel without saving?",
                   [hit(HOOK_PAGE, "hooks/cancel.mdx", "Closing the settings panel")])
    assert not prose.text.startswith("`"), prose.text
    named = answer("What gets called when someone closes the settings panel without saving?",
                   [hit(HOOK_PAGE.replace("Hook called", "`app.on_settings_cancel` is called"), "hooks/x.mdx",
                        "on_settings_cancel")])
    assert not named.text.startswith("`app.on_settings_cancel`:"), named.text
    # a product's page is titled like a name, but its text calls no such name
    product = answer("How do I send every model call through one gateway?",
                     [hit(PRODUCT_PAGE, "integrations/gatewayllm.mdx", "GatewayLLM")])
    assert "GatewayLLM" not in product.text, product.text


SETTINGS_PAGE = """### Drafts

`keep_drafts` (bool), default `false`: Keep unsent messages. When enabled, a message typed but not sent is still \
in the composer after a reload.

`theme` (str), default `light`: The color scheme of the interface."""


def test_a_sentence_of_a_field_description_comes_with_the_field_name(answer) -> None:
    """"When enabled, a message typed… is still there after a reload" describes a setting the
    reader cannot find without "`keep_drafts` (bool): …", the sentence naming it."""
    result = answer("I reload the page and the message I was typing is gone. Can it stay in the composer?",
                    [hit(SETTINGS_PAGE, "config/features.mdx", "Features", "Drafts")])
    assert "still in the composer after a reload" in result.text and "`keep_drafts`" in result.text, result.text
    assert result.text.index("`keep_drafts`") < result.text.index("When enabled"), result.text


RENDERING_PAGE = """### Rendering

`allow_raw_markup` (bool), default `false`: Render the raw markup that replies carry. Scripts in it run in the \
reader's browser.

`compact` (bool), default `false`: Show replies with less spacing."""


def test_the_sentence_naming_a_field_comes_with_the_rest_of_its_short_description(answer) -> None:
    """"…Render the raw markup that replies carry." is half the answer to "is there a catch?": the
    field's description goes on "Scripts in it run in the reader's browser"."""
    result = answer("Replies show the tags as text. Which setting renders them, and is there a catch?",
                    [hit(RENDERING_PAGE, "config/features.mdx", "Features", "Rendering")])
    assert "`allow_raw_markup`" in result.text and "Scripts in it run in the reader's browser" in result.text, \
        result.text
    assert result.text.index("Render the raw markup") < result.text.index("Scripts in it run"), result.text


TUTORIAL_PAGE = """In this tutorial, we'll walk through the steps to create an application integrated with Quill Engine.

The integration shows every Quill Engine plugin call as a step in the interface.

Here is an example that sets up the engine with a weather plugin:

```python
import quill_engine as qe

class WeatherPlugin:
    def forecast(self, city: str) -> str:
        return f"Sunny in {city}"

engine = qe.Engine(plugins=[WeatherPlugin()])
engine.add_filter(qe.StepFilter())
history = qe.History()
reply = engine.run("Weather in Paris?", history=history)
print(reply.text, reply.tokens, reply.latency)
```"""


def test_a_how_to_on_a_tutorial_gets_its_example_not_the_page_about_itself(answer) -> None:
    result = answer("I build my agent with Quill Engine. How do I get its plugin calls to show up as steps?",
                    [hit(TUTORIAL_PAGE, "integrations/quill.mdx", "Quill Engine")])
    assert "In this tutorial" not in result.text, result.text  # the page speaking of itself answers nothing
    assert "qe.StepFilter()" in result.text, result.text  # the example of the page titled by the name asked


PERMISSIONS = ("Complete the following steps to register the app for the sync tool:\n\n"
               "1. From your identity portal, open the Directory resource.\n2. Select App registrations.\n"
               "3. Select New registration and give the app a name.\n4. Select Register.\n\n"
               "To check whether the sync tool can reach your directory, open the Dashboard tab and select Test "
               "Connection. If it works, users and groups are listed in the window.\n\n"
               "Permissions of a new app can spread slowly, up to 20 minutes. In the meantime, you may "
               "receive `Not enough rights for this call` errors.")


def test_a_sentence_opening_on_in_the_meantime_comes_with_the_span_it_means(answer) -> None:
    """"In the meantime, you may receive … errors" is about the delay stated just before it."""
    result = answer("I registered the app but Test Connection answers 'Not enough rights for this call'. Did I miss "
                    "a step or do I just wait?", [hit(PERMISSIONS, "sync.md", "Directory sync", "Test")])
    assert "20 minutes" in result.text, result.text


LIST_IMPORT = ("**b) Imported list**\n\nWhen the list of choices is too long, you can import it from a csv file. "
               "Users only see the first column of the file.\n\n"
               "The file must not hold more than 4000 lines and must weigh at most 2 MB\n\n"
               "**c) Multiple choice**\n\nUsers can tick several values at once.")


def test_a_statement_left_without_its_full_stop_is_quotable_and_closed(answer) -> None:
    """A writer's unended line that states something is no title: the limit is in it. Bold lines
    ("b) Imported list") stay titles."""
    result = answer("How big can the imported csv file be?",
                    [hit(LIST_IMPORT, "admin.md", "Administrator guide", "Fields")])
    assert "4000 lines and must weigh at most 2 MB." in result.text, result.text
    assert "Imported list" not in result.text and "Multiple choice" not in result.text


def test_unended_titles_code_and_questions_stay_unquoted() -> None:
    units, quotable = composer._passage_units(
        "_Feedback and lessons learned from the road safety team_\n\n"
        "`API_TOKEN=\"your_token\" GROUP_LABEL=\"Group name\" ruby create_group.rb`\n\n"
        "Do you hold data about your users that you want to prefill a form with ?\n\n"
        "fragment PageInfoFragment on PageInfo { hasNextPage endCursor }\n\n"
        "The file must not hold more than 4000 lines and must weigh at most 2 MB")
    usable = {unit.text: ok for unit, ok in zip(units, quotable, strict=True)}
    assert usable == {"_Feedback and lessons learned from the road safety team_": False,
                      "`API_TOKEN=\"your_token\" GROUP_LABEL=\"Group name\" ruby create_group.rb`": False,
                      "Do you hold data about your users that you want to prefill a form with ?": False,
                      "fragment PageInfoFragment on PageInfo { hasNextPage endCursor }": False,
                      "The file must not hold more than 4000 lines and must weigh at most 2 MB": True}


SYNC_BRIDGE = """Most handlers are coroutines, so the framework is async by default.

### Calling a coroutine from plain code

If you need to run a coroutine inside a regular function, you can use the `block_on` helper provided by the library:

```python
from quill import block_on

async def fetch_report():
    return "report"

def main():
    report = block_on(fetch_report())
```

By following this guide, you should now understand how async code fits in your project."""


def test_the_best_unit_introducing_a_block_is_quoted_with_it(answer) -> None:
    """"…you can use the `block_on` helper…:" answers, and its example comes with it; dropped as a
    lead-in without its block, the answer was the guide's closing sentence."""
    result = answer("I'm inside a plain synchronous function and need to call one of my coroutines from there. Does "
                    "the library offer a helper for that?", [hit(SYNC_BRIDGE, "guides/async.mdx", "Async")])
    assert "block_on" in result.text and "def main" in result.text, result.text


TICKBOX_PAGE = """### Attributes

`id` (str): The identifier used to read the widget's value from the settings.

`initial` (bool): Whether the box is ticked when the panel opens.

### Usage

```python
from app_ui.widgets import Tickbox

panel = Panel([Tickbox(id="verbose", label="Verbose output", initial=False)])
```"""


def test_a_reference_page_titled_by_one_plain_word_names_it_too(answer) -> None:
    """"Tickbox" is written like a word, yet the page's code calls it: it is the class documented."""
    result = answer("I want a simple tick box in the settings panel for verbose output. Which widget is it, and "
                    "what keeps it unticked when the panel opens?", [hit(TICKBOX_PAGE, "widgets/tickbox.mdx", "Tickbox")])
    assert result.text.startswith("`Tickbox`: "), result.text


CLIP_PAGE = """The `Clip` class shows a video player for a video file in the chat.

### Example

```python
import app_ui as ui

await ui.Message(content="Here is the demo", elements=[ui.Clip(name="demo", path="./demo.mp4")]).send()
```"""


def test_a_documented_name_is_written_as_its_page_calls_it(answer) -> None:
    """The page says "the `Clip` class"; its code calls `ui.Clip(`: that is where it is imported from."""
    result = answer("I want the bot to play a short mp4 demo clip from my server's disk in one of its replies. "
                    "Which element class does that?", [hit(CLIP_PAGE, "elements/clip.mdx", "Clip")])
    assert result.text.startswith("`ui.Clip`: The `Clip` class"), result.text


OVERLAY = ("If the fill overlay isn't visible when you tap a password field, your phone may need a vendor setting "
           "turned on:\n\nFor Nimbus phones, enable Floating Windows:\n\n1. Open the Nimbus Phone Manager app.\n"
           "2. Tap Floating Windows.\n3. Slide the toggle to the right.")


def test_a_lead_in_kept_over_a_screenshot_ends_on_a_full_stop(answer) -> None:
    """"…may need a vendor setting turned on:" led a picture the reader dropped; the lead-in and list
    that follow are another's. Quoted with its colon, it read as the lead-in of a list it does not have."""
    result = answer("I have a Nimbus phone and the fill pop-up never shows when I tap a password box. What do I turn on?",
                    [hit(OVERLAY, "autofill.md", "Autofill", "Troubleshooting")])
    assert "Floating Windows" in result.text, result.text


def test_the_best_unit_leading_a_dropped_screenshot_comes_with_the_step_after_it() -> None:
    """"…select the Add App button:" announced a screenshot the reader dropped; the sentence after it
    is the next step ("type `relay connector`…"), which answers "which app do I search for?"."""
    texts = ["In the Admin Portal, open the Applications screen and select the Add App button:",
             "Type `relay connector` in the search field and pick Relay Connector (Advanced).",
             "Give it a display name of your choice and select Save."]
    units = [Unit("sentence", text, position, position) for position, text in enumerate(texts)]
    page = hit("\n\n".join(texts), "saml.md", "SAML", "Create an app")
    candidates = [composer._Candidate(u, page, 0.0, order, units) for order, u in enumerate(units)]
    at = {("saml.md", 0, order): order for order in range(len(units))}
    assert composer._with_what_follows([0], candidates, at) == [0, 1]
    assert composer._with_what_follows([2], candidates, at) == [2]  # no colon: nothing is announced


def test_a_yes_no_part_with_one_word_of_its_own_adds_no_sentence_sharing_that_word(answer) -> None:
    """"Est-ce normal, et à quelle fréquence ?": scored alone, "Est-ce normal" read closest to the
    sentence holding "normaux", which answers nothing; the sentence deciding the question answers it."""
    page = ("Une fois votre compte créé, vous recevrez un e-mail pour choisir votre mot de passe. Attention : tous les "
            "30 jours, pour des raisons de sécurité, nous vous enverrons un e-mail vous demandant de vérifier votre "
            "compte.\n\nLes annotations privées s'ajoutent ensuite comme des champs normaux du formulaire.")
    result = answer("Je suis administrateur et je reçois régulièrement un e-mail me demandant de vérifier mon compte. "
                    "Est-ce normal, et à quelle fréquence ?",
                    [hit(page, "admin.md", "Tutoriel administrateur", "Compte")])
    assert "tous les 30 jours" in result.text
    assert "normaux" not in result.text, result.text


TABBED = ("### Self-signed certificates\n\nThe command-line client trusts only public authorities. If your server shows "
          "a certificate you signed yourself, point the client at it with the variable `RELAY_EXTRA_CERTS`:\n\n"
          "Bash\n\n```\nexport RELAY_EXTRA_CERTS=\"/path/to/ca.pem\"\n```\n\n"
          "PowerShell\n\n```\n$env:RELAY_EXTRA_CERTS=\"/path/to/ca.pem\"\n```")


def test_a_lead_in_over_a_tab_caption_comes_with_its_code(answer) -> None:
    """A tabbed page read as text puts the tab's caption ("Bash") between the sentence ending on ":"
    and its code. The caption only names the tab: the sentence stays, with its colon and its code,
    instead of being dropped as a lead-in to nothing."""
    result = answer("Our server's certificate is one we signed ourselves and the command-line client refuses it. "
                    "What do I set?", [hit(TABBED, "cli.md", "Command line", "Self-signed certificates")])
    assert "with the variable `RELAY_EXTRA_CERTS`:\n```\nexport RELAY_EXTRA_CERTS" in result.text, result.text


def test_a_caption_is_a_few_words_over_a_code_block() -> None:
    units = [Unit("sentence", "Set the variable:", 0, 0), Unit("sentence", "Bash", 1, 1), Unit("code", "```\nx\n```", 2, 2),
             Unit("sentence", "Run it.", 3, 3), Unit("code", "```\ny\n```", 4, 4), Unit("sentence", "macOS", 5, 5)]
    assert [captions_code(units, k) for k in range(-1, len(units) + 1)] == [False, False, True, False, False, False,
                                                                             False, False]
