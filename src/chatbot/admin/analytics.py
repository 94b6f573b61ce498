"""The "Analytics" section of the admin page: usage and the knowledge base's gaps.

Computed with SQL from the chat database (Chainlit's `steps` and `feedbacks` tables, SQLite or
Postgres) over the turn record each answer carries in its metadata (`chatbot.feedback`):
questions per day, help-center vs coach share, the "not found" rate, the weakly answered count
(an answer that barely cleared the relevance bar) and both kinds of questions grouped by
similarity (what the knowledge base lacks), the 👎 rate per cited article, and the
number of hand-offs to the agent. Aggregates only: no user names are shown.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from html import escape
from typing import Any

import Stemmer
from chainlit.data import get_data_layer
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine
from starlette.requests import Request

from chatbot.admin.sections import AdminSection, register_section
from chatbot.feedback import CHANNEL_LABELS, COACH, HELP_CENTER
from relais.language import fold_accents

DEFAULT_DAYS = 30
MAX_GAP_QUESTIONS = 2000  # the most recent not-found questions grouped on each page view
GROUP_SIMILARITY = 0.6  # share of the shorter question's content-word stems found in the group's


# --- SQL, per dialect ----------------------------------------------------------------------------
class _Dialect:
    """JSON access to the turn record in `steps.metadata` (TEXT on SQLite, JSONB on Postgres)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.sqlite = engine.url.get_backend_name() == "sqlite"

    def field(self, name: str) -> str:
        if self.sqlite:
            return f"json_extract(s.\"metadata\", '$.relais.{name}')"
        return f"(s.\"metadata\"->'relais'->>'{name}')"

    def flag(self, name: str) -> str:
        if self.sqlite:
            return f"COALESCE(json_extract(s.\"metadata\", '$.relais.{name}'), 0)"
        return f"(CASE WHEN (s.\"metadata\"->'relais'->>'{name}') = 'true' THEN 1 ELSE 0 END)"

    def sources_join(self) -> str:
        if self.sqlite:
            return ", json_each(s.\"metadata\", '$.relais.sources') AS src"
        return " CROSS JOIN LATERAL jsonb_array_elements(s.\"metadata\"->'relais'->'sources') AS src(value)"

    def source_field(self, name: str) -> str:
        if self.sqlite:
            return f"json_extract(src.value, '$.{name}')"
        return f"(src.value->>'{name}')"


def _answers_since() -> str:
    """Answers of the period; rows without a turn record drop out by themselves (NULL fields)."""
    return "s.\"type\" = 'assistant_message' AND s.\"createdAt\" >= :since"


# --- the figures ----------------------------------------------------------------------------------
@dataclass
class ArticleRating:
    source: str
    title: str
    cited: int
    up: int
    down: int

    @property
    def rated(self) -> int:
        return self.up + self.down

    @property
    def down_rate(self) -> float | None:
        return self.down / self.rated if self.rated else None


@dataclass
class GapGroup:
    """Not-found questions that say the same thing (a gap of the knowledge base)."""

    question: str  # the most frequent wording
    count: int
    examples: list[str] = field(default_factory=list)
    last_seen: str = ""


@dataclass
class Analytics:
    since: str
    days: int
    per_day: list[tuple[str, int, int]]  # (day, help-center questions, coach questions)
    help_center: int = 0
    coach: int = 0
    not_found: int = 0
    weak: int = 0  # help-center answers that barely cleared the relevance bar
    handoffs: int = 0
    up: int = 0
    down: int = 0
    articles: list[ArticleRating] = field(default_factory=list)
    gaps: list[GapGroup] = field(default_factory=list)

    @property
    def questions(self) -> int:
        return self.help_center + self.coach

    @property
    def not_found_rate(self) -> float | None:
        return self.not_found / self.help_center if self.help_center else None


