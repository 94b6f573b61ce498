"""Real help centers as they are (`../shared/datasets/`, evaluation only): how many indexed chunks
carry template/HTML/entity debris (the fragment rules' `has_markup`) with and without
`knowledge.markup`, and which held-out questions the subject-coverage rule turns away from the
base's vocabulary alone (`knowledge.coverage` before its encoder check). No encoder is loaded.

Run: `.venv/bin/python -m benchmarks.helpcenter_markup`
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks._common import REPO_ROOT
from knowledge import loaders
from knowledge.chunking import Chunk, chunk_document
from knowledge.coverage import question_coverage
from knowledge.errors import LoaderError
from knowledge.fragments import has_markup
from knowledge.lexical import LexicalIndex

DATASETS = REPO_ROOT.parent / "shared" / "datasets"
SETS = {"bitwarden": "helpcenter-bitwarden/docs", "demarches_fr": "helpcenter-demarches-fr/docs",
        "chainlit_docs": "chainlit-docs/docs"}


def _chunks(folder: Path) -> tuple[int, list[Chunk]]:
    files, chunks = 0, []
    for path in sorted(folder.rglob("*")):
        if not loaders.is_supported(path) or path.name == "SOURCE.md":
            continue
        try:
            chunks += chunk_document(loaders.load_document(path), str(path.relative_to(folder)))
            files += 1
        except LoaderError:
            continue
    return files, chunks


def main() -> None:
    for name, sub in SETS.items():
        folder = DATASETS / sub
        if not folder.is_dir():
            print(f"{name}: skipped (no {folder})")
            continue
        clean = loaders.clean_markup
        loaders.clean_markup = lambda text: text  # the loaders as they were: no markup module
        try:
            _, raw = _chunks(folder)
        finally:
            loaders.clean_markup = clean
        files, chunks = _chunks(folder)
        before, after = sum(has_markup(c.text) for c in raw), sum(has_markup(c.text) for c in chunks)
        print(f"{name}: {files} files; chunks with markup {after}/{len(chunks)} ({before}/{len(raw)} without "
              "knowledge.markup)")
        index = LexicalIndex.build([c.id for c in chunks], [c.index_text for c in chunks], [c.language for c in chunks])
        cases = [json.loads(line) for line in (REPO_ROOT / "tests/data/helpcenters" / f"{name}.jsonl").open()]
        off = [c for c in cases if not c.get("expect_found", True)]
        on = [c for c in cases if c.get("expect_found", True)]
        flagged_off = sum(not question_coverage(c["question"], index).covered for c in off)
        flagged_on = sum(not question_coverage(c["question"], index).covered for c in on)
        print(f"  subject not in the base's vocabulary: unanswerable {flagged_off}/{len(off)}, "
              f"answerable {flagged_on}/{len(on)}")


if __name__ == "__main__":
    main()
