from __future__ import annotations

from pathlib import Path

from knowledge.reader_code import fingerprint, imported_names, reader_fingerprint, reading_modules


def test_the_fingerprint_covers_every_module_that_reads_a_file() -> None:
    modules = reading_modules()
    # the chunker, the loaders it calls, their lazy per-format readers, markup cleaning, sentences
    for name in ("knowledge.chunking", "knowledge.loaders", "knowledge._mdx", "knowledge._rst",
                 "knowledge._docx", "knowledge.markup", "relais.sentences"):
        assert name in modules, name
    # answering code is not reading code: a composer change must not re-index anyone's documents
    assert "knowledge.composer" not in modules and "knowledge.retrieval" not in modules


def test_imports_inside_functions_count() -> None:
    source = "import os\nfrom knowledge.markup import clean\ndef f():\n    from knowledge import _rst\n"
    assert {"os", "knowledge.markup", "knowledge.markup.clean", "knowledge", "knowledge._rst"} <= imported_names(source)


def test_a_changed_reading_module_changes_the_fingerprint(tmp_path: Path) -> None:
    package = tmp_path / "knowledge"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "chunking.py").write_text("from knowledge.loaders import load\n")
    (package / "loaders.py").write_text("def load(): return 1\n")
    (package / "composer.py").write_text("def compose(): return 1\n")
    modules = reading_modules(root=tmp_path)
    assert set(modules) == {"knowledge.chunking", "knowledge.loaders"}
    before = fingerprint(modules)

    (package / "composer.py").write_text("def compose(): return 2\n")
    assert fingerprint(reading_modules(root=tmp_path)) == before, "answering code is not reading code"
    (package / "loaders.py").write_text("def load(): return 2\n")
    assert fingerprint(reading_modules(root=tmp_path)) != before


def test_this_installation_has_one_fingerprint() -> None:
    assert reader_fingerprint() == fingerprint(reading_modules()) and len(reader_fingerprint()) == 16
