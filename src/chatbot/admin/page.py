"""The admin page shell: one HTML document with the sections' navigation around a fragment.

Server-rendered, no script: the page works with the same cookie as the chat and shows nothing
the receipts do not hold (ids, key names, verdicts).
"""

from __future__ import annotations

from html import escape

from chatbot.admin.sections import sections

_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1f2328;background:#f6f8fa}
header{background:#24292f;color:#fff;padding:10px 24px;display:flex;gap:24px;align-items:center}
header h1{font-size:18px;margin:0}header nav a{color:#d0d7de;margin-right:16px;text-decoration:none}
header nav a.active{color:#fff;font-weight:600;border-bottom:2px solid #fff}
header .who{margin-left:auto;color:#d0d7de;font-size:13px}
main{padding:16px 24px;max-width:1280px}
h2{font-size:18px;margin:8px 0 12px}
table{border-collapse:collapse;width:100%;background:#fff;font-size:13px}
th,td{border:1px solid #d0d7de;padding:5px 8px;text-align:left;vertical-align:top}
th{background:#eaeef2}tr.thread td{background:#f0f3f6;font-weight:600}
code{font-size:12px}.muted{color:#656d76}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;color:#fff}
.ok{background:#1a7f37}.wait{background:#0969da}.bad{background:#cf222e}.warn{background:#9a6700}
.counts{display:flex;gap:8px;flex-wrap:wrap;margin:8px 0 12px}
.counts a{text-decoration:none}.counts .n{font-weight:700;margin-left:4px}
form.filters{display:flex;gap:12px;align-items:end;flex-wrap:wrap;background:#fff;padding:10px;border:1px solid #d0d7de}
form.filters label{display:flex;flex-direction:column;font-size:12px;gap:2px}
pre{background:#fff;border:1px solid #d0d7de;padding:10px;overflow:auto;font-size:12px}
"""


def render_page(title: str, body: str, *, active: str | None, user: str | None) -> str:
    """A whole HTML page: the nav lists every registered section, `body` is trusted HTML."""
    nav = "".join(
        f'<a href="/admin/{escape(s.key)}" class="{"active" if s.key == active else ""}">'
        f"{escape(s.title)}</a>"
        for s in sections()
    )
    who = f'<span class="who">{escape(user)}</span>' if user else ""
    return (
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{escape(title)} · Relais admin</title><style>{_STYLE}</style></head><body>"
        f"<header><h1>Relais admin</h1><nav>{nav}</nav>{who}</header>"
        f"<main>{body}</main></body></html>"
    )


__all__ = ["render_page"]
