"""What shape of answer a question wants (EN/FR), and whether a sentence says yes or no.

Cheap word rules, no model: they run per question. A yes/no prefix is only given when the
answer's polarity is clear; when the question itself is negative ("stop paying", "sans") or the
answer is restrictive ("only", "uniquement"), the answer is given without a yes or no.
"""

from __future__ import annotations

import re
from functools import cache

from knowledge.lexical import stop_words
from relais.language import fold_accents, words

HOWTO = "howto"
YESNO = "yesno"
OTHER = "other"

_HOWTO = re.compile(
    r"^\s*(?:how\s+(?:do|can|could|should|would|shall)\s+(?:i|we|you|one|my)\b|how\s+to\b|"
    # what the asker's own code or setup is to do: "how does my Python code push a message…?"
    r"how\s+(?:does|will)\s+(?:my|our)\b|how\s+(?:can|could|should)\s+our\b|"
    # the passive: "how can it be answered automatically?", "how should this be set up?"
    r"how\s+(?:can|could|should|must)\s+(?:it|this|that|these|they|those)\s+be\s+\w+(?:ed|en|t)\b|"
    r"what\s+(?:are\s+)?the\s+steps\b|steps\s+to\b|where\s+do\s+i\s+(?:go|tap|click)\b|"
    r"comment\b(?!\s+(?:ça|ca)\s+marche)|que\s+faire\s+pour\b|quelles?\s+sont\s+les\s+[ée]tapes\b|"
    r"show\s+me\s+how\b|explain\s+how\b)",
    re.IGNORECASE)
_HOW_ALONE = re.compile(r"[?.!]\s+(?:and\s+|so\s+|et\s+|alors\s+)?(?:how|comment)\s*(?:\?|$)", re.IGNORECASE)
_CHOICE = re.compile(r"\b(?:better|rather|preferable|prefer|mieux|plut[ôo]t|pr[ée]f[ée]rable)\b.*\b(?:or|ou)\b",
                     re.IGNORECASE)
_EN_AUX = frozenset(
    "can could is are do does did will would should shall may am was were has have must".split())
_FR_WH = re.compile(r"^\s*(?:combien|comment|quand|o[uù]|quel|quelle|quels|quelles|pourquoi|qui|que|qu['’]|quoi|"
                    r"[àa]\s+quel|de\s+quel|dans\s+quel|jusqu['’]|pendant\s+combien|sous\s+quel|en\s+combien|"
                    r"depuis\s+quand|par\s+o[uù])", re.IGNORECASE)
_FR_INVERSION = re.compile(r"\w-(?:t-)?(?:je|tu|il|elle|on|nous|vous|ils|elles)\b", re.IGNORECASE)
_WH_ANYWHERE = re.compile(r"\b(?:how|what|when|where|which|who|why|combien|comment|quand|quel\w*|pourquoi)\b",
                          re.IGNORECASE)

_NEGATION_EN = re.compile(r"\b(?:not|never|cannot|can't|won't|don't|doesn't|isn't|aren't|wasn't|"
                          r"didn't|haven't|hasn't|shouldn't|mustn't|nothing|nobody|neither|nor|unnecessary|needless)\b|"
                          r"n['’]t\b",
                          re.IGNORECASE)
_NEGATION_FR = re.compile(r"\b(?:ne|n['’])\s*\w+(?:\s+\w+)?\s+(?:pas|jamais|plus|rien|personne|aucun\w*|que)\b|"
                          r"\b(?:jamais|aucun\w*|nul\w*|inutiles?|pas\s+besoin|pas\s+n[ée]cessaire)\b", re.IGNORECASE)
_NO_NOUN = re.compile(r"\b(?:no|pas\s+de|aucun|aucune|sans)\s+(\w+)(?:\s+(\w+))?", re.IGNORECASE)
# A sentence that opens on another case than the one asked ("After the first 14 days, …",
# "Passé ce délai, …", "Otherwise, …") says yes or no about that other case only.
_OTHER_CASE = re.compile(r"^\s*(?:after\s+(?:that|this|the\s+first)|past\s+(?:that|this)|beyond|otherwise|outside|"
                         r"pass[ée]\s+ce|apr[èe]s\s+(?:ce|cette|les\s+\d+\s+premiers)|au-del[àa]|sinon|en\s+dehors)\b",
                         re.IGNORECASE)
