from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge.chunking import chunk_document, heading_name, pack, split_blocks, split_sections
from knowledge.loaders import Document
from relais.sentences import split_sentences

ARTICLE = """# Plans and pricing

FitTrack has three plans.

## Base plan
The base plan costs $10/month.

## Premium plan
The premium plan costs $20/month.

### Premium extras
Meal plans and wearables sync.

```
# not a heading inside a code fence
```
"""


def test_sections_follow_the_heading_path() -> None:
    sections = split_sections(ARTICLE, "Plans and pricing")
    assert [name for name, _ in sections] == ["", "Base plan", "Premium plan", "Premium plan > Premium extras"]
    assert "# not a heading" in sections[-1][1]


def test_chunks_keep_source_title_section_and_index() -> None:
    doc = Document(ARTICLE, "Plans and pricing", Path("plans.md"))
    chunks = chunk_document(doc, "billing/plans.md", chunk_size=900, chunk_overlap=150)
    assert [c.chunk_index for c in chunks] == list(range(len(chunks)))
    base = next(c for c in chunks if "$10/month" in c.text)
    assert (base.source, base.title, base.section) == ("billing/plans.md", "Plans and pricing", "Base plan")
    assert base.id == "billing/plans.md#1"
    # title and section are part of what gets embedded and indexed, not of the shown text
    assert base.index_text.startswith("Plans and pricing — Base plan\n")
    assert "Base plan" not in base.text


def test_long_section_is_split_with_overlap() -> None:
    body = " ".join(f"Sentence number {i} talks about topic {i}." for i in range(60))
    doc = Document(f"# Guide\n\n## Long part\n{body}", "Guide", Path("g.md"))
    chunks = chunk_document(doc, "g.md", chunk_size=300, chunk_overlap=80)
    assert len(chunks) > 5
    assert all(len(c.text) <= 300 + 80 for c in chunks)
    for previous, current in pairwise(chunks):
        first_sentence = split_sentences(current.text, lines_end_sentences=True)[0]
        assert first_sentence in previous.text  # the overlap repeats the previous tail
    assert all(c.section == "Long part" for c in chunks)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.text(alphabet="abcdefgh .\n", min_size=1, max_size=400), min_size=1, max_size=8),
    st.integers(min_value=60, max_value=400),
    st.integers(min_value=0, max_value=120),
)
def test_packing_bounds_and_keeps_every_word(paragraphs: list[str], size: int, overlap: int) -> None:
    body = "\n\n".join(paragraphs)
    chunks = pack(body, size, overlap)
    assert all(len(c) <= size + min(overlap, size // 2) for c in chunks)
    kept = set(" ".join(chunks).split())
    assert {w for w in body.split() if len(w) <= size} <= kept


@pytest.mark.parametrize("raw, name", [
    ("1. **Présentation**", "1. Présentation"),
    ("**2. Configuration du routage**", "2. Configuration du routage"),
    ("*Optional* settings", "Optional settings"),
    ("on_chat_start", "on_chat_start"),
    ("`__init__` and 2 * 3", "`__init__` and 2 * 3"),
    ("_- Avis externes :_", "Avis externes :"),  # GitBook: italics around a dash and a label
    ("The __init__ file", "The __init__ file"),  # a name, not emphasis
    ("__Bold words__ here", "Bold words here"),
])
def test_headings_are_read_without_emphasis_markers(raw: str, name: str) -> None:
    assert heading_name(raw) == name
    assert split_sections(f"# Page\n\n## {raw}\n\nBody.", "Page") == [(name, "Body.")]


def test_a_short_introduction_travels_with_the_long_example_it_introduces() -> None:
    code = "```python\n" + "\n".join(f"register_widget('w{i}', size={i})" for i in range(40)) + "\n```"
    body = f"Widgets are small panels shown beside the chat.\n\n{code}\n\nA closing remark about widgets."
    chunks = pack(body, 300, 60)
    first = chunks[0]
    assert first.startswith("Widgets are small panels shown beside the chat.\n\n```python")
    assert first.rstrip().endswith("```")  # the block is whole, after the sentence that introduces it
    assert not any(c.strip() == "Widgets are small panels shown beside the chat." for c in chunks)


def test_a_long_paragraph_before_a_long_example_stays_a_chunk_of_its_own() -> None:
    prose = " ".join(f"Sentence number {i} talks about panels at some length." for i in range(8))
    code = "```python\n" + "\n".join(f"register_widget('w{i}', size={i})" for i in range(40)) + "\n```"
    chunks = pack(f"{prose}\n\n{code}", 300, 60)
    assert not any(c.startswith("Sentence number 0") and "```" in c for c in chunks)
    assert any(c.startswith("```python") for c in chunks)


def test_a_table_under_a_step_is_a_table_not_words_of_the_step() -> None:
    body = ("4. Configure the following options:\n\n   |Option|Description|\n   |------|-----------|\n"
            "   |Server Port|Port of your server.|\n5. Select **Save**.")
    blocks = split_blocks(body)
    assert [b.kind for b in blocks] == ["list", "table", "list"]
    assert blocks[0].text == "4. Configure the following options:"
    assert blocks[1].text == "|Option|Description|\n|------|-----------|\n|Server Port|Port of your server.|"


def test_an_items_next_paragraph_starts_a_sentence_of_its_own() -> None:
    body = ("* **Titre d'identité :** formats acceptés : jpg/png, taille maximale : 20 Mo\n\n"
            "    De plus, le titre sera filigrané.\n* **Autre :** tout autre document")
    items = split_blocks(body)[0].text.splitlines()
    assert items[0] == "* **Titre d'identité :** formats acceptés : jpg/png, taille maximale : 20 Mo. De plus, le titre sera filigrané."
    wrapped = split_blocks("1. Select the option in\n   the Web Vault menu.\n2. Save.")[0].text.splitlines()
    assert wrapped[0] == "1. Select the option in the Web Vault menu."  # a wrapped line is the same sentence
