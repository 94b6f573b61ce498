"""Money mentions in English and French prose: find them, parse them, rewrite their number.

One tolerant finder serves every step (search, gates, offline worker, judge stand-in), so
they all agree on what "a mention of $10/month" is: `$10/month`, `$10 per month`,
`10 $/mois`, `10 $ par mois`, `10 dollars`, `US$10`, `10,00 €`, `$10 each month`...
Rewriting changes only the digits, so the surrounding form (`/mois`, `per month`, decimal
comma) stays the author's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

# --- currencies ------------------------------------------------------------------------
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d+(?:[.,]\d{1,2})?"
_PRE = r"US\$|CA\$|C\$|\$|€|£"
_POST_SYMBOL = r"\$(?:\s?(?:US|CA|CAD|USD)\b)?|€|£"
_POST_WORD = r"dollars?|euros?|pounds?|USD|CAD|EUR|GBP"

_CURRENCY = {
    "$": "$", "us$": "$", "ca$": "$", "c$": "$", "dollar": "$", "dollars": "$", "usd": "$", "cad": "$",
    "€": "€", "euro": "€", "euros": "€", "eur": "€",
    "£": "£", "pound": "£", "pounds": "£", "gbp": "£",
}

_MONEY_RE = re.compile(
    rf"(?P<pre>{_PRE})\s?(?P<n1>{_NUM})(?![\d])"
    rf"|(?<![\w.,])(?P<n2>{_NUM})\s?(?P<post>{_POST_SYMBOL})"
    rf"|(?<![\w.,])(?P<n3>{_NUM})\s+(?P<word>{_POST_WORD})\b",
    re.IGNORECASE,
)

# --- periods -------------------------------------------------------------------------------
# How many months each period spans (None: not a whole number of months).
PERIOD_MONTHS: dict[str, int | None] = {"month": 1, "quarter": 3, "half-year": 6, "year": 12, "week": None, "day": None}

_SUFFIXES: dict[str, list[str]] = {
    "month": [
        r"\s?/\s?(?:month|mo|mois)\b", r"\s+(?:per|a|each|every|/)\s+month\b", r"\s+monthly\b",
        r"\s+par\s+mois\b", r"\s+(?:chaque|tous\s+les)\s+mois\b", r"\s+mensuel(?:le)?s?\b",
        r"\s+mensuellement\b",
    ],
    "year": [
        r"\s?/\s?(?:year|yr|an|ann[ée]e)\b", r"\s+(?:per|a|each|every|once\s+a)\s+year\b",
        r"\s+(?:billed\s+|paid\s+|charged\s+)?(?:annually|yearly)\b", r"\s+par\s+(?:an|ann[ée]e)\b",
        r"\s+(?:factur[ée]e?s?\s+|pay[ée]e?s?\s+)?annuellement\b", r"\s+annuel(?:le)?s?\b",
        r"\s+(?:chaque|tous\s+les)\s+ans?\b", r"\s+une\s+fois\s+par\s+an\b",
    ],
    "quarter": [r"\s?/\s?(?:quarter|trimestre)\b", r"\s+(?:per|a|each|every)\s+quarter\b", r"\s+quarterly\b",
                r"\s+par\s+trimestre\b", r"\s+trimestriel(?:le)?s?\b"],
    "half-year": [r"\s+(?:per|every|each)\s+(?:six|6)\s+months\b", r"\s+par\s+semestre\b",
                  r"\s+semestriel(?:le)?s?\b"],
    "week": [r"\s?/\s?(?:week|wk|semaine)\b", r"\s+(?:per|a|each|every)\s+week\b", r"\s+weekly\b",
             r"\s+par\s+semaine\b", r"\s+hebdomadaires?\b"],
    "day": [r"\s?/\s?(?:day|jour)\b", r"\s+(?:per|a|each|every)\s+day\b", r"\s+daily\b", r"\s+par\s+jour\b"],
}
_SUFFIX_RE = re.compile(
    "|".join(f"(?P<{name.replace('-', '_')}>{'|'.join(alts)})" for name, alts in _SUFFIXES.items()),
    re.IGNORECASE,
)

# Words that put a bare amount ("$120") in a period's context within its sentence.
_KEYWORDS: dict[str, str] = {
    "month": r"\b(?:months?|monthly|mois|mensuel\w*|mensualit[ée]s?)\b",
    "year": (
        r"\b(?:years?|yearly|annual(?:ly)?|annuel\w*|annuellement|ann[ée]es?|(?:par|un|chaque|l')\s?an)\b"
        r"|\b(?:12|twelve|douze)\s+(?:months|mois)\b"
    ),
    "quarter": r"\b(?:quarters?|quarterly|trimestres?|trimestriel\w*)\b|\b(?:3|three|trois)\s+(?:months|mois)\b",
    "half-year": r"\b(?:semestres?|semestriel\w*|half[- ]year)\b|\b(?:6|six)\s+(?:months|mois)\b",
}
_KEYWORD_RE = {name: re.compile(pattern, re.IGNORECASE) for name, pattern in _KEYWORDS.items()}

# Human labels for messages (English) per period.
PERIOD_LABEL = {"month": "month", "year": "year", "quarter": "quarter", "half-year": "half-year",
                "week": "week", "day": "day"}


@dataclass(frozen=True)
class Money:
    """One amount of money found in a text, with the span of its digits for rewriting."""

    start: int
    end: int  # end of the whole mention, period suffix included
    num_start: int
    num_end: int
    amount: Decimal
    currency: str
    period: str | None
    text: str
    currency_after: bool

    def same_price(self, other: Price) -> bool:
        """Same amount and currency; the period may be unstated here."""
        return self.amount == other.amount and self.currency == other.currency


@dataclass(frozen=True)
class Price:
    """A price as the user states it: `$10/month`, `10 $/mois`, `€9.99 per month`."""

    amount: Decimal
    currency: str
    period: str | None
    raw: str

    def render(self) -> str:
        return self.raw

    def times(self, factor: Decimal | int) -> Decimal:
        return (self.amount * Decimal(factor)).quantize(Decimal("0.01")).normalize()


def parse_number(text: str) -> Decimal:
    """`10`, `10.00`, `10,00` (decimal comma), `1,000` (thousands) → Decimal."""
    cleaned = text.strip()
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?", cleaned):
        cleaned = cleaned.replace(",", "")
    else:
        cleaned = cleaned.replace(",", ".")
    try:
        return Decimal(cleaned)
    except InvalidOperation as exc:  # pragma: no cover - guarded by the regex
        raise ValueError(f"not a number: {text!r}") from exc


def find_money(text: str) -> list[Money]:
    """Every money mention in `text`, in order, with its period when one follows it."""
    found: list[Money] = []
    for match in _MONEY_RE.finditer(text):
        if match.group("n1"):
            group, symbol, after = "n1", match.group("pre"), False
        elif match.group("n2"):
            group, symbol, after = "n2", match.group("post"), True
        else:
            group, symbol, after = "n3", match.group("word"), True
        key = re.sub(r"\s", "", symbol).lower()
        key = "$" if key.startswith("$") else key
        currency = _CURRENCY.get(key, symbol)
        end, period = match.end(), None
        suffix = _SUFFIX_RE.match(text, end)
        if suffix:
            period = next(name.replace("_", "-") for name, value in suffix.groupdict().items() if value)
            end = suffix.end()
        found.append(
            Money(
                start=match.start(), end=end, num_start=match.start(group), num_end=match.end(group),
                amount=parse_number(match.group(group)), currency=currency, period=period,
                text=text[match.start():end], currency_after=after,
            )
        )
    return found


def parse_price(raw: str) -> Price:
    """Parse a user's price (`$12/month`, `12 $/mois`); raises ValueError when it is not one."""
    text = raw.strip()
    mentions = find_money(text)
    if len(mentions) != 1 or mentions[0].start != 0 or mentions[0].end != len(text.rstrip(". ")):
        raise ValueError(
            f"{raw!r} is not a price; write it like '$10/month', '10 $/mois' or '€9.99 per month'"
        )
    money = mentions[0]
    return Price(amount=money.amount, currency=money.currency, period=money.period, raw=text)