_RESTRICTIVE = re.compile(r"\b(?:only|just|uniquement|seulement|seuls?|seules?|except|sauf)\b", re.IGNORECASE)
_NEGATIVE_QUESTION = re.compile(
    r"\b(?:not|never|n['’]t|stop|stopping|avoid|without|cancel|quit|skip|pause|freeze|"
    r"ne|pas|jamais|arr[eê]ter|sans|[ée]viter|suspendre|geler|r[ée]silier)\b", re.IGNORECASE)

_FREE = re.compile(r"\b(?:free|no cost|at no charge|gratuit\w*|sans frais|offert\w*)\b", re.IGNORECASE)
_PAID = re.compile(r"\b(?:pay|paid|charged?|fee|fees|cost|costs|price|payant\w*|payer|pay[ée]\w*|frais|co[uû]t\w*|"
                   r"tarif\w*|factur\w*|pr[ée]lev\w*)\b", re.IGNORECASE)

# Questions whose answer is a quantity: an amount, a duration, a time, an age, a count.
_QUANTITY = re.compile(
    r"\b(?:how\s+(?:much|many|long|old|often|soon|late|early)|what\s+time|until\s+when|by\s+when|"
    r"what\s+(?:is\s+|'s\s+)?the\s+(?:price|cost|fee|age|minimum|maximum|limit|deadline)|"
    r"combien|[àa]\s+quelle\s+heure|jusqu['’]\s*(?:[àa]\s+)?(?:quand|quelle\s+heure)|quel(?:le)?s?\s+"
    r"(?:[âa]ge|heure|prix|tarif|d[ée]lai|montant|dur[ée]e|limite))\b", re.IGNORECASE)
_NUMBER = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|half|twice|"
    r"un|une|deux|trois|quatre|cinq|six|sept|huit|neuf|dix|onze|douze|vingt|trente|moiti[ée]|double)\b",
    re.IGNORECASE)


_PAYMENT = re.compile(r"\b(?:pa(?:y|id)\w*|charg\w*|fees?|costs?|pric\w*|bill\w*|factur\w*|pr[ée]lev\w*|frais|"
                      r"co[uû]t\w*|tarif\w*|pai\w*)\b", re.IGNORECASE)
_STOP_PAYING = re.compile(r"\b(?:stop|avoid|skip|without|arr[eê]ter\s+de|[ée]viter\s+de|sans)\s+(?:\w+\s+){0,2}?"
                          r"(?:pa(?:y|id)\w*|charg\w*|fees?|frais|pa(?:yer|ie\w*)|pr[ée]lev\w*)", re.IGNORECASE)


_CLAUSE_END = re.compile(r"[,.;:!?()]|\b(?:but|mais|however|cependant)\b", re.IGNORECASE)
NEGATION_SCOPE = 8  # words a negation bears on, up to its clause's end ("do not currently support this type of auto-fill")


def _scope(rest: str) -> list[str]:
    """The words a negation bears on: the rest of its clause, at most `NEGATION_SCOPE` words."""
    return words(_CLAUSE_END.split(rest, maxsplit=1)[0])[:NEGATION_SCOPE]


def _negated_words(sentence: str) -> list[str]:
    """The words a negation in `sentence` bears on ("not charged", "no cancellation fee", "ne … pas de frais")."""
    out: list[str] = []
    for match in _NEGATION_EN.finditer(sentence):
        out += _scope(sentence[match.end():])
    for match in _NEGATION_FR.finditer(sentence):
        out += words(match.group(0))[1:] + _scope(sentence[match.end():])
    for match in _NO_NOUN.finditer(sentence):
        out += [g for g in match.groups() if g]
    return out


def states_polarity(question: str, sentence: str) -> bool:
    """Whether `sentence` says no / not / free about what `question` asks: one of its words, or
    paying when the question is about paying ("Can I pay in cash?" — "We don't accept cash")."""
    negated = _negated_words(sentence)
    paying = bool(_PAYMENT.search(question))
    if paying and _FREE.search(sentence):
        return True
    if not negated:
        return False
    asked = _stems(question)
    return bool(_stems(" ".join(negated)) & asked) or (paying and bool(_PAYMENT.search(" ".join(negated))))


def asks_quantity(question: str) -> bool:
    """Whether the answer must state a quantity (how much, how long, what time, combien…)."""
    return bool(_QUANTITY.search(question))


