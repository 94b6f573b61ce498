"""Is there a request in this message at all? The guard that runs before intent classification.

A hand-off to the agent is one-way, so it must rest on content. Greetings, thanks, emoji,
punctuation, numbers, markup and gibberish carry none: a nearest-example classifier still
finds *some* nearest example for them, and a model may read anything into them. The guard
decides from the message's information content alone, before any classifier or model runs:

- invisible characters (zero-width spaces and joiners, BOM, soft hyphens, Hangul fillers…) are
  not text: a message of those and spaces only is `empty` (`is_blank`), as is one with no words;
- words: runs of letters once markup, URLs, emails and numbers are removed; none → `empty`;
- social words (greetings, thanks, farewells, "ok") with nothing else but stopwords → `greeting`
  or `thanks`: they get a short friendly reply, no knowledge-base search;
- content words: what is left once stopwords and social words are removed. None, or none that
  looks like a word (no vowel, a 5-consonant run, one repeated syllable), or no word we know at
  all (not a single EN/FR stopword nor a word of the few-shot examples) → `low_information`;
- anything else is `content`: only then may the classifier say ALTER.

`low_information` stays NORMAL and is answered from the knowledge base as usual (a short
question such as "pricing?" is low information but still deserves its answer).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from relais.language import fold_accents

Kind = Literal["content", "greeting", "thanks", "empty", "low_information"]

# fmt: off
STOPWORDS: frozenset[str] = frozenset("""
a about after again all am an and any are as at be been before being both but by can could did do
does doing don down during each few for from further had has have having he her here hers him his how
i if in into is it its itself just me more most my myself no nor not now of off on once only or other
our ours out over own please same she should so some such than that the their them then there these
they this those through to too under until up very was we were what when where which while who whom
why will with would you your yours yourself im ive id dont cant isnt whats thats theres lets u ur pls
plz
au aux avec ce ces cet cette dans de des du elle elles en est et eux il ils je la le les leur leurs lui
ma mais me mes moi mon ne nos notre nous on ou où par pas pour qu que qui sa se ses son sur ta te tes
toi ton tu un une vos votre vous y c d j l m n s t est-ce quoi comment combien quand pourquoi quel
quelle quels quelles ai as avez avons es être suis sommes êtes sont peux peut pouvez puis veux voudrais
fait faire stp svp
""".split())

GREETINGS: dict[str, str] = {  # word → language
    "hello": "en", "hi": "en", "hey": "en", "hiya": "en", "howdy": "en", "yo": "en", "morning": "en",
    "evening": "en", "afternoon": "en", "good": "en", "there": "en", "greetings": "en",
    "bonjour": "fr", "bonsoir": "fr", "salut": "fr", "coucou": "fr", "rebonjour": "fr", "re": "fr",
    "allo": "fr", "allô": "fr",
}
THANKS: dict[str, str] = {
    "thanks": "en", "thank": "en", "thx": "en", "ty": "en", "cheers": "en", "much": "en", "so": "en",
    "lot": "en", "ok": "en", "okay": "en", "k": "en", "cool": "en", "great": "en", "nice": "en",
    "perfect": "en", "awesome": "en", "bye": "en", "goodbye": "en", "got": "en", "noted": "en",
    "merci": "fr", "beaucoup": "fr", "super": "fr", "parfait": "fr", "génial": "fr", "accord": "fr",
    "daccord": "fr", "top": "fr", "nickel": "fr", "revoir": "fr", "bye-bye": "fr", "ciao": "fr",
    "bien": "fr", "très": "fr", "entendu": "fr", "compris": "fr",
}
# fmt: on

_MARKUP = re.compile(r"<(script|style)\b.*?</\1\s*>|<[^>]*>|&[a-z]+;|&#\d+;", re.I | re.S)
_LINKS = re.compile(r"https?://\S+|www\.\S+|\S+@\S+\.\S+|\]\([^)]*\)")
_WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")
# Drawn as nothing though not whitespace to str.strip(): format characters (Cf: U+200B-U+200F,
# U+2060-U+2064, U+FEFF, U+00AD…), controls, and the letters and marks that render blank.
_BLANK_LOOKING = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u180e\u2800\u3164\uffa0")
_VOWELS = set("aeiouyàâäéèêëîïôöùûüÿœæ")
_CONSONANT_RUN = re.compile(r"[bcdfghjklmnpqrstvwxz]{5,}")


@dataclass(frozen=True)
class Verdict:
    """What the guard found: the kind, and the language of the social words when it is clear."""

    kind: Kind
    language: str | None = None

    @property
    def has_content(self) -> bool:
        return self.kind == "content"

    @property
    def social(self) -> bool:
        return self.kind in ("greeting", "thanks")


def _invisible(char: str) -> bool:
    return char in _BLANK_LOOKING or unicodedata.category(char) in ("Cf", "Cc") and char not in "\n\t"


def strip_invisible(text: str) -> str:
    """`text` without the characters that draw nothing (whitespace is kept); a zero-width joiner
    between two visible characters stays (it draws an emoji sequence such as 👨‍👩‍👧 as one)."""
    text = text or ""
    kept = []
    for i, char in enumerate(text):
        if not _invisible(char):
            kept.append(char)
        elif char == "\u200d" and 0 < i < len(text) - 1 and not _invisible(text[i - 1]) and not _invisible(text[i + 1]) \
                and not text[i - 1].isspace() and not text[i + 1].isspace():
            kept.append(char)
    return "".join(kept)


def is_blank(text: str | None) -> bool:
    """Nothing a person could see: empty, whitespace and invisible characters only."""
    return not strip_invisible(text or "").strip()


def words_of(text: str) -> list[str]:
    """Lower-cased words of `text`, markup, links and numbers removed; "re-bonjour" → re, bonjour."""
    clean = _LINKS.sub(" ", _MARKUP.sub(" ", text or ""))
    out: list[str] = []
    for match in _WORD.finditer(clean.lower()):
        out.extend(w for w in re.split(r"[-'’]", match.group(0)) if w)
    return out


def looks_like_a_word(word: str) -> bool:
    """A vowel, no 5-consonant run, and not one syllable repeated ("hahaha", "mmmmh", "zzz")."""
    plain = fold_accents(word)
    if not any(c in _VOWELS for c in word) or _CONSONANT_RUN.search(plain):
        return False
    if len(plain) >= 3 and len(set(plain)) <= 2:
        return False
    return not any(len(plain) >= 2 * n and plain == plain[:n] * (len(plain) // n) for n in (1, 2, 3))


class InputGuard:
    """The guard over a known vocabulary (stopwords + the words of the few-shot examples)."""

    def __init__(self, known_words: Iterable[str] = ()) -> None:
        self.known = {fold_accents(w) for w in known_words} | {fold_accents(w) for w in STOPWORDS}

    def assess(self, text: str) -> Verdict:
        if is_blank(text):
            return Verdict("empty")
        words = words_of(strip_invisible(text))
        if not words:
            return Verdict("empty")
        folded = [fold_accents(w) for w in words]
        social = [w for w in words if w in GREETINGS or w in THANKS]
        rest = [w for w in words if w not in GREETINGS and w not in THANKS and w not in STOPWORDS]
        if social and not rest:
            greeting = [w for w in social if w in GREETINGS and w not in ("good", "there", "re")]
            table = GREETINGS if greeting else THANKS
            languages = {table.get(w) for w in social if w in table} - {None}
            fr = "fr" in languages and not ({"thanks", "thank", "hello", "hi", "hey"} & set(social))
            return Verdict("greeting" if greeting else "thanks", "fr" if fr else ("en" if languages else None))
        if not rest or not any(looks_like_a_word(w) for w in rest):
            return Verdict("low_information")
        if not any(w in self.known for w in folded):
            return Verdict("low_information")  # not a single word we know: gibberish
        return Verdict("content")


def vocabulary(texts: Iterable[str]) -> set[str]:
    """Every word of `texts` (the few-shot examples): the guard's known words."""
    out: set[str] = set()
    for text in texts:
        out.update(words_of(text))
    return out


_default = InputGuard()


def assess(text: str) -> Verdict:
    """The guard with stopwords only as known words (used when no examples file is at hand)."""
    return _default.assess(text)
