"""The one sentence splitter (chunking and the composer both use it)."""

from relais.sentences import split_sentences


def test_prices_and_abbreviations_do_not_end_a_sentence() -> None:
    text = "The plan costs $10.99 per month, e.g. for students. The desk opens at 8 a.m. Staff help then!"
    assert split_sentences(text) == [
        "The plan costs $10.99 per month, e.g. for students.", "The desk opens at 8 a.m. Staff help then!",
    ]


def test_closing_quotes_and_brackets_stay_with_their_sentence() -> None:
    assert split_sentences('He said "stop." Then left. (See above.) Done… Next?') == [
        'He said "stop."', "Then left.", "(See above.)", "Done…", "Next?",
    ]


def test_line_breaks_end_sentences_only_when_asked() -> None:
    text = "Renews monthly!\n- Item one\n- Item two"
    assert split_sentences(text, lines_end_sentences=True) == ["Renews monthly!", "- Item one", "- Item two"]
    assert split_sentences(text) == [text]


def test_an_abbreviation_at_a_line_end_does_not_swallow_the_next_line() -> None:
    assert split_sentences("Bring shoes, towels, etc.\nLockers are free.", lines_end_sentences=True) == [
        "Bring shoes, towels, etc.", "Lockers are free.",
    ]


def test_a_number_after_an_abbreviation_starts_a_new_sentence() -> None:
    assert split_sentences("Pay at the door etc. 3 guests max. Open 7 a.m. Every day.") == [
        "Pay at the door etc.", "3 guests max.", "Open 7 a.m. Every day.",
    ]


def test_no_sentence_ends_inside_an_open_bracket_or_after_a_month_abbreviation() -> None:
    assert split_sentences("The plan (introduced Sep. 2020) covers 6 members. So no!") == [
        "The plan (introduced Sep. 2020) covers 6 members.", "So no!",
    ]
    assert split_sentences("Plans changed in Sept. 2021 for everyone. Ask us.") == [
        "Plans changed in Sept. 2021 for everyone.", "Ask us.",
    ]
    assert split_sentences("Open it (see the guide. It helps). Then go.") == [
        "Open it (see the guide. It helps).", "Then go.",
    ]
