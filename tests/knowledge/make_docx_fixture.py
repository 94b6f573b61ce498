"""Writes tests/data/docs_corpus/deployment.docx (committed); run again if the content changes."""

from __future__ import annotations

from pathlib import Path

from docx import Document
from docx.shared import Pt

TARGET = Path(__file__).resolve().parents[1] / "data" / "docs_corpus" / "deployment.docx"


def build(target: Path = TARGET) -> Path:
    doc = Document()
    doc.core_properties.title = "Deploying workers"
    doc.add_heading("Deploying workers", level=1)
    doc.add_paragraph(
        "Run workers as a long-lived service. Each worker process handles as many jobs at once as "
        "its concurrency setting allows; start one process per CPU core."
    )
    doc.add_heading("Health checks", level=2)
    doc.add_paragraph("A worker answers on port 8793 at /healthz once it is connected to the broker.")
    doc.add_heading("Resource sizing", level=2)
    table = doc.add_table(rows=3, cols=3)
    for r, row in enumerate([("Queue", "Workers", "Memory"), ("emails", "2", "256 MB"), ("reports", "1", "2 GB")]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    doc.add_heading("Rolling restart", level=2)
    for step in ("Send SIGTERM to one worker.", "Wait until it has finished its running jobs.",
                 "Start the new version, then move to the next worker."):
        doc.add_paragraph(step, style="List Number")
    doc.add_paragraph("A systemd unit for one worker:")
    for line in ("[Service]", "ExecStart=/usr/bin/skiff worker tasks:app --concurrency 4",
                 "KillSignal=SIGTERM", "TimeoutStopSec=120"):
        run = doc.add_paragraph().add_run(line)
        run.font.name = "Courier New"
        run.font.size = Pt(9)
    target.parent.mkdir(parents=True, exist_ok=True)
    doc.save(str(target))
    return target


if __name__ == "__main__":
    print(build())
