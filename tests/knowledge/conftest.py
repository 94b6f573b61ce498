"""A small EN/FR help-center knowledge base written to temp folders, and a pre-built index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

ARTICLES: dict[str, str] = {
    "plans-and-pricing.md": """# Plans and pricing

FitTrack has three membership plans. You can switch plans at any time from the app.

## Base plan
The base plan costs $10/month. It includes workout tracking, the exercise library and community challenges.

## Premium plan
The premium plan costs $20/month. It adds personalised workout plans, meal plans and wearables sync.

## Family plan
The family plan costs $35/month and covers up to four people living in the same household.
""",
    "cancellation.md": """# Cancelling your subscription

You can cancel your subscription at any time in Settings > Subscription > Cancel.
The cancellation takes effect at the end of the current billing period, and you keep access until then.
We do not charge any cancellation fee.
""",
    "freeze.md": """---
title: Freezing your membership
---
If you need a break (travel, injury), you can freeze your membership instead of cancelling it.
A freeze pauses billing for one to three months. Your progress and workout history are kept.

To freeze, open Settings > Subscription > Freeze and choose a duration.
""",
    "gym-hours.html": """<html><head><title>Gym opening hours</title><style>p {color: red}</style></head>
<body><nav>Home | Help</nav><h1>Gym opening hours</h1>
<p>Our partner gyms are open from 6 am to 11 pm on weekdays.</p>
<h2>Weekends and holidays</h2><p>On Saturdays and Sundays the gyms open at 8 am and close at 8 pm.
On public holidays they close at 6 pm.</p><script>var x = 1;</script></body></html>
""",
    "wearables.txt": """Wearables sync

FitTrack syncs with Garmin, Fitbit and Apple Watch. Enable Bluetooth and allow health data access.

If your watch does not sync, restart the watch, then remove and pair it again from Settings > Devices.
""",
    "mot-de-passe.md": """# Mot de passe oublié

Si vous avez oublié votre mot de passe, touchez « Mot de passe oublié » sur l'écran de connexion.
Nous vous envoyons un lien de réinitialisation par e-mail. Le lien est valable 24 heures.

## Compte bloqué
Après cinq tentatives de connexion échouées, votre compte est bloqué pendant quinze minutes.
""",
    "remboursements.md": """# Remboursements

Vous pouvez demander un remboursement dans les 14 jours suivant un paiement, depuis la page Facturation.
Le remboursement est versé sur votre moyen de paiement d'origine sous cinq à dix jours ouvrés.
""",
}

PDF_LINES = [
    "Workout plans",
    "The beginner workout plan has three sessions per week of 30 minutes each.",
    "The advanced workout plan adds interval training and strength days.",
]

QUESTIONS: list[tuple[str, str]] = [
    ("How much does the base plan cost?", "plans-and-pricing.md"),
    ("How can I cancel my subscription?", "cancellation.md"),
    ("Can I pause my membership while I travel?", "freeze.md"),
    ("What time do the gyms open on Sunday?", "gym-hours.html"),
    ("My Garmin watch does not sync, what should I do?", "wearables.txt"),
    ("J'ai oublié mon mot de passe, que faire ?", "mot-de-passe.md"),
    ("Comment obtenir un remboursement ?", "remboursements.md"),
    ("How many sessions per week in the beginner workout plan?", "guides/workout-plans.pdf"),
]


def make_pdf(lines: list[str]) -> bytes:
    """A minimal valid one-page PDF with `lines` as real text (Helvetica), for pypdf."""
    escaped = [line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") for line in lines]
    content = "BT /F1 12 Tf 72 720 Td 16 TL " + " ".join(f"({line}) Tj T*" for line in escaped) + " ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        ("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
         "/Resources << /Font << /F1 5 0 R >> >> >>"),
        f"<< /Length {len(content)} >>\nstream\n{content}\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def write_kb(folder: Path) -> Path:
    """Write the test knowledge base into `folder` and return it."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in ARTICLES.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "guides").mkdir(exist_ok=True)
    (folder / "guides" / "workout-plans.pdf").write_bytes(make_pdf(PDF_LINES))
    return folder


@pytest.fixture
def kb_folder(tmp_path: Path) -> Path:
    return write_kb(tmp_path / "kb")


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[object, object]]:
    """(settings, KnowledgeBase) over the test KB, ingested once per test module."""
    from knowledge.ingest import ingest_folder
    from knowledge.retrieval import KnowledgeBase
    from knowledge.settings import KnowledgeSettings
    from relais.settings import Settings

    root = tmp_path_factory.mktemp("indexed")
    settings = KnowledgeSettings(relais_kb_dir=write_kb(root / "kb")).on(Settings(relais_data_dir=root / "data"))
    kb = KnowledgeBase(settings)
    ingest_folder(settings.relais_kb_dir, settings, show_progress=False, kb=kb)
    yield settings, kb
