"""Each benchmark's machinery on small inputs: right corpus, right counts, real servers, no timing asserts."""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from benchmarks import bench_coach, bench_coldstart, bench_ingest, bench_retrieval, bench_sse
from benchmarks._common import SCIFACT_DIR, BenchResult, serve

needs_scifact = pytest.mark.skipif(not (SCIFACT_DIR / "corpus.jsonl.gz").is_file(),
                                   reason="SciFact not found next to the repo")


class HashEmbedder:
    """A deterministic encoder (sha256 of the text), so ingest and caching run without a model."""

    name, dim = "test-hash", 8

    def __init__(self) -> None:
        self.encoded: list[str] = []

    def embed_documents(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        self.encoded += list(texts)
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[: self.dim * 4], dtype=np.uint32)
                for t in texts]
        matrix = np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim)
        return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


# --- 1. ingest ---------------------------------------------------------------------------------
@needs_scifact
def test_ingest_corpus_chunks_like_the_eval_so_vectors_can_be_shared(tmp_path: Path) -> None:
    """The .md files must chunk exactly as `relais eval retrieval` chunks SciFact: then the
    vectors the ingest bench computes are cache hits for the retrieval bench."""
    from knowledge.beir import load_beir
    from knowledge.evaluation import corpus_chunks
    from knowledge.settings import knowledge_settings

    docs = bench_ingest.scifact_docs(12)
    assert len(docs) == 12 and len({d[0] for d in docs}) == 12
    bench_ingest.write_corpus(tmp_path / "kb", docs)
    assert len(list((tmp_path / "kb").glob("*.md"))) == 12
    dataset = load_beir(SCIFACT_DIR)
    dataset.corpus = {doc_id: dataset.corpus[doc_id] for doc_id, _, _ in docs}
    expected = [c.index_text for c in corpus_chunks(dataset, knowledge_settings())]
    assert sorted(bench_ingest.chunk_texts(tmp_path / "kb")) == sorted(expected)


def test_ingest_once_runs_the_real_ingest_and_shares_its_vectors(tmp_path: Path, isolated_settings: Path) -> None:
    from knowledge.embedding_cache import EmbeddingCache, text_key
    from relais.settings import get_settings

    docs = [(f"d{i}", f"Title {i}", f"Paragraph number {i} about topic {i}.\n\nA second paragraph {i}.")
            for i in range(5)]
    bench_ingest.write_corpus(tmp_path / "kb", docs)
    texts = bench_ingest.chunk_texts(tmp_path / "kb")
    embedder = HashEmbedder()
    stats = bench_ingest.ingest_once(tmp_path / "kb", embedder, tmp_path / "shared")
    assert stats["chunks"] == stats["total_chunks"] == len(texts)
    assert stats["files"] == 5
    assert sorted(embedder.encoded) == sorted(texts)  # cold cache: every chunk encoded once
    assert 0 < stats["embed_seconds"] <= stats["seconds"]
    shared = EmbeddingCache(tmp_path / "shared", embedder.name, embedder.dim)
    assert len(shared.get_many([text_key(t) for t in texts])) == len(texts)
    assert get_settings().data_dir == isolated_settings.resolve()  # the temp data dir was undone


# --- 2. retrieval ------------------------------------------------------------------------------
def test_encode_within_budget_stops_on_budget_and_never_reencodes(tmp_path: Path) -> None:
    texts = [f"text {i}" for i in range(10)] + ["text 3"]  # a duplicate is encoded once
    embedder = HashEmbedder()
    assert bench_retrieval.encode_within_budget(embedder, texts, tmp_path, budget_s=0)[0] == 0
    done, _ = bench_retrieval.encode_within_budget(embedder, texts, tmp_path, budget_s=60, block=4)
    assert done == 10 and len(embedder.encoded) == 10
    assert bench_retrieval.encode_within_budget(embedder, texts, tmp_path, budget_s=60)[0] == 0


