"""The "Handoff audit" section: receipts per thread with filters (verdict, time, thread), verdict
counts, and the detail of one receipt (the six boundaries, the safe next move, the receipt JSON).
Each thread is shown by its title and its user (from Chainlit's threads table), its id beside
them: an operator recognises a conversation by what it was about and whose it was.

Receipts come from the chat database (`handoff_audit.ReceiptStore` on the settings' URL), so
every instance shows every instance's receipts. Verdicts are judged at request time: a wait
whose deadline passed shows as UNCERTAIN now, whatever it was when recorded.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from html import escape
from typing import Any
from urllib.parse import quote, urlencode

from chainlit.data import get_data_layer
from sqlalchemy import bindparam, text
from starlette.requests import Request

from chatbot.admin.sections import AdminSection, register_section
from handoff_audit.classifier import SAFE_NEXT_MOVE, VerdictCode, classify
from handoff_audit.recorder import ReceiptStore, StoredReceipt

ROWS_LIMIT = 2000
_GOOD = {VerdictCode.HEALTHY: "ok", VerdictCode.WAITING_ON_APPROVAL: "wait"}

_store: ReceiptStore | None = None


def receipt_store() -> ReceiptStore:
    """The chat database's receipts table (one store per process)."""
    global _store
    if _store is None:
        _store = ReceiptStore()
    return _store


def badge(code: VerdictCode) -> str:
    kind = _GOOD.get(code, "warn" if code is VerdictCode.UNCERTAIN else "bad")
    return f'<span class="badge {kind}">{escape(code.value)}</span>'


def _moment(value: str | None) -> str | None:
    """An ISO time from a form field (`datetime-local` has no zone: read as UTC), else None."""
    if not value or not value.strip():
        return None
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).isoformat()


@dataclass(frozen=True)
class AuditQuery:
    verdict: str | None = None
    thread: str | None = None
    since: str | None = None
    until: str | None = None

    @classmethod
    def from_request(cls, request: Request) -> AuditQuery:
        params = request.query_params
        verdict = (params.get("verdict") or "").strip().upper() or None
        if verdict not in {code.value for code in VerdictCode}:
            verdict = None
        return cls(
            verdict=verdict,
            thread=(params.get("thread") or "").strip() or None,
            since=(params.get("since") or "").strip() or None,
            until=(params.get("until") or "").strip() or None,
        )

    def url(self, **changes: str | None) -> str:
        values = {**self.__dict__, **changes}
        return "/admin/audit?" + urlencode({k: v for k, v in values.items() if v})


@dataclass(frozen=True)
class Judged:
    row: StoredReceipt
    verdict: Any


def judged_rows(query: AuditQuery, now: datetime | None = None) -> list[Judged]:
    """Rows matching thread/time, each with its verdict judged now (verdict filter not applied)."""
    rows = receipt_store().list(
        query.thread, since=_moment(query.since), until=_moment(query.until), limit=ROWS_LIMIT
    )
    moment = now or datetime.now(UTC)
    return [Judged(row, classify(row.receipt, moment)) for row in rows]


def _filters(query: AuditQuery) -> str:
    options = "".join(
        f'<option value="{c.value}"{" selected" if query.verdict == c.value else ""}>{c.value}</option>'
        for c in VerdictCode
    )
    return (
        '<form class="filters" method="get" action="/admin/audit">'
        f'<label>Verdict<select name="verdict"><option value="">any</option>{options}</select></label>'
        f'<label>Thread<input name="thread" size="38" value="{escape(query.thread or "")}"></label>'
        f'<label>From (UTC)<input type="datetime-local" name="since" value="{escape(query.since or "")}"></label>'
        f'<label>To (UTC)<input type="datetime-local" name="until" value="{escape(query.until or "")}"></label>'
        '<button type="submit">Filter</button> <a href="/admin/audit">reset</a></form>'
    )


def _counts(judged: list[Judged], query: AuditQuery) -> str:
    counts = Counter(item.verdict.verdict for item in judged)
    chips = [
        f'<a href="{escape(query.url(verdict=code.value))}">{badge(code)}'
        f'<span class="n">{counts.get(code, 0)}</span></a>'
        for code in VerdictCode
    ]
    return f'<div class="counts" id="verdict-counts">{"".join(chips)}</div>'


@dataclass(frozen=True)
class ThreadLabel:
    name: str
    user: str


async def thread_labels(thread_ids: list[str]) -> dict[str, ThreadLabel]:
    """Title and user of each thread id found in the chat database (none without a data layer)."""
    layer = get_data_layer()
    engine = getattr(layer, "engine", None)
    if engine is None or not thread_ids:
        return {}
    query = text('SELECT CAST("id" AS TEXT) AS id, "name", "userIdentifier" FROM threads '
                 'WHERE CAST("id" AS TEXT) IN :ids').bindparams(bindparam("ids", expanding=True))
    async with engine.connect() as conn:
        rows = (await conn.execute(query, {"ids": sorted(set(thread_ids))})).mappings().all()
    return {row["id"]: ThreadLabel(row["name"] or "", row["userIdentifier"] or "") for row in rows}


