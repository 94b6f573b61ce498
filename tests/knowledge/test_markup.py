"""Templated Markdown reads as the rendered page (knowledge.markup): one test per markup family."""

from __future__ import annotations

from knowledge.fragments import fragment_reasons
from knowledge.markup import clean_markup


def test_jekyll_liquid_callouts_icons_captures_and_site_variables() -> None:
    text = (
        "Sends are removed after 7 days.\n\n"
        "{% callout warning %}\nAfter 5 failed attempts you are logged out.\n{% endcallout %}\n\n"
        "{% capture web %}\n### From the web app\n\n1. Open {% icon fa-cog %} **Settings**.\n2. Select **Save**.\n"
        "{% endcapture %}\n{{ web | markdownify }}\n\n"
        "See [the policies]({{site.baseurl}}/article/policies/){:target=\"\\_blank\"} and "
        "[Okta]({% link _articles/directory/okta.md %}).\n{% image send/ticker.png Ticker %}\n"
    )
    clean = clean_markup(text)
    assert "Warning: After 5 failed attempts you are logged out." in clean
    assert "### From the web app" in clean and "1. Open **Settings**.\n2. Select **Save**." in clean
    assert "[the policies](/article/policies/)" in clean and "[Okta](_articles/directory/okta.md)" in clean
    for debris in ("{%", "%}", "{{", "}}", "{:", "markdownify", "ticker.png"):
        assert debris not in clean


def test_an_icon_in_brackets_leaves_no_empty_brackets_nor_a_space_before_the_full_stop() -> None:
    clean = clean_markup("Confirm it is on, as shown by a green tick ( {% icon fa-check %} ).")
    assert clean == "Confirm it is on, as shown by a green tick."


def test_a_callout_inside_a_step_stays_inside_the_step() -> None:
    clean = clean_markup("1. Enter a PIN.\n\n   {% callout success %}Uncheck the box to keep it.{% endcallout %}\n"
                         "2. Save.\n")
    assert "1. Enter a PIN.\n\n   Tip: Uncheck the box to keep it.\n" in clean
    assert clean.rstrip().endswith("2. Save.")


def test_gitbook_hints_tabs_content_refs_and_files() -> None:
    text = (
        "# Tutoriel\n\n{% hint style=\"warning\" %}\nLes champs marqués d'un astérisque sont obligatoires.\n"
        "{% endhint %}\n\n{% tabs %}\n{% tab title=\"Usager\" %}\nLe dossier est déposé.\n{% endtab %}\n"
        "{% tab title=\"Instructeur\" %}\nLe dossier est instruit.\n{% endtab %}\n{% endtabs %}\n\n"
        "{% content-ref url=\"faq.md\" %}\n[faq.md](faq.md)\n{% endcontent-ref %}\n\n"
        "{% file src=\"../.gitbook/assets/modele.pdf\" %}\n"
    )
    clean = clean_markup(text)
    assert "Attention : Les champs marqués d'un astérisque sont obligatoires." in clean
    assert "###### Usager\n\nLe dossier est déposé." in clean and "###### Instructeur" in clean
    assert "[faq.md](faq.md)" in clean
    assert "{%" not in clean and "modele.pdf" not in clean


def test_a_callouts_statement_ends_as_a_sentence_even_without_a_full_stop() -> None:
    """Callouts hold statements: one written without a final full stop is still quotable (the
    composer reads an unpunctuated line as a title); its lists and code are left as they are."""
    text = ('{% hint style="danger" %}\nRequests go to the endpoint: **https://api.example.org/v2/graphql**\n{% endhint %}\n\n'
            ":::note\nUse the verb **POST**\n:::\n\n"
            "{% callout info %}\n- first point\n- second point\n{% endcallout %}\n")
    clean = clean_markup(text)
    assert "Warning: Requests go to the endpoint: **https://api.example.org/v2/graphql**." in clean
    assert "Note: Use the verb **POST**." in clean
    assert "- first point\n- second point" in clean and "point." not in clean
    from knowledge.passage_units import units_of
    sentences = [u.text for u in units_of(clean) if u.kind == "sentence"]
    assert "Note: Use the verb POST." in sentences


