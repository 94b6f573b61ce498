from __future__ import annotations

from pathlib import Path

import pytest

from knowledge.errors import LoaderError
from knowledge.loaders import load_document
from tests.knowledge.conftest import make_pdf


def test_markdown_title_is_first_heading(tmp_path: Path) -> None:
    path = tmp_path / "plans.md"
    path.write_text("Intro line\n\n## Plans and pricing\nThe base plan costs $10/month.\n", encoding="utf-8")
    doc = load_document(path)
    assert doc.title == "Plans and pricing"
    assert "$10/month" in doc.text


def test_markdown_front_matter_title_and_bom(tmp_path: Path) -> None:
    path = tmp_path / "freeze.md"
    path.write_bytes("\ufeff---\ntitle: Freezing\nlang: en\n---\nBody text here.\n".encode("utf-8"))
    doc = load_document(path)
    assert doc.title == "Freezing"
    assert doc.text == "Body text here."


def test_text_without_heading_uses_file_stem(tmp_path: Path) -> None:
    path = tmp_path / "gym-opening_hours.txt"
    path.write_text("Open 6 am to 11 pm.", encoding="utf-8")
    assert load_document(path).title == "Gym opening hours"


def test_html_title_headings_and_no_script(tmp_path: Path) -> None:
    path = tmp_path / "hours.html"
    path.write_text(
        "<html><head><title>Opening hours</title><script>alert(1)</script></head><body>"
        "<h2>Weekends</h2><p>Open at 8 am.</p><nav>menu</nav></body></html>",
        encoding="utf-8",
    )
    doc = load_document(path)
    assert doc.title == "Opening hours"
    assert "## Weekends" in doc.text and "Open at 8 am." in doc.text
    assert "alert" not in doc.text and "menu" not in doc.text


def test_pdf_text_is_extracted(tmp_path: Path) -> None:
    path = tmp_path / "guide.pdf"
    path.write_bytes(make_pdf(["Workout plans", "Three sessions per week."]))
    doc = load_document(path)
    assert "Three sessions per week." in doc.text
    assert doc.title == "Guide"


@pytest.mark.parametrize(
    "name, content, reason",
    [
        ("binary.md", b"\x00\x01\x02PNG", "binary"),
        ("latin1.md", "Café crème".encode("latin-1"), "UTF-8"),
        ("empty.md", b"  \n\n ", "empty"),
        ("broken.pdf", b"%PDF-1.4\nthis is not a pdf", "PDF"),
        ("image.png", b"\x89PNG", "unsupported"),
    ],
)
def test_bad_files_raise_with_reason(tmp_path: Path, name: str, content: bytes, reason: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(LoaderError) as info:
        load_document(path)
    assert reason in info.value.reason
    assert info.value.path == path


def test_too_large_file(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_text("word " * 300_000, encoding="utf-8")  # ~1.4 MB
    with pytest.raises(LoaderError, match="too large"):
        load_document(path, max_file_mb=1.0)


def test_a_page_with_any_text_is_indexed(tmp_path) -> None:
    from knowledge.chunking import chunk_document

    only_front = tmp_path / "send-ios.md"
    only_front.write_text('---\ntitle: Send from iOS\ndescription: "Share a Send from the iOS share menu."\n---\n')
    headings = tmp_path / "links.md"
    headings.write_text("# Related\n\n## See the FAQ\n")
    for path in (only_front, headings):
        doc = load_document(path)
        assert chunk_document(doc, path.name), path.name
    assert "Share a Send from the iOS share menu." in load_document(only_front).text


def test_a_folded_yaml_description_makes_a_title_only_page_readable(tmp_path: Path) -> None:
    """YAML front matter is read as YAML: a `>-` description is its text, not ">-"; a page with
    a body of its own is read as it is."""
    page = tmp_path / "routing.md"
    page.write_text("---\ndescription: >-\n  Files can be sent to groups of agents,\n  from what the form says.\n---\n\n"
                    "# Routing files\n", encoding="utf-8")
    doc = load_document(page)
    assert doc.title == "Routing files"
    assert doc.text == "# Routing files\n\nFiles can be sent to groups of agents, from what the form says."
    body = tmp_path / "body.md"
    body.write_text("---\ntitle: Hooks\ndescription: Runs at start.\n---\nUse it to set up state.\n", encoding="utf-8")
    assert load_document(body).text == "Use it to set up state."
    mdx = tmp_path / "hooks.mdx"
    mdx.write_text('---\ntitle: "on_chat_start"\ndescription: "Runs when a new chat session starts."\n---\n', encoding="utf-8")
    doc = load_document(mdx)
    assert doc.title == "on_chat_start" and "Runs when a new chat session starts." in doc.text


def test_front_matter_that_is_not_yaml_leaves_the_body_readable(tmp_path: Path) -> None:
    page = tmp_path / "odd.md"
    page.write_text("---\ntitle: [unclosed\n---\nThe body still counts.\n", encoding="utf-8")
    doc = load_document(page)
    assert doc.text == "The body still counts." and doc.title == "Odd"
