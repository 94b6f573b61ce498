"""Every docs format of the test corpus (tests/data/docs_corpus) loads as the Markdown the
chunker reads: MDX noise gone and component text kept, reStructuredText and Word structure kept,
code blocks whole with their indentation, hard-wrapped prose joined, table rules never text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from knowledge._mdx import mdx_to_markdown
from knowledge.chunking import chunk_document, split_blocks
from knowledge.errors import LoaderError
from knowledge.ingest import ingest_folder
from knowledge.loaders import load_document
from knowledge.retrieval import KnowledgeBase
from knowledge.settings import KnowledgeSettings
from relais.settings import Settings
from tests.conftest import REPO_ROOT

CORPUS = REPO_ROOT / "tests" / "data" / "docs_corpus"
_TAG = re.compile(r"</?[A-Za-z][\w.]*(\s[^<>]*)?/?>")


def chunks_of(name: str, size: int = 900) -> list:
    return chunk_document(load_document(CORPUS / name), name, size, 150)


def code_blocks(text: str) -> list[str]:
    return re.findall(r"```.*?\n```", text, re.DOTALL)


def test_mdx_keeps_component_text_and_drops_markup() -> None:
    doc = load_document(CORPUS / "quickstart.mdx")
    assert doc.title == "Quickstart"  # from the front matter
    assert not _TAG.search(re.sub(r"```.*?```", "", doc.text, flags=re.DOTALL))
    for noise in ("import {", "export const", "This page is shown first", "M8 0L0", "href=", "icon="):
        assert noise not in doc.text
    assert "**Install the package**" in doc.text and "Configure the broker" in doc.text  # titles kept
    assert "Producer, broker and workers" in doc.text  # an image's alt text
    api = load_document(CORPUS / "api" / "overview.mdx").text
    assert "`Authorization` (string), required: A bearer token" in api
    assert "`job_id` (string): The identifier" in api


def test_mdx_keeps_the_tag_a_code_span_names() -> None:
    text = mdx_to_markdown("Embed it with an HTML `<iframe>` tag.\n\n<Note>\n  Load it at the end of `<body>`.\n</Note>\n")
    assert "an HTML `<iframe>` tag." in text and "Note: Load it at the end of `<body>`." in text


def test_mdx_code_inside_a_component_is_dedented_and_whole() -> None:
    (block,) = code_blocks(load_document(CORPUS / "quickstart.mdx").text)
    assert block.startswith("```python tasks.py\nimport skiff\n")
    assert "\n@app.task(retries=3, timeout=30)\ndef send_welcome_email" in block
    assert "\n    mailer.send(user.email" in block  # the function body keeps its indentation


def test_rst_sections_code_tables_and_sphinx_roles() -> None:
    doc = load_document(CORPUS / "configuration.rst")
    assert doc.title == "Configuration"
    assert "## Broker" in doc.text and "## Timeouts and retries" in doc.text
    assert "`skiff.Settings`" in doc.text and ":class:" not in doc.text
    assert "**Note:** Restart every worker" in doc.text
    assert "| `SKIFF_MAX_RETRIES` | `5` | Attempts for a failing task, first one included. |" in doc.text
    assert "New in version 2.3:" in doc.text
    (block,) = code_blocks(doc.text)
    assert '\n    broker="amqp://guest@rabbit:5672//",' in block


def test_docx_headings_lists_tables_and_code() -> None:
    doc = load_document(CORPUS / "deployment.docx")
    assert doc.title == "Deploying workers"
    assert "## Health checks" in doc.text
    assert "1. Send SIGTERM to one worker.\n2. Wait until" in doc.text
    assert "| emails | 2 | 256 MB |" in doc.text
    (block,) = code_blocks(doc.text)
    assert "ExecStart=/usr/bin/skiff worker tasks:app --concurrency 4" in block


def test_broken_docx_and_rst_are_reported(tmp_path: Path) -> None:
    bad = tmp_path / "broken.docx"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(LoaderError, match="Word document"):
        load_document(bad)


def test_a_long_code_block_is_one_chunk_with_indentation_and_blank_lines() -> None:
    chunks = chunks_of("cli.md", size=400)
    code = [c for c in chunks if "class NetworkOnly" in c.text]
    assert len(code) == 1  # never cut in two, even above the chunk size
    (block,) = code_blocks(code[0].text)
    assert "    def delay(self, attempt: int) -> float:\n        base = min(60.0, 2.0 ** attempt)\n\n        # full jitter" in block
    assert block.rstrip().endswith('account_id)\n```')
    assert code[0].section == "A custom retry policy"
    assert code[0].text.startswith("To retry only on network errors")  # its lead-in travels with it


def test_prose_is_joined_across_hard_line_breaks_and_tables_stay_tables() -> None:
    chunks = chunks_of("cli.md")
    intro = chunks[0].text
    assert "Every sub-command accepts `--app MODULE:ATTR` to name" in intro  # a wrapped line joined
    table = next(c.text for c in chunks if "skiff purge" in c.text)
    assert "| `skiff purge QUEUE` | Deletes every waiting job of a queue |" in table
    assert not re.search(r"(?m)^-{3,}$", table)


def test_a_long_table_is_cut_between_rows_with_its_header_repeated() -> None:
    rows = "\n".join(f"| plan-{i} | {i} $ | option number {i} of the catalogue |" for i in range(40))
    body = "| Plan | Price | Note |\n|---|---|---|\n" + rows
    from knowledge.chunking import pack

    parts = pack(body, 300, 50)
    assert len(parts) > 3
    assert all(p.startswith("| Plan | Price | Note |\n|---|---|---|\n| plan-") for p in parts)
    assert sum(p.count("| plan-") for p in parts) == 40


def test_blocks_of_a_mixed_body() -> None:
    body = "Intro line one\nline two.\n\n- item one\n  continued\n- item two\n\n```py\nx = 1\n\n  y = 2\n```\n| a | b |\n|---|---|\n| 1 | 2 |"
    assert [(b.kind, b.text) for b in split_blocks(body)] == [
        ("prose", "Intro line one line two."),
        ("list", "- item one continued\n- item two"),
        ("code", "```py\nx = 1\n\n  y = 2\n```"),
        ("table", "| a | b |\n|---|---|\n| 1 | 2 |"),
    ]


def test_ingest_reports_every_kind_and_titles_tell_pages_apart(tmp_path: Path) -> None:
    settings = KnowledgeSettings(relais_kb_dir=CORPUS, relais_embedding_model="minilm").on(Settings(relais_data_dir=tmp_path / "data"))
    kb = KnowledgeBase(settings)
    report = ingest_folder(CORPUS, settings, show_progress=False, kb=kb)
    assert sorted(Path(p).suffix for p in report.indexed) == [".docx", ".html", ".md", ".md", ".mdx", ".mdx", ".rst", ".txt"]
    assert not report.failed
    assert "not indexed (unsupported type): 1 .png" in report.summary()
    # two documents titled "Overview": citations tell them apart
    titles = {h.source: h.title for q in ("What header authenticates API calls?", "How do I schedule periodic jobs?")
              for h in kb.search(q, top_k=3)}
    assert titles["api/overview.mdx"] == "Overview (api)"
    assert titles["guides/overview.md"] in ("Overview — Periodic jobs", "Overview (guides)")
    assert kb.search("How long are failed jobs kept?", top_k=1)[0].title == "Dashboard"  # unique: unchanged


def test_extra_suffixes_map_to_a_builtin_loader(tmp_path: Path) -> None:
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "guide.mdoc").write_text("# Guide\n\nTasks run on workers.\n", encoding="utf-8")
    (folder / "notes.md").write_text("# Notes\n\nHello.\n", encoding="utf-8")
    plain = KnowledgeSettings(relais_embedding_model="minilm").on(Settings(relais_data_dir=tmp_path / "a"))
    report = ingest_folder(folder, plain, show_progress=False)
    assert report.indexed == ["notes.md"] and report.not_indexed == {".mdoc": 1}
    mapped = KnowledgeSettings(relais_embedding_model="minilm", relais_kb_extensions="mdoc=md").on(Settings(relais_data_dir=tmp_path / "b"))
    assert mapped.kb_extensions == {".mdoc": ".md"}
    assert sorted(ingest_folder(folder, mapped, show_progress=False).indexed) == ["guide.mdoc", "notes.md"]


def test_mdx_a_literal_default_written_as_an_expression_is_shown() -> None:
    from knowledge._mdx import mdx_to_markdown

    text = mdx_to_markdown('<ParamField path="timeout" type="int" optional default={60}>\n'
                           '  The number of seconds to wait.\n</ParamField>\n'
                           '<ParamField path="run" type="function" default={() => go()}>\n  Runs it.\n</ParamField>\n')
    assert "`timeout` (int), default `60`: The number of seconds to wait." in text
    assert "`run` (function): Runs it." in text  # code in an expression is not page text