def test_hugo_shortcodes() -> None:
    text = ('{{< note >}}\nBackups run nightly.\n{{< /note >}}\n\n{{% warning title="Careful" %}}Keys never leave the '
            'device.{{% /warning %}}\n\nSee {{< ref "install.md" >}} and {{< youtube id="abc" >}}.\n')
    clean = clean_markup(text)
    assert "Note: Backups run nightly." in clean
    assert "Warning: Keys never leave the device." in clean
    assert "{{" not in clean and "youtube" not in clean


def test_docusaurus_and_mkdocs_admonitions() -> None:
    text = (":::tip Pro tip\nUse the CLI to script it.\n:::\n\n"
            "!!! warning \"Data loss\"\n    Purging deletes every item.\n\n    It cannot be undone.\n\nAfter.\n")
    clean = clean_markup(text)
    assert "Tip — Pro tip: Use the CLI to script it." in clean
    assert "Warning — Data loss: Purging deletes every item." in clean and "It cannot be undone." in clean
    assert ":::" not in clean and "!!!" not in clean and clean.endswith("After.")


def test_every_ascii_punctuation_escape_is_read_as_its_character() -> None:
    clean = clean_markup(r"""* Nom de la démarche \=> reprenez-le
* Un \"arrêté\" \& \<date\> \: fin
""")
    assert "Nom de la démarche => reprenez-le" in clean
    assert 'Un "arrêté" & <date> : fin' in clean


def test_a_table_cells_paragraphs_and_items_stay_in_its_row() -> None:
    """GitBook writes a cell holding two statements as `<p>…</p><p>…</p>`: read as new lines, they
    cut the row in two and the second statement lost its row (and read as a title)."""
    text = ("| Data | Kept for |\n| --- | --- |\n"
            "| Account | <p>Deleted on request</p><p>Deleted after 3 years without sign-in</p><p><br></p> |\n"
            "| Logs | <ul><li>90 days</li><li>1 year for audits</li></ul> |\n\n<p>Outside</p><ul><li>an item</li></ul>")
    clean = clean_markup(text)
    assert "| Account | Deleted on request. Deleted after 3 years without sign-in |" in clean
    assert "| Logs | 90 days. 1 year for audits |" in clean
    assert "Outside\n\n- an item" in clean


def test_inline_html_entities_and_escapes() -> None:
    text = (
        "<ul class=\"nav nav-tabs\"><li><a class=\"nav-link\">Web Vault</a></li></ul>\n"
        "<div class=\"tab-pane\">\nOpen **Settings** &rarr; **Billing**.&#x20;\n</div>\n\n"
        "|Feature|Free|Premium|\n|---|---|---|\n|TOTP|-|<i class=\"fa fa-check\" aria-hidden=\"true\"></i>|\n\n"
        "Line one<br>line two. Use <code>bw sync</code> or `<id>` &amp; <strong>save</strong>.\\\n"
        "<figure><img src=\"a.png\" alt=\"\"><figcaption>Screenshot</figcaption></figure>\n"
        "![](<../.gitbook/assets/image (1).png>)\n<!-- screenshot {\"url\": \"x\"} -->\n"
    )
    clean = clean_markup(text)
    assert "Web Vault" not in clean  # the tab bar is navigation, not content
    assert "Open **Settings** → **Billing**." in clean
    assert "|TOTP|-|Yes|" in clean
    assert "Line one\nline two. Use `bw sync` or `<id>` & **save**." in clean
    for debris in ("&#x20;", "&rarr;", "<br>", "<div", "Screenshot", "image (1)", "screenshot", "\\"):
        assert debris not in clean


def test_fenced_code_and_code_spans_are_untouched() -> None:
    text = "Run `{{ name }}` here:\n\n```liquid\n{% if user %}&amp;<br>\n  {{ user }}\n{% endif %}\n```\n"
    clean = clean_markup(text)
    assert "`{{ name }}`" in clean
    assert "```liquid\n{% if user %}&amp;<br>\n  {{ user }}\n{% endif %}\n```" in clean


def test_nested_lists_keep_nesting_and_source_numbering() -> None:
    text = "1. Open the vault.\n3. Select **Tools**:\n   - Export\n   - Import &rarr; file\n4. Done.\n"
    clean = clean_markup(text)
    assert clean == "1. Open the vault.\n3. Select **Tools**:\n   - Export\n   - Import → file\n4. Done."