async def compute(engine: AsyncEngine, *, days: int = DEFAULT_DAYS, now: datetime | None = None) -> Analytics:
    """Every figure of the section for the last `days` days, in four queries."""
    d = _Dialect(engine)
    now = now or datetime.now(UTC)
    since = (now - timedelta(days=days)).date().isoformat()
    base = _answers_since()
    params = {"since": since}
    # The browser puts the thumbs of a turn on Chainlit's `run` step (`on_message`), the answer's
    # parent: a thumb counts for the answer it is on, else for the answers of the run it is on.
    # each JSON field is read once per row (SQLite parses the metadata text on every access)
    daily_sql = f"""
        SELECT day, channel, COUNT(*) AS n, SUM(nf) AS not_found, SUM(wk) AS weak, SUM(ho) AS handoffs FROM (
            SELECT substr(s."createdAt", 1, 10) AS day, {d.field('channel')} AS channel,
                   {d.flag('not_found')} AS nf, {d.flag('weak')} AS wk, {d.flag('handoff')} AS ho
            FROM steps s WHERE {base}) AS t
        WHERE channel IS NOT NULL
        GROUP BY day, channel
    """
    ratings_sql = """
        SELECT f."value" AS value, COUNT(*) AS n FROM feedbacks f JOIN steps s ON s."id" = f."forId"
        WHERE s."createdAt" >= :since GROUP BY f."value"
    """
    articles_sql = f"""
        SELECT {d.source_field('source')} AS source, MAX({d.source_field('title')}) AS title, COUNT(*) AS cited,
               SUM(CASE WHEN COALESCE(f."value", r."value") = 1 THEN 1 ELSE 0 END) AS up,
               SUM(CASE WHEN COALESCE(f."value", r."value") = 0 THEN 1 ELSE 0 END) AS down
        FROM steps s{d.sources_join()}
        LEFT JOIN feedbacks f ON f."forId" = s."id"
        LEFT JOIN feedbacks r ON r."forId" = s."parentId"
        WHERE {base}
        GROUP BY {d.source_field('source')}
    """
    gaps_sql = f"""
        SELECT {d.field('question')} AS question, s."createdAt" AS created FROM steps s
        WHERE {base} AND ({d.flag('not_found')} = 1 OR {d.flag('weak')} = 1)
        ORDER BY s."createdAt" DESC LIMIT {MAX_GAP_QUESTIONS}
    """
    async with engine.connect() as conn:
        daily = (await conn.execute(text(daily_sql), params)).mappings().all()
        ratings = (await conn.execute(text(ratings_sql), params)).mappings().all()
        articles = (await conn.execute(text(articles_sql), params)).mappings().all()
        gap_rows = (await conn.execute(text(gaps_sql), params)).mappings().all()

    result = Analytics(since=since, days=days, per_day=[])
    days_seen: dict[str, list[int]] = {}
    for row in daily:
        counts = days_seen.setdefault(str(row["day"]), [0, 0])
        n = int(row["n"] or 0)
        if row["channel"] == COACH:
            counts[1] += n
            result.coach += n
        else:
            counts[0] += n
            result.help_center += n
        result.not_found += int(row["not_found"] or 0)
        result.weak += int(row["weak"] or 0)
        result.handoffs += int(row["handoffs"] or 0)
    result.per_day = [(day, hc, co) for day, (hc, co) in sorted(days_seen.items())]
    for row in ratings:
        if int(row["value"]) == 1:
            result.up += int(row["n"])
        else:
            result.down += int(row["n"])
    result.articles = sorted(
        (ArticleRating(str(r["source"] or ""), str(r["title"] or ""), int(r["cited"] or 0), int(r["up"] or 0),
                       int(r["down"] or 0)) for r in articles if r["source"]),
        key=lambda a: (-(a.down_rate or 0.0), -a.down, -a.cited, a.source),
    )
    result.gaps = group_questions([(str(r["question"] or ""), str(r["created"] or "")) for r in gap_rows])
    return result


# --- grouping not-found questions by similarity --------------------------------------------------
_STOP = frozenset("""
a an and are as at be by can could de des do does du est et for from how i il in is it je la le les me my
of on ou par pas pour que qui quoi the to un une vous what when where which who why with you your est-ce
comment combien quel quelle quels quelles puis-je peut-on mon ma mes votre vos nous avez have has there
""".split())
_WORD = re.compile(r"[a-z0-9]+")


def _stems(question: str) -> frozenset[str]:
    plain = fold_accents(question)
    words = [w for w in _WORD.findall(plain) if len(w) > 2 and w not in _STOP]
    return frozenset(_stemmer(Stemmer).stemWords(words))


_STEMMER: Any = None


def _stemmer(module: Any) -> Any:
    global _STEMMER
    if _STEMMER is None:
        _STEMMER = module.Stemmer("english")
    return _STEMMER


def group_questions(rows: list[tuple[str, str]], threshold: float = GROUP_SIMILARITY) -> list[GapGroup]:
    """Greedy grouping: wordings by frequency, each joins the first group whose stems cover at
    least `threshold` of the shorter side's (and two stems, unless one side has a single one),
    else starts one. Groups sorted by size."""
    wordings: Counter[str] = Counter()
    shown: dict[str, str] = {}
    last: dict[str, str] = {}
    for question, created in rows:
        key = " ".join(question.lower().split())
        if not key:
            continue
        wordings[key] += 1
        shown.setdefault(key, question.strip())
        last[key] = max(last.get(key, ""), created)
    groups: list[tuple[frozenset[str], GapGroup]] = []
    by_stem: dict[str, list[int]] = {}
    for key, count in sorted(wordings.items(), key=lambda kv: (-kv[1], kv[0])):
        stems = _stems(key)
        target = None
        for index in sorted({i for s in stems for i in by_stem.get(s, [])}):
            other = groups[index][0]
            shared, shorter = len(stems & other), min(len(stems), len(other))
            if shared >= min(2, shorter) and shared / shorter >= threshold:
                target = index
                break
        if target is None:
            groups.append((stems, GapGroup(shown[key], 0)))
            target = len(groups) - 1
            for s in stems:
                by_stem.setdefault(s, []).append(target)
        group = groups[target][1]
        group.count += count
        if len(group.examples) < 3 and shown[key] != group.question:
            group.examples.append(shown[key])
        group.last_seen = max(group.last_seen, last[key])
    return sorted((g for _, g in groups), key=lambda g: (-g.count, g.question))