def test_cached_vectors_use_the_cache_and_fill_the_rest_with_unit_placeholders(tmp_path: Path) -> None:
    from knowledge.embedding_cache import embed_texts

    embedder = HashEmbedder()
    embed_texts(embedder, ["known"], tmp_path)
    matrix, real = bench_retrieval.cached_vectors(["unknown", "known"], embedder, tmp_path)
    assert real == 1
    assert np.allclose(matrix[1], embedder.embed_query("known"))
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0)
    again, _ = bench_retrieval.cached_vectors(["unknown", "known"], embedder, tmp_path)
    assert np.array_equal(matrix, again)  # placeholders are fixed: runs stay comparable


def _chunks(n: int) -> list:
    from knowledge.chunking import Chunk

    topics = ["protein folding", "vitamin d", "gene expression", "malaria vaccine", "stem cells"]
    return [Chunk(f"Study {i} on {topics[i % 5]} and outcome {i}.", f"doc{i}", f"Paper {i}", "", 0)
            for i in range(n)]


def test_query_timing_runs_every_side_on_one_placeholder_index(isolated_settings: Path) -> None:
    """Ours and the reference must search the very same collection, query by query."""
    from knowledge.settings import knowledge_settings
    from knowledge.store import chroma_client

    settings = knowledge_settings()
    embedder = HashEmbedder()
    chunks = _chunks(40)
    vectors, real = bench_retrieval.cached_vectors([c.index_text for c in chunks], embedder,
                                                   isolated_settings / "embeddings")
    assert real == 0
    with bench_retrieval.placeholder_index(chunks, vectors, settings, embedder) as (kb, chroma_dir):
        collection = chroma_client(settings, chroma_dir).get_collection("beir", embedding_function=None)
        assert collection.count() == kb.store.count() == 40
        samples, _ = bench_retrieval.time_queries(
            kb, collection, embedder, ["vitamin d study", "malaria vaccine outcome", "stem cells"],
            top_k=5, warmup=1, query_budget_s=60, min_queries=1)
        assert kb.search("malaria vaccine", mode="bm25", min_score=0)[0].text.endswith("malaria vaccine and outcome 3.")
    assert {k: len(v) for k, v in samples.items()} == {
        "raw encode + collection.query": 3, "KnowledgeBase.search hybrid": 3,
        "KnowledgeBase.search dense": 3, "KnowledgeBase.search bm25": 3}
    from knowledge.embedding_cache import EmbeddingCache, text_key

    cache = EmbeddingCache(isolated_settings / "embeddings", embedder.name, embedder.dim)
    assert cache.get_many([text_key(c.index_text) for c in chunks]) == {}  # placeholders never cached


def test_thread_probe_restores_torch_threads() -> None:
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    text = bench_retrieval.thread_probe(HashEmbedder(), ["q1", "q2"])
    assert "1 thread(s)" in text and torch.get_num_threads() == before


# --- 3. SSE relay --------------------------------------------------------------------------------
@pytest.mark.slow
def test_sse_agent_streams_exactly_n_events_then_done() -> None:
    import httpx
    from httpx_sse import connect_sse

    with serve(bench_sse.agent_app(7)) as url, httpx.Client() as http, \
            connect_sse(http, "POST", url + "/assistant", json={"message": "x"}) as source:
        events = [(e.event, e.json()) for e in source.iter_sse()]
    assert [name for name, _ in events] == ["message"] * 7 + ["done"]
    assert events[0][1] == {"content": "token0 "}


@pytest.mark.slow
async def test_sse_measure_reads_every_event_with_every_client() -> None:
    with serve(bench_sse.agent_app(25)) as url:
        samples = await bench_sse.measure(url, events=25, rounds=2, warmup=1)
    assert set(samples) == {"direct httpx-sse", bench_sse.ORJSON_REFERENCE, "ExternalAgentClient.stream",
                            "forward_to_external_agent"}
    for data in samples.values():
        assert len(data["first"]) == len(data["total"]) == 2
        assert all(0 < f <= t for f, t in zip(data["first"], data["total"]))