def test_fragment_rules_flag_markup_that_reaches_an_answer() -> None:
    for answer in ("Open Settings &rarr; Billing. [1]", "{% callout info %}Sends last 7 days. [1]",
                   "Sends last 7 days.<br> [1]", "Use the {{site.baseurl}} page. [1]",
                   ":::note Sends last 7 days. [1]", "Export as .json files (). [1]",
                   "> Astuce Rien à faire. [1]", "> [!NOTE]\nKeys stay local. [1]", "See [Web Crypto][webcrypto]. [1]",
                   "By default, Never.| |Maximum Access Count|Disabled after it. [1]",
                   "Follow the instructions to export an Organization Vault.. [1]",
                   "- Nom de la démarche \\=> vous pouvez la reprendre. [1]",
                   "The `` tag embeds another page; set its `src`. [1]"):
        assert "markup_artifact" in fragment_reasons(answer), answer
    assert "markup_artifact" not in fragment_reasons("Run `{{ name }}` to print it. [1]")
    assert "markup_artifact" not in fragment_reasons("Wait… then retry... Use `a || b` or 2 > 1. [1]")
    assert "markup_artifact" not in fragment_reasons("Run `C:\\Tools\\bw.exe \\--help` from C:\\Users. [1]")


def test_a_callout_holding_a_code_block_keeps_its_label_and_its_code() -> None:
    text = ("Install it.\n\n{% callout success %}\nOn UNIX you may get `Permission denied`. If so, run:\n\n"
            "```\nchmod +x bw\n```\n{% endcallout %}\n\n{% hint style=\"warning\" %}\n```bash\nbw lock\n```\n"
            "{% endhint %}\n\n:::note\n```yaml\n{% raw %}key: 1{% endraw %}\n```\nThen restart.\n:::\n\n"
            "!!! tip \"Script it\"\n    Run:\n\n    ```bash\n    bw sync\n      --force\n    ```\n\nAfter.\n")
    clean = clean_markup(text)
    assert "Tip: On UNIX you may get `Permission denied`. If so, run:\n\n```\nchmod +x bw\n```" in clean
    assert "Warning:\n```bash\nbw lock\n```" in clean
    assert "Note:\n```yaml\n{% raw %}key: 1{% endraw %}\n```\nThen restart." in clean  # code is untouched
    assert "Tip — Script it: Run:\n\n```bash\nbw sync\n  --force\n```" in clean  # dedented with its body
    for debris in ("callout", "endhint", ":::", "!!!"):
        assert debris not in clean


def test_a_callout_that_opens_on_its_label_is_not_labelled_twice() -> None:
    french = clean_markup('{% hint style="danger" %}\nAttention, le jeton n\'est affiché qu\'à la création !\n{% endhint %}\n')
    assert french.strip() == "Attention, le jeton n'est affiché qu'à la création !"
    english = clean_markup("{% callout warning %}**Warning**: keep it safe.{% endcallout %}\n")
    assert english.strip() == "**Warning**: keep it safe."
    assert clean_markup("{% callout warning %}Warnings stay in the log.{% endcallout %}\n").strip() == (
        "Warning: Warnings stay in the log.")  # another word that starts alike is no label


def test_a_template_tag_quoted_in_a_code_span_is_not_a_callout() -> None:
    clean = clean_markup("Wrap a warning in `{% hint style=\"warning\" %}` and close it with `{% endhint %}`.\n")
    assert clean == "Wrap a warning in `{% hint style=\"warning\" %}` and close it with `{% endhint %}`."


def test_pipe_rows_without_a_header_rule_read_as_items() -> None:
    text = ("4. Open **Options**:\n\n   |**Deletion Date**|Deleted on that date. By default, 7 days.|\n"
            "   |**Expiration Date**|Expires then. By default, **Never**.\n   |**Notes**|\n\n"
            "|Plan|Users|\n|:-:|:--|\n|Free|1|\nPremium|1\n|Families|6|\n")
    clean = clean_markup(text)
    assert ("4. Open **Options**:\n\n   - **Deletion Date**: Deleted on that date. By default, 7 days.\n"
            "   - **Expiration Date**: Expires then. By default, **Never**.\n   - **Notes**\n") in clean
    assert "|Plan|Users|\n|:-:|:--|\n|Free|1|\n|Premium|1|\n|Families|6|" in clean  # a table with a rule stays one