def period_in_context(sentence: str, period: str) -> bool:
    """Does the sentence talk about this period ("a single charge of $120 once a year")?"""
    pattern = _KEYWORD_RE.get(period)
    return bool(pattern and pattern.search(sentence))


def format_number_like(original: str, value: Decimal, currency_after: bool) -> str:
    """Write `value` the way `original` was written (decimal comma or point, cents or not)."""
    sep, decimals = None, 0
    tail = re.search(r"[.,](\d{1,2})$", original)
    if tail and not re.fullmatch(r"\d{1,3}(?:,\d{3})+", original):
        sep, decimals = original[tail.start()], len(tail.group(1))
    value = value.quantize(Decimal("0.01"))
    if value != value.to_integral_value() and decimals == 0:
        sep, decimals = sep or ("," if currency_after else "."), 2
    if decimals:
        text = f"{value:.{decimals}f}"
        return text.replace(".", sep or ".")
    return str(int(value))


def rewrite_amount(text: str, money: Money, value: Decimal) -> str:
    """`text` with this mention's number replaced by `value`, form preserved."""
    digits = text[money.num_start:money.num_end]
    new_digits = format_number_like(digits, value, money.currency_after)
    return text[: money.num_start] + new_digits + text[money.num_end:]


def rewrite_mention_text(money: Money, value: Decimal) -> str:
    """The mention's own text with its number changed: `$120/year` → `$144/year`."""
    local = Money(
        start=0, end=len(money.text), num_start=money.num_start - money.start,
        num_end=money.num_end - money.start, amount=money.amount, currency=money.currency,
        period=money.period, text=money.text, currency_after=money.currency_after,
    )
    return rewrite_amount(money.text, local, value)


def format_money(value: Decimal, like: Price) -> str:
    """`value` written in the same form as a user's price (`$12/month` → `$144/year` needs period)."""
    mentions = find_money(like.raw)
    return rewrite_mention_text(mentions[0], value) if mentions else f"{like.currency}{value}"


def plain_amount(value: Decimal, currency: str) -> str:
    """A neutral rendering for messages: `$144`, `€9.99`."""
    value = value.quantize(Decimal("0.01"))
    text = str(int(value)) if value == value.to_integral_value() else f"{value:.2f}"
    return f"{currency}{text}"