def states_quantity(text: str) -> bool:
    """Whether `text` states a number (digits or a number word, EN/FR)."""
    return bool(_NUMBER.search(text))


YES = {"en": "Yes.", "fr": "Oui."}
NO = {"en": "No.", "fr": "Non."}


def question_kind(question: str) -> str:
    """`howto`, `yesno` or `other`."""
    text = question.strip()
    # the question proper: after a leading statement ("I paid …: can I …?", "Je me suis trompé…,
    # comment annuler ?", "Users get signed back in. How do I make them log in again?")
    if _HOWTO.match(text) or _HOWTO.match(re.split(r"(?<=[.:;,])\s+(?=[^.:;,]*\?\s*$)", text)[-1]):
        return HOWTO
    if _HOW_ALONE.search(text):  # "Can I get a new key without a new password? How?"
        return HOWTO
    # "…has run out. Can we…?", "If I cancel, do I…?"; a clause after a comma that asks nothing
    # itself ("Could I nest a message, like a threaded reply?") leaves the sentence to ask
    clause = re.split(r"[.!:;,]\s+(?=\w+[^.!:;,]*\?\s*$)", text)[-1]
    tails = [clause]
    if not (_ASKS_ITSELF.match(clause) or _WH_ANYWHERE.search(clause) or _FR_WH.search(clause)
            or _FR_INVERSION.search(clause)):
        tails.append(asked_clause(text))
    for tail in tails:
        if _CHOICE.search(tail):  # "vaut-il mieux A ou B ?" is answered by A or B, not by "Oui"
            return OTHER
        if _asks_yes_or_no(tail):
            return YESNO
    return OTHER


# a clause that asks on its own after a comma: "…, and for how long?", "…, or only to unlock?"
_ASKS_ITSELF = re.compile(r"^\s*(?:and|or|but|et|ou|mais|puis|voire)\b", re.IGNORECASE)


def _asks_yes_or_no(tail: str) -> bool:
    """Whether the clause opens as a yes/no question ("Can I…", "Est-ce que…", "Peut-on…")."""
    if (words(tail) or [""])[0] in _EN_AUX:
        return True
    if re.match(r"^\s*est[- ]ce\s+(?:qu|[^\W\d_])", tail, re.IGNORECASE):  # "Est-ce que…", "Est-ce normal ?"
        return True
    return not _FR_WH.match(tail) and bool(_FR_INVERSION.search(tail)) and not _WH_ANYWHERE.search(tail)


_ASKING = (r"(?:(?:for|in|on|at|to|from|by|with|since|until|pour|à|a|en|de|dans|sous|par|avec|depuis|jusqu\W?à)\s+)?"
           r"(?:which|what|how|where|when|why|who|is|are|do|does|did|can|could|will|would|should|must|"
           r"combien|comment|quel\w*|o[uù]|quand|pourquoi|qui|est-ce|"
           r"y\s+a-t-il|\w+(?:-t)?-(?:je|il|elle|on|nous|vous|ils|elles))\b")  # "…, et sera-t-il prévenu ?"
# the seam between two things asked: "…, and which version do I need?", "…? And for how long?"
_SEAM = re.compile(rf"(?:,\s*(?:and|et)\s+|\s+(?:and|et)\s+|(?<=\?)\s+(?:(?:and|et)\s+)?)(?={_ASKING})",
                   re.IGNORECASE)


def asked_clause(question: str) -> str:
    """What `question` asks, without the statement told before it ("In my settings panel I want…
    Which widget do I use?"): "…I can no longer write to the office. Why?" asks a cause."""
    return re.split(r"(?<=[.!:])\s+(?=[^.!:]*\?)", " ".join(question.split()))[-1]


def question_parts(question: str) -> list[str]:
    """The things a question asks, each as its own clause ("How do I set that up" / "which
    version do I need for the date widget?"); one part for a question that asks one thing. The
    statement before the question is not a part (`asked_clause`)."""
    return [p for p in (p.strip(" ,") for p in _SEAM.split(asked_clause(question))) if p]


def _stems(text: str) -> set[str]:
    return {w[:5] for w in words(text) if len(w) > 2}