def test_a_ruled_tables_rows_without_end_pipes_are_still_its_rows() -> None:
    text = ("Term | Definition\n|---|----|\n|Autofill|Fills a field. |\nCollections |A unit for sharing. |\n"
            "Groups |A unit of people.<br>They inherit permissions.\n\nA sentence with a | pipe after the table.\n"
            "Setext heading\n---\n")
    clean = clean_markup(text)
    assert clean.startswith("|Term | Definition|\n|---|----|\n|Autofill|Fills a field. |\n"
                            "|Collections |A unit for sharing. |\n|Groups |A unit of people. They inherit permissions.|\n")
    assert "\nA sentence with a | pipe after the table.\nSetext heading\n---" in clean  # not a row: a blank line ended it


def test_a_word_ending_on_two_full_stops_ends_on_one() -> None:
    clean = clean_markup("Nous validons qu'il n'a pas été altéré etc.. Nous renvoyons trois... points.\n\n"
                         "Run `cd ..` then read ../docs or 1..5.\n")
    assert clean == ("Nous validons qu'il n'a pas été altéré etc. Nous renvoyons trois... points.\n\n"
                     "Run `cd ..` then read ../docs or 1..5.")
    assert not fragment_reasons(clean)


def test_reference_style_links_read_as_inline_links() -> None:
    text = ("Libraries:\n- [Web Crypto][webcrypto]\n- [Forge][] and [PBKDF2][missing]\n\n```\n[not][a-link]\n```\n\n"
            "[webcrypto]: https://w3c.github.io/webcrypto/\n[forge]: <https://github.com/digitalbazaar/forge> \"Forge\"\n")
    clean = clean_markup(text)
    assert "- [Web Crypto](https://w3c.github.io/webcrypto/)" in clean
    assert "- [Forge](https://github.com/digitalbazaar/forge) and PBKDF2" in clean
    assert "```\n[not][a-link]\n```" in clean and "]:" not in clean


def test_a_line_break_or_image_in_a_step_keeps_the_list_whole() -> None:
    text = ("1. Select **Triggers**.\n\n   {% callout success %}For example, a weekly trigger:<br><br>"
            "{% image tasks/trigger.png %}{% endcallout %}\n2. Select **Actions**.<br>Then **New**.\n3. Select **OK**.\n")
    clean = clean_markup(text)
    assert clean == ("1. Select **Triggers**.\n\n   Tip: For example, a weekly trigger:\n\n"
                     "2. Select **Actions**.\n   Then **New**.\n3. Select **OK**.")


def test_a_faqs_answer_label_goes_and_a_link_ending_a_sentence_adds_no_second_full_stop() -> None:
    faq = "### Q: Can I self-host?\n\n**A:** Yes. Self-hosting is free.\n\n#### Q: Which database?\n\nA: MSSQL.\n"
    assert clean_markup(faq) == "### Q: Can I self-host?\n\nYes. Self-hosting is free.\n\n#### Q: Which database?\n\nMSSQL."
    assert clean_markup("Plan A: the cheapest.\n") == "Plan A: the cheapest."  # no FAQ: nothing is a label
    hint = ("{% callout warning %}\nTo export an Organization, follow [the export steps.](#export-an-org)\n"
            "{% endcallout %}\n")
    assert clean_markup(hint) == "Warning: To export an Organization, follow [the export steps.](#export-an-org)"


def test_blockquotes_lose_their_markers_and_a_labelled_one_is_a_callout() -> None:
    text = ("Intro.\n\n> **Astuce** En cas d’erreur, l’usager n’a rien à faire.\n\n> [!WARNING]\n> Keys never leave\n"
            "> the device\n\n> A plain quote.\n> > Nested.\n\n```\n> npm install\n```\n")
    clean = clean_markup(text)
    assert "Astuce : En cas d’erreur, l’usager n’a rien à faire." in clean
    assert "Warning: Keys never leave\nthe device." in clean
    assert "A plain quote.\nNested." in clean
    assert "```\n> npm install\n```" in clean  # code is left as it is
    assert "\n>" not in clean.replace("```\n> npm", "")
