from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from knowledge.beir import load_beir, read_qrels
from knowledge.evaluation import compute_metrics, evaluate_retrieval

DOCS = {
    "d1": ("Base plan pricing", "The base plan costs ten dollars per month and includes gym access."),
    "d2": ("Premium plan", "Premium adds meal plans, personal training and wearables sync."),
    "d3": ("Cancelling", "Cancel your subscription from the settings page at any time."),
    "d4": ("Opening hours", "Gyms open at six in the morning and close at eleven at night."),
    "d5": ("Refunds", "Refunds are paid within ten days to the original payment method."),
    "d6": ("Password reset", "Use the forgot password link on the login screen to reset it."),
}
QUERIES = {
    "q1": "how much is the base plan per month",
    "q2": "when do gyms open in the morning",
    "q3": "I forgot my password",
    "q4": "get my money back",
    "q9": "a query without judgments",
}
QRELS = {"q1": {"d1": 1}, "q2": {"d4": 1}, "q3": {"d6": 1}, "q4": {"d5": 1, "d3": 1}}


def write_beir(folder: Path, gz: bool = False) -> Path:
    folder.mkdir(parents=True)
    lines = "".join(json.dumps({"_id": k, "title": t, "text": x}) + "\n" for k, (t, x) in DOCS.items())
    if gz:
        with gzip.open(folder / "corpus.jsonl.gz", "wt", encoding="utf-8") as handle:
            handle.write(lines)
    else:
        (folder / "corpus.jsonl").write_text(lines, encoding="utf-8")
    (folder / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": k, "text": t}) + "\n" for k, t in QUERIES.items()), encoding="utf-8")
    (folder / "qrels").mkdir()
    rows = ["query-id\tcorpus-id\tscore"] + [f"{q}\t{d}\t{s}" for q, docs in QRELS.items() for d, s in docs.items()]
    (folder / "qrels" / "test.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return folder


def test_metrics_match_hand_computation() -> None:
    qrels = {"a": {"x": 1}, "b": {"y": 1, "z": 1}, "c": {"w": 1}}
    run = {
        "a": {"x": 3.0, "n1": 2.0},  # relevant at rank 1
        "b": {"n1": 3.0, "y": 2.0, "n2": 1.5, "z": 1.0},  # relevant at ranks 2 and 4
        # "c" retrieved nothing: it still counts, as 0
    }
    metrics = compute_metrics(qrels, run)
    ndcg_b = (1 / 1.5849625 + 1 / 2.3219281) / (1 + 1 / 1.5849625)
    assert metrics["ndcg@10"] == pytest.approx((1 + ndcg_b + 0) / 3, abs=1e-6)
    assert metrics["mrr@10"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert metrics["recall@10"] == pytest.approx((1 + 1 + 0) / 3)
    assert metrics["recall@100"] == metrics["recall@10"]


def test_beir_reader(tmp_path: Path) -> None:
    folder = write_beir(tmp_path / "ds", gz=True)
    dataset = load_beir(folder)
    assert dataset.corpus["d4"][0] == "Opening hours"
    assert set(dataset.qrels) == {"q1", "q2", "q3", "q4"}  # only judged queries
    assert read_qrels(folder / "qrels" / "test.tsv")["q4"] == {"d5": 1, "d3": 1}
    with pytest.raises(Exception, match="qrels file not found.*test.tsv"):
        load_beir(folder, "qrels/dev.tsv")


def test_evaluate_every_mode(tmp_path: Path) -> None:
    folder = write_beir(tmp_path / "ds")
    cache = tmp_path / "cache"
    bm25 = evaluate_retrieval(folder, mode="bm25", cache_dir=cache)
    assert (bm25.queries, bm25.mode) == (4, "bm25")
    # q1-q3 share words with their document (rank 1); "get my money back" shares none with
    # "Refunds are paid...", so BM25 cannot find it: exactly 3 of 4 queries are perfect.
    assert (bm25.ndcg_10, bm25.recall_10, bm25.mrr_10) == pytest.approx((0.75, 0.75, 0.75))
    for mode in ("dense", "hybrid"):
        scores = evaluate_retrieval(folder, mode=mode, cache_dir=cache)
        assert scores.mode == mode and scores.index_cached
        assert scores.recall_100 == 1.0  # the paraphrase is found by meaning
        assert scores.ndcg_10 > bm25.ndcg_10


def test_cli_json_shape_and_cache_hit(tmp_path: Path) -> None:
    import typer

    from knowledge.cli import eval_retrieval_command

    app = typer.Typer()
    app.command()(eval_retrieval_command)
    folder = write_beir(tmp_path / "ds")
    args = ["--dataset", str(folder), "--mode", "hybrid", "--json", "--cache-dir", str(tmp_path / "cache")]
    runner = CliRunner()
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    payload = json.loads(first.output.strip().splitlines()[-1])
    assert set(payload) == {"ndcg@10", "recall@10", "recall@100", "mrr@10", "queries", "mode"}
    assert payload["queries"] == 4 and payload["mode"] == "hybrid"

    index_dirs = list((tmp_path / "cache" / "eval").iterdir())
    assert len(index_dirs) == 1
    scores = evaluate_retrieval(folder, mode="hybrid", cache_dir=tmp_path / "cache")
    assert scores.index_cached  # second run reuses the index
    assert scores.to_json() == payload

    text = runner.invoke(app, ["--dataset", str(folder), "--cache-dir", str(tmp_path / "cache")])
    assert text.exit_code == 0 and "ndcg@10" in text.output and "cached index" in text.output

    missing = runner.invoke(app, ["--dataset", str(tmp_path / "nope"), "--json"])
    assert missing.exit_code == 1 and "not found" in missing.output