# --- HTML -----------------------------------------------------------------------------------------
def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.1f} %"


def _bar(value: int, top: int, css: str = "#0969da") -> str:
    width = 0 if not top else max(1, round(240 * value / top)) if value else 0
    return f'<span style="display:inline-block;height:10px;width:{width}px;background:{css}"></span>'


def render_html(a: Analytics) -> str:
    share = (a.help_center / a.questions) if a.questions else None
    rated = a.up + a.down
    cards = [
        ("Questions", str(a.questions)),
        (CHANNEL_LABELS[HELP_CENTER].capitalize(), f"{a.help_center} ({_pct(share)})"),
        (CHANNEL_LABELS[COACH].capitalize(), f"{a.coach} ({_pct(1 - share if share is not None else None)})"),
        ("Not found (help center)", f"{a.not_found} ({_pct(a.not_found_rate)})"),
        ("Weakly answered", str(a.weak)),
        ("Hand-offs to the coach", str(a.handoffs)),
        ("👍 / 👎", f"{a.up} / {a.down} ({_pct(a.down / rated if rated else None)} 👎)"),
    ]
    parts = [
        f"<h2>Analytics <span class=\"muted\">· last {a.days} days (since {escape(a.since)})</span></h2>",
        '<form class="filters" method="get"><label>Days<input name="days" type="number" min="1" max="3650" '
        f'value="{a.days}"></label><button type="submit">Show</button></form>',
        '<div class="counts" data-testid="analytics-cards">'
        + "".join(f'<span class="badge wait">{escape(k)}<span class="n">{escape(v)}</span></span>' for k, v in cards)
        + "</div>",
    ]
    top = max((hc + co for _, hc, co in a.per_day), default=0)
    rows = "".join(
        f"<tr><td>{escape(day)}</td><td>{hc + co}</td><td>{hc}</td><td>{co}</td>"
        f"<td>{_bar(hc, top)}{_bar(co, top, '#8250df')}</td></tr>"
        for day, hc, co in a.per_day
    ) or '<tr><td colspan="5" class="muted">No questions in this period.</td></tr>'
    parts.append("<h3>Questions per day</h3><table data-testid=\"analytics-days\"><tr><th>Day</th><th>Questions</th>"
                 f"<th>Help center</th><th>Coach</th><th></th></tr>{rows}</table>")
    gap_rows = "".join(
        f"<tr><td>{g.count}</td><td>{escape(g.question)}"
        + (f'<div class="muted">also: {"; ".join(escape(e) for e in g.examples)}</div>' if g.examples else "")
        + f"</td><td>{escape(g.last_seen[:16].replace('T', ' '))}</td></tr>"
        for g in a.gaps[:50]
    ) or '<tr><td colspan="3" class="muted">No unanswered questions.</td></tr>'
    parts.append(f"<h3>Knowledge gaps: not-found and weakly answered questions, grouped ({len(a.gaps)} groups)</h3>"
                 "<table data-testid=\"analytics-gaps\"><tr><th>Asked</th><th>Question</th><th>Last asked (UTC)</th></tr>"
                 f"{gap_rows}</table>")
    article_rows = "".join(
        f"<tr><td>{escape(r.title or r.source)}<div class=\"muted\"><code>{escape(r.source)}</code></div></td>"
        f"<td>{r.cited}</td><td>{r.up}</td><td>{r.down}</td><td>{_pct(r.down_rate)}</td></tr>"
        for r in a.articles[:100]
    ) or '<tr><td colspan="5" class="muted">No cited articles in this period.</td></tr>'
    parts.append("<h3>👎 rate per cited article</h3><table data-testid=\"analytics-articles\"><tr><th>Article</th>"
                 "<th>Answers citing it</th><th>👍</th><th>👎</th><th>👎 rate (of rated)</th></tr>"
                 f"{article_rows}</table>")
    return "".join(parts)


def _days(request: Request) -> int:
    try:
        return min(3650, max(1, int(request.query_params.get("days") or DEFAULT_DAYS)))
    except ValueError:
        return DEFAULT_DAYS


async def render(request: Request, user: Any) -> str:
    """The section's fragment, from the app's own chat database."""
    layer = get_data_layer()
    if layer is None or getattr(layer, "engine", None) is None:
        return '<h2>Analytics</h2><p class="muted">No chat database configured.</p>'
    return render_html(await compute(layer.engine, days=_days(request)))


register_section(AdminSection("analytics", "Analytics", render, order=20))

__all__ = ["Analytics", "ArticleRating", "GapGroup", "compute", "group_questions", "render", "render_html"]