def polarity(question: str, sentence: str) -> str | None:
    """"yes", "no", or None when a yes/no would be a guess."""
    if _RESTRICTIVE.search(sentence) or _OTHER_CASE.match(sentence):
        return None
    negative = bool(_NEGATION_EN.search(sentence) or _NEGATION_FR.search(sentence))
    if not negative:
        asked = _stems(question)
        for match in _NO_NOUN.finditer(sentence):  # "there is no late fee" answers "is there a fee?"
            named = " ".join(g for g in match.groups() if g)
            if _stems(named) & asked or (_PAYMENT.search(question) and _PAYMENT.search(named)):
                negative = True
                break
    if _FREE.search(sentence) and (_PAID.search(question) or _PAYMENT.search(question)) and not _FREE.search(question):
        negative = not negative  # "is it paid?" — "it is free" means no
    if negative and _STOP_PAYING.search(question) and _PAYMENT.search(" ".join(_negated_words(sentence))):
        return "yes"  # "can I stop paying?" — "you are not charged": a double negation
    if negative and _NEGATIVE_QUESTION.search(fold_accents(question)):
        return None  # "can I stop paying?" — "you are not charged" means yes: do not guess
    return "no" if negative else "yes"


# "which/what/quel X": the word after the question word that names what is asked for, past
# auxiliaries and articles ("Quel est le délai…" → "délai")
_FOCUS = re.compile(r"\b(which|what|quel|quelle|quels|quelles)\s+(?:(?:is|are|was|were|does|do|did|sont|est|"
                    r"the|a|an|le|la|les|l['’]|un|une|des)\s+)*([^\W\d_][\w'’-]*(?:\s+[^\W\d_][\w'’-]*)?)",
                    re.IGNORECASE)


@cache
def _not_focus() -> frozenset[str]:
    """Words that name nothing asked for: the lexical index's stop words (EN, FR) and auxiliaries."""
    return _EN_AUX | stop_words("en", "plus") | stop_words("fr", "short")


def asked_focus(question: str) -> str:
    """The word naming what a "which / what / quel X" question asks for ("Avec quel verbe HTTP
    faut-il…" → "verbe"): the unit that names it is the one that answers, where the others share
    only the question's topic words. Empty for other questions, and in English unless one word
    stands before a function word ("What port does…", "Which field of…"): a longer noun group has
    its head last and a verb may follow ("Which URL matching rule applies"), which only a parser
    tells apart; a French group opens on its head. A verb taken for the word ("What happens if…")
    only weighs a little on units that repeat it."""
    match = _FOCUS.search(question)
    if not match:
        return ""
    group = match.group(2).split()
    if fold_accents(group[0].lower()) in _not_focus():
        return ""
    english = match.group(1).lower() in ("which", "what")
    if english and len(group) > 1 and fold_accents(group[1].lower()) not in _not_focus():
        return ""  # "What port does…", "Which field of…" name it; "What file names…" leaves it to a parser
    return group[0]


# a yes/no question's action: the verb after its modal ("Dois-je répondre…", "Can I pause…")
_MODAL = re.compile(r"\b(?:dois[- ]je|doit[- ]on|faut[- ]il|peut[- ]on|puis[- ]je|peux[- ]je|pouvez[- ]vous|"
                    r"est[- ]il\s+possible\s+de|ai[- ]je\s+besoin\s+de|"
                    r"can\s+(?:i|we|you)|could\s+(?:i|we)|must\s+(?:i|we)|should\s+(?:i|we)|may\s+(?:i|we)|"
                    r"do\s+(?:i|we)\s+(?:need|have)\s+to|is\s+it\s+possible\s+to)\s+(?:(?:still|also|encore|aussi|"
                    r"me|te|se|le|la|les|l['’]|y|en|ne|n['’])\s*)*([^\W\d_][\w'’-]*)", re.IGNORECASE)


def asked_action(question: str) -> str:
    """The verb a yes/no question asks about ("Dois-je répondre au mail…?" → "répondre"): of two
    sentences saying no, the one whose negation bears on it answers ("Il est inutile de répondre"),
    not one saying no about another thing the question names ("Aucun avis ne pourra…")."""
    match = _MODAL.search(fold_accents(question))
    return match.group(1) if match else ""


def negates(sentence: str, action: str) -> bool:
    """Whether a negation in `sentence` bears on `action` (compared by stem)."""
    return bool(action) and bool(_stems(" ".join(_negated_words(sentence))) & _stems(action))
