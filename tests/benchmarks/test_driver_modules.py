"""`make bench`'s driver runs a module per benchmark name; the CNIL sources bench without its data."""

from __future__ import annotations

import importlib
from pathlib import Path

from benchmarks import answer_sources_cnil
from benchmarks.__main__ import MODULES, ORDER, RUN_ORDER
from benchmarks._common import BenchResult


def test_every_benchmark_name_runs_a_module_with_a_main() -> None:
    assert sorted(ORDER) == sorted(RUN_ORDER)
    assert "answers" in ORDER and "sources" in ORDER and "app_answers" in ORDER
    for name in ORDER:
        module = importlib.import_module(MODULES.get(name, f"benchmarks.bench_{name}"))
        assert callable(module.main), name


def test_sources_bench_without_the_dataset_records_a_note_and_no_figures(tmp_path: Path) -> None:
    result = BenchResult("sources", "t")
    answer_sources_cnil.body(result, tmp_path / "no-such-set", "qrels/test_paraphrase.tsv")
    assert result.checks == [] and result.error is None
    assert result.notes and "skipped" in result.notes[0]