# --- 4. coach ------------------------------------------------------------------------------------
async def test_bare_graph_answers_with_the_scripted_reply() -> None:
    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.memory import InMemorySaver

    graph = bench_coach.bare_graph(bench_coach.scripted_model(), InMemorySaver())
    out = await graph.ainvoke({"messages": [HumanMessage("hi")]}, {"configurable": {"thread_id": "t"}})
    assert out["messages"][-1].content == bench_coach.REPLY


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
async def test_coach_measure_times_complete_turns(backend: str) -> None:
    samples = await bench_coach.measure_backend(backend, turns=3, threads=2)
    assert len(samples["coach"]) == len(samples["bare"]) == 6
    # every turn of both graphs is checkpointed (several supersteps each)
    assert samples["coach checkpoints/turn"][0] >= 1 and samples["bare checkpoints/turn"][0] >= 1


def test_coach_run_judges_only_sqlite_against_the_target() -> None:
    result = BenchResult("coach", "Coach")
    bench_coach.run(result, turns=2, threads=1)
    by_label = {c.label: c for c in result.checks}
    assert by_label["coach turn p50, memory saver"].ok is None
    sqlite = by_label["coach turn p50, sqlite saver"]
    assert sqlite.ok == (sqlite.ours < bench_coach.TARGET_SQLITE_MS)
    assert sqlite.ratio == pytest.approx(sqlite.ours / sqlite.reference)


# --- 5. cold start -------------------------------------------------------------------------------
def test_abba_alternates_the_order() -> None:
    calls: list[str] = []
    xs, ys = bench_coldstart.abba(lambda: calls.append("a") or 1.0, lambda: calls.append("b") or 2.0, 4)
    assert calls == ["a", "b", "b", "a", "a", "b", "b", "a"]
    assert xs == [1.0] * 4 and ys == [2.0] * 4


def test_bench_env_is_offline_and_isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MISTRAL_API_KEY", "not-for-benchmarks")
    env = bench_coldstart.bench_env(tmp_path)
    assert env["RELAIS_DATA_DIR"] == str(tmp_path)
    assert "MISTRAL_API_KEY" not in env and env["HF_HUB_OFFLINE"] == "1"
    assert len(env["CHAINLIT_AUTH_SECRET"]) >= 32


def test_timed_run_rejects_a_wrong_answer(tmp_path: Path) -> None:
    env = bench_coldstart.bench_env(tmp_path)
    assert bench_coldstart.timed_run([sys.executable, "-c", "print('$10')"], env, lambda o: "$" in o) > 0
    with pytest.raises(RuntimeError, match="exited 0"):
        bench_coldstart.timed_run([sys.executable, "-c", "print('no price')"], env, lambda o: "$" in o)


@pytest.mark.slow
def test_time_to_first_page_waits_for_a_real_server_and_stops_it(tmp_path: Path) -> None:
    from benchmarks._common import free_port

    port = free_port()
    cmd = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(tmp_path)]
    assert bench_coldstart.time_to_first_page(cmd, bench_coldstart.bench_env(tmp_path), port) > 0
    import httpx

    with pytest.raises(httpx.HTTPError):
        httpx.get(f"http://127.0.0.1:{port}/", timeout=1)


# --- 9. shipped defaults -----------------------------------------------------------------------
def test_defaults_recorder_keeps_each_text_and_gives_the_method_back() -> None:
    from benchmarks.bench_defaults import Recorder, bare

    encoder = HashEmbedder()
    with Recorder(encoder) as rec:
        encoder.embed_documents(["a", "b"])
        encoder.embed_documents(["c"])
    assert rec.texts == ["a", "b", "c"] and rec.wall >= 0 and rec.cpu >= 0
    assert "embed_documents" not in vars(encoder)  # the class's own method again
    encoder.embed_documents(["d"])
    assert rec.texts == ["a", "b", "c"]
    clock = bare(encoder, ["e", "f"])
    assert encoder.encoded[-2:] == ["e", "f"] and clock.wall >= 0
