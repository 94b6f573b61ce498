from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from knowledge.errors import StoreUnavailable
from knowledge.ingest import ingest_folder
from knowledge.retrieval import KnowledgeBase
from knowledge.settings import KnowledgeSettings
from relais.settings import Settings
from tests.conftest import free_port


def test_unreachable_chroma_server_is_a_clear_error(tmp_path: Path) -> None:
    settings = KnowledgeSettings(chroma_host="127.0.0.1", chroma_port=free_port()).on(Settings(relais_data_dir=tmp_path))
    with pytest.raises(StoreUnavailable, match="unreachable.*CHROMA_HOST"):
        KnowledgeBase(settings)


@pytest.mark.slow
def test_chroma_server_backend(tmp_path: Path, kb_folder: Path) -> None:
    """CHROMA_HOST switches to a real Chroma server (the scale-out path)."""
    chroma = Path(sys.executable).with_name("chroma")
    if not chroma.exists() and not shutil.which("chroma"):
        pytest.skip("chroma CLI not installed")
    port = free_port()
    server = subprocess.Popen(
        [str(chroma if chroma.exists() else "chroma"), "run", "--path", str(tmp_path / "server"),
         "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline and server.poll() is None, "chroma server did not start"
            time.sleep(0.3)
        settings = KnowledgeSettings(chroma_host="127.0.0.1", chroma_port=port).on(Settings(relais_data_dir=tmp_path / "node1"))
        kb = KnowledgeBase(settings)
        report = ingest_folder(kb_folder, settings, show_progress=False, kb=kb)
        assert report.total_chunks > 0
        assert not (tmp_path / "node1" / "chroma").exists()  # nothing stored locally
        # a second app node with its own data dir sees the same collection
        other = KnowledgeBase(KnowledgeSettings(chroma_host="127.0.0.1", chroma_port=port).on(Settings(relais_data_dir=tmp_path / "node2")))
        hits = other.search("How much does the base plan cost?")
        assert hits and hits[0].source == "plans-and-pricing.md"
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_count_memo_reads_again_on_a_new_stamp_after_forget_or_its_ttl() -> None:
    from knowledge.store import CountMemo

    reads: list[int] = []
    stamp = ["a"]

    def count() -> int:
        reads.append(1)
        return len(reads)

    memo = CountMemo(count, lambda: stamp[0], ttl_s=60.0)
    assert (memo(), memo()) == (1, 1)
    stamp[0] = "b"  # another process saved a new index
    assert memo() == 2
    memo.forget()  # an ingest in this process
    assert memo() == 3
    memo.ttl_s = 0.0
    assert memo() == 4