def _thread_cell(thread: str, label: ThreadLabel | None, query: AuditQuery) -> str:
    link = f'<a href="{escape(query.url(thread=thread))}">'
    if label is None or not (label.name or label.user):
        return f"Thread {link}<code>{escape(thread)}</code></a>"
    name = escape(label.name) if label.name else '<span class="muted">untitled</span>'
    user = f' · <span class="user">{escape(label.user)}</span>' if label.user else ""
    return f'{link}<span class="title">{name}</span></a>{user} · <code class="muted">{escape(thread)}</code>'


def _table(judged: list[Judged], query: AuditQuery, labels: dict[str, ThreadLabel] | None = None) -> str:
    shown = [j for j in judged if query.verdict is None or j.verdict.verdict.value == query.verdict]
    if not shown:
        return '<p class="muted" id="no-receipts">No receipts match these filters.</p>'
    by_thread: dict[str, list[Judged]] = {}
    for item in shown:
        by_thread.setdefault(item.row.thread_id, []).append(item)
    latest = sorted(by_thread, key=lambda t: by_thread[t][-1].row.recorded_at, reverse=True)
    lines = [
        '<table id="receipts"><tr><th>Recorded (UTC)</th><th>Contract</th><th>Sender → recipient</th>'
        "<th>State</th><th>Verdict</th><th>Deciding boundary</th><th></th></tr>"
    ]
    for thread in latest:
        items = by_thread[thread]
        lines.append(
            f'<tr class="thread"><td colspan="7">{_thread_cell(thread, (labels or {}).get(thread), query)}'
            f" · {len(items)} receipt(s)</td></tr>"
        )
        for item in items:
            r, v = item.row.receipt, item.verdict
            detail = f"/admin/audit/receipts/{quote(r.operation_id)}?attempt={r.attempt}"
            lines.append(
                "<tr>"
                f"<td>{escape(item.row.recorded_at[:19].replace('T', ' '))}</td>"
                f"<td><code>{escape(r.route_contract or '')}</code></td>"
                f"<td>{escape(r.sender or '–')} → {escape(r.recipient or '–')}</td>"
                f"<td>{escape(r.final_state)}</td><td>{badge(v.verdict)}</td>"
                f"<td>{escape(v.deciding.name)}: {escape(v.deciding.reason)}</td>"
                f'<td><a href="{escape(detail)}">detail</a></td></tr>'
            )
    lines.append("</table>")
    return "".join(lines)


async def render_audit(request: Request, user: Any) -> str:
    """The section body: filters, verdict counts (over thread/time), receipts grouped by thread."""
    query = AuditQuery.from_request(request)
    judged = await asyncio.to_thread(judged_rows, query)
    labels = await thread_labels([item.row.thread_id for item in judged])
    return (
        "<h2>Handoff audit</h2>"
        '<p class="muted">Every handoff leaves a content-free receipt (ids and key names only); '
        "verdicts are judged now, the earliest failing boundary wins.</p>"
        f"{_filters(query)}{_counts(judged, query)}{_table(judged, query, labels)}"
    )


async def render_receipt(operation_id: str, attempt: int | None) -> str | None:
    """One receipt: its boundaries, the safe next move and its JSON (None if unknown)."""

    def load() -> StoredReceipt | None:
        if attempt is None:
            return receipt_store().latest(operation_id)
        rows = [
            row
            for row in receipt_store().list_operation(operation_id)
            if row.receipt.attempt == attempt
        ]
        return rows[-1] if rows else None

    row = await asyncio.to_thread(load)
    if row is None:
        return None
    r = row.receipt
    verdict = classify(r)
    boundaries = "".join(
        f"<tr><td>{escape(b.name)}</td><td>{'✔' if b.passed else '✘'}</td>"
        f"<td>{escape(b.reason)}</td></tr>"
        for b in verdict.boundaries
    )
    back = AuditQuery(thread=row.thread_id).url()
    label = (await thread_labels([row.thread_id])).get(row.thread_id)
    title = f"{escape(label.name)} · " if label and label.name else ""
    return (
        f'<p><a href="{escape(back)}">← thread {title}<code>{escape(row.thread_id)}</code></a></p>'
        f'<h2 id="receipt-detail">Receipt <code>{escape(r.operation_id)}</code> #{r.attempt} '
        f"{badge(verdict.verdict)}</h2>"
        f"<p><code>{escape(r.route_contract or '')}</code> · {escape(r.sender or '–')} → "
        f"{escape(r.recipient or '–')}"
        + (f" · rule <code>{escape(r.route_rule)}</code>" if r.route_rule else "")
        + f" · recorded {escape(row.recorded_at)}, updated "
        f"{escape(row.updated_at)}</p>"
        "<table><tr><th>Boundary</th><th></th><th>Evidence</th></tr>"
        f"{boundaries}</table>"
        f"<p><em>{escape(SAFE_NEXT_MOVE[verdict.verdict])}</em></p>"
        f"<pre>{escape(json.dumps(json.loads(r.to_json()), indent=2, ensure_ascii=False))}</pre>"
    )


AUDIT_SECTION = register_section(AdminSection("audit", "Handoff audit", render_audit, order=10))

__all__ = ["AUDIT_SECTION", "AuditQuery", "judged_rows", "receipt_store", "render_audit", "render_receipt"]
