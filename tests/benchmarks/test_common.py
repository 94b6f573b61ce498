"""The shared benchmark helpers: statistics, tables, results on disk, cache merging, temp data dir."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from benchmarks import _common as common
from benchmarks.__main__ import args_for, load_result
from benchmarks._common import BenchResult, Check


@pytest.mark.parametrize("q", [0, 5, 50, 90, 95, 100])
def test_percentile_matches_numpy_linear_interpolation(q: float) -> None:
    values = [3.0, 1.0, 7.5, 2.25, 9.0, 4.0, 4.0]
    assert common.percentile(values, q) == pytest.approx(float(np.percentile(values, q)))


def test_percentile_of_nothing_is_nan_and_median_is_the_middle() -> None:
    assert np.isnan(common.percentile([], 50))
    assert common.median([5.0, 1.0, 3.0]) == 3.0


def test_table_aligns_columns() -> None:
    text = common.table([["a", "long value", "x"], ["bbbb", "v", "yy"]], headers=["h1", "h2", "h3"])
    lines = text.splitlines()
    assert len(lines) == 4
    # every column starts at the same offset on every row, and the rule under the header fits
    assert lines[2].index("long value") == lines[3].index("v ") == lines[0].index("h2")
    assert lines[2].index("x") == lines[3].index("yy") == lines[0].index("h3")
    assert set(lines[1]) == {"-", " "}


def test_check_rows_verdicts() -> None:
    result = BenchResult("x", "X", checks=[
        Check("fast", 1.0, 2.0, "ms", ratio=0.5, target="<= 2x", ok=True),
        Check("slow", 9.0, 2.0, "ms", delta=7.0, target="+< 5 ms", ok=False),
        Check("info", 3.0, 2.0, "s", ratio=1.5),
    ], error="boom")
    rows = common.check_rows(result)
    assert [r[-1] for r in rows] == ["ok", "MISS", "info", "ERROR"]
    assert rows[0][4] == "0.50x" and rows[1][4] == "+7.00 ms"


def test_report_writes_json_that_the_driver_reads_back(isolated_settings: Path) -> None:
    result = BenchResult("demo", "Demo", checks=[Check("c", 1.0, 2.0, "ms", ratio=0.5, ok=True)],
                         figures={"k": "v"}, notes=["n"], machine={"cores": 2})
    path = common.report(result)
    assert path == isolated_settings.resolve() / "bench" / "demo.json"
    assert json.loads(path.read_text())["checks"][0]["ratio"] == 0.5
    assert load_result("demo") == result


def test_run_main_records_a_crash_instead_of_losing_the_result(isolated_settings: Path) -> None:
    def body(result: BenchResult) -> None:
        result.figures["before"] = 1
        raise ValueError("broken bench")

    assert common.run_main("crashy", "Crashy", body) == 1
    saved = json.loads((isolated_settings / "bench" / "crashy.json").read_text())
    assert saved["error"] == "ValueError: broken bench"
    assert saved["figures"] == {"before": 1}
    assert saved["machine"]["cores"] == os.cpu_count()


def test_machine_facts_name_the_cpu_and_cores() -> None:
    facts = common.machine_facts(torch_threads=False)
    assert facts["cores"] == os.cpu_count()
    assert facts["cpu_model"]
    assert facts["python"].count(".") == 2
    assert "langgraph" in facts["versions"]


def test_merge_embedding_caches_copies_vectors_and_keeps_existing(tmp_path: Path) -> None:
    from knowledge.embedding_cache import EmbeddingCache

    src, dst = tmp_path / "src", tmp_path / "dst"
    a, b, c = (np.full(4, v, dtype=np.float32) for v in (1.0, 2.0, 3.0))
    EmbeddingCache(src, "m", 4).put_many([("ka", a), ("kb", b)])
    EmbeddingCache(dst, "m", 4).put_many([("kb", c)])  # already known: must not be overwritten
    assert common.merge_embedding_caches(src, dst) == 2
    got = EmbeddingCache(dst, "m", 4).get_many(["ka", "kb"])
    assert np.array_equal(got["ka"], a)
    assert np.array_equal(got["kb"], c)
    assert common.merge_embedding_caches(tmp_path / "missing", dst) == 0


def test_temp_data_dir_redirects_settings_and_restores_them(isolated_settings: Path) -> None:
    from relais.settings import get_settings

    before = get_settings().data_dir
    with common.temp_data_dir() as tmp:
        assert get_settings().data_dir == tmp.resolve()
        (tmp / "marker").write_text("x")
    assert get_settings().data_dir == before
    assert not tmp.exists()


def test_data_dir_ignores_a_redirect_done_later(isolated_settings: Path) -> None:
    assert common.bench_dir() == isolated_settings.resolve() / "bench"


def test_driver_gives_retrieval_what_remains_of_the_budget() -> None:
    assert args_for("retrieval", elapsed=100, budget=570) == ["--encode-budget", "290", "--query-budget", "60"]
    assert args_for("retrieval", elapsed=560, budget=570)[1] == "20"  # always some progress
    assert args_for("coldstart", elapsed=10, budget=570) == ["--repeats", "2"]
    assert args_for("coldstart", elapsed=400, budget=570) == ["--repeats", "1"]
    assert args_for("sse", elapsed=0, budget=570) == []
