"""Whether the quoted sentence answers a yes/no question with yes or no (EN/FR), or neither.

A sentence's surface negation is not its answer: "Are the clubs open on 1 January?" — "All clubs
are closed on 25 December and 1 January" has no "not" and means *no*. So the answer's polarity is
read from what the sentence says about the question's predicate:

- a small table of opposite predicates (open/closed, free/paid, allowed/forbidden, can/cannot,
  included/extra, available/unavailable, required/optional, ouvert/fermé, gratuit/payant…): the
  sentence's word for the asked predicate, flipped by a negation in its scope, agrees or not;
- otherwise the question's own content words: one inside a negation's scope ("We don't accept
  cash") says no; most of them stated without one says yes;
- negation scope: "not/never/no/without/stop/pause" (EN) or "ne … pas/jamais/plus", "sans",
  "aucun" (FR) bear on the few words after them in the same clause (a comma, "but"/"mais" ends it).

When this cannot be settled, there is no yes/no (a wrong "Oui" is worse than none): no evidence,
evidence both ways, a restrictive sentence ("only"), a sentence whose own condition ("if you cancel
within 14 days") is not the asked case ("if I move"), a "no" under a condition, or another quoted
sentence that says the opposite about the same thing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from knowledge.fragments import opens_on_pronoun
from relais.language import fold_accents

# concept → (words meaning it, words meaning its opposite); accent-folded, lower case, whole words
_CONCEPTS: dict[str, tuple[str, str]] = {
    "open": (r"open|opens|opened|ouvert|ouverte|ouverts|ouvertes|ouvre|ouvrent|accessible",
             r"closed|shut|ferme|fermes|fermee|fermees|ferment|fermeture|inaccessible"),
    "paid": (r"paid|pay|pays|paying|charged|charge|charges|fee|fees|payant|payante|payants|payantes|payer|"
             r"payez|paie|paient|facture|factures|facturee|facturees|frais|cost|costs|costs_amount",
             r"free|gratuit|gratuite|gratuits|gratuites|gratuitement|offert|offerte|offerts|offertes"),
    "allowed": (r"can|could|may|allowed|permitted|possible|authorised|authorized|able|autorise|autorisee|"
                r"autorises|autorisees|permis|peut|peux|puis|pouvez|peuvent|pouvons|pourrai|pourrais|pourrez",
                r"cannot|forbidden|prohibited|impossible|unable|interdit|interdite|interdits|interdites"),
    "included": (r"included|includes|include|inclus|incluse|incluses|compris|comprise|comprises|comprend",
                 r"extra|supplement|supplementaire|supplementaires|additional"),
    "available": (r"available|offered|offer|offers|provide|provides|provided|offre|offrons|proposons|disponible|disponibles|propose|proposee|proposes|proposees",
                  r"unavailable|indisponible|indisponibles"),
    "required": (r"required|mandatory|compulsory|necessary|need|needs|must|obligatoire|obligatoires|"
                 r"necessaire|necessaires|requis|requise|faut|doit|dois|doivent|besoin",
                 r"optional|unnecessary|needless|facultatif|facultative|facultatifs|facultatives|inutile|inutiles|"
                 r"superflu|superflue"),
}
_WORDS = {name: (re.compile(rf"^(?:{pos})$"), re.compile(rf"^(?:{neg})$")) for name, (pos, neg) in _CONCEPTS.items()}
# concepts whose opposite word is itself a negation ("impossible", "inutile" = "not possible", "not
# needed"); "closed" or "free" are not: "closed on 25 December" says nothing of other days
_DENIABLE = frozenset({"allowed", "required"})
_MODAL = "allowed"  # "Can I…?" is the question's form: its content words still decide when no modal is quoted

# a negation and how many words after it it bears on
_NEGATORS = re.compile(r"^(?:cannot|not|no|never|without|nobody|nothing|none|neither|nor|non|"
                       r"pas|jamais|plus|aucun|aucune|rien|personne|sans|nul|nulle)$")
# verbs that stop what follows: "stop paying", "pauses your payments" — for the predicates of the table
_HALTS = re.compile(r"^(?:stop|stops|stopped|stopping|pause|pauses|paused|suspend|suspends|suspended|avoid|skip|"
                    r"cease|ceases|arrete|arretent|arreter|suspendre|suspendu|suspendus|cesse|cessent|cesser)$")
_FR_NE = re.compile(r"^(?:ne|n)$")
_FR_NE_CLOSE = re.compile(r"^(?:pas|jamais|plus|rien|aucun|aucune|personne|guere)$")
SCOPE = 5  # words a negation bears on
_CLAUSE = re.compile(r"[,;()!?\n]|(?<!\d):(?!\d)|(?<![ap]\.m)\.(?:\s|$)|\s(?:but|however|whereas|otherwise|except|mais|sinon|sauf|cependant|"
                     r"tandis)\s", re.IGNORECASE)
_CONDITION = re.compile(r"\b(?:if|unless|when|whenever|while|during|in case|as long as|only if|provided|after|"
                        r"si|s['’]ils?|sauf si|quand|lorsque|lorsqu['’]|pendant|en cas|tant que|à condition|a condition|"
                        r"apr[eè]s|pass[ée])\b", re.IGNORECASE)
_CONDITION_CLAUSE = re.compile(r"\b(?:if|si)\b[^,;]*[,;]", re.IGNORECASE)
_RESTRICTIVE = re.compile(r"\b(?:only|just|solely|uniquement|seulement|seuls?|seules?|except|sauf)\b", re.IGNORECASE)
_STOP = frozenset(
    "the and for you your are can could does did will would should shall may have has had was were with "
    "from this that these those there here what when where which who how any some our their its into "
    "about than then also just get got make need want able one all per via put take give keep going "
    "mettre mets met prendre donner aller faire fais "
    "les des une est sont pour dans sur avec pas que qui vous votre vos mon mes nous notre nos ils elles "
    "elle leur leurs aux par plus mais est-ce ce cette ces etre avoir fait faire peux peut puis pouvez "
    "quel quelle quels quelles comment combien quand tout tous toute toutes".split())
_ASK = re.compile(r"\b(?:if|si|s['’]ils?|when|quand|lorsque|while|during|pendant|en cas de|in case)\b(.*)$", re.IGNORECASE)


def _tokens(text: str) -> list[str]:
    """Lower-case, accent-folded words, contractions opened ("can't" → can not, "n'est" → ne est)."""
    text = fold_accents(text).lower()
    text = re.sub(r"\b(?:can|could|may)\s+not\b|\bca(?:n['’]|nno)t\b|\bcouldn['’]t\b", "cannot", text)
    text = re.sub(r"\b(wo|do|does|did|is|are|was|were|has|have|had|should|would|must|need)n['’]t\b",
                  lambda m: {"wo": "will"}.get(m.group(1), m.group(1)) + " not", text)
    text = re.sub(r"\b(?:costs?|co[uû]tent|co[uû]te)(?=\s+(?:\$|€|£)?\s*\d)", "costs_amount", text)
    text = re.sub(r"\b([a-z])['’]", r"\1 ", text)  # l'accès, n'est, d'un
    return re.findall(r"[a-z_]+|\d+", text)


def _stem(word: str) -> str:
    return (word[:-1] if len(word) > 3 and word[-1] in "sx" else word)[:5]


def _skeletons(stems: set[str]) -> set[str]:
    """Consonant skeletons of stems, so that the asked case matches inflected forms ("frozen" ~ "freeze")."""
    out = set()
    for stem in stems:
        skeleton = stem[0] + re.sub(r"[aeiouy]", "", stem[1:])
        out.add(skeleton[:3] if len(skeleton) >= 3 else stem)
    return out


@dataclass
class _Clause:
    words: list[str]
    negated: list[bool]  # per word: inside a negation's scope
    halted: list[bool]  # per word: after a stopping verb ("stop paying")


def _clauses(text: str) -> list[_Clause]:
    out: list[_Clause] = []
    for piece in _CLAUSE.split(text):
        words = _tokens(piece)
        if not words:
            continue
        negated = [False] * len(words)
        halted = [False] * len(words)
        for i, w in enumerate(words):
            if _HALTS.match(w):
                for j in range(i + 1, min(len(words), i + 1 + SCOPE)):
                    halted[j] = True
            if _NEGATORS.match(w) and not (w == "plus" and not any(_FR_NE.match(x) for x in words[max(0, i - 4):i])):
                for j in range(i + 1, min(len(words), i + 1 + SCOPE)):
                    negated[j] = True
            if _FR_NE.match(w):  # "ne ferme pas", "n'est pas ouvert": the words between ne and pas, and after
                close = next((j for j in range(i + 1, min(len(words), i + 5)) if _FR_NE_CLOSE.match(words[j])), None)
                if close is not None:
                    for j in range(i + 1, min(len(words), close + 1 + SCOPE)):
                        negated[j] = True
        out.append(_Clause(words, negated, halted))
    return out


def _content(words: Iterable[str]) -> set[str]:
    return {_stem(w) for w in words if len(w) > 2 and w not in _STOP and not _NEGATORS.match(w) and not _HALTS.match(w)
            and not any(p.match(w) or n.match(w) for p, n in _WORDS.values())}


@dataclass
class _Question:
    concepts: dict[str, bool]  # concept → the polarity asked about (True: "is it open?")
    content: set[str]  # stems of the words asked about
    condition: set[str]  # stems of the asked case ("if I move")
    negative: bool  # a negation bears on the question's own content words
    named: set[str] = field(default_factory=set)  # names and numbers asked about ("Christmas", "1er janvier")


def _concept_of(word: str) -> tuple[str, bool] | None:
    for name, (pos, opp) in _WORDS.items():
        if pos.match(word):
            return name, True
        if opp.match(word):
            return name, False
    return None


_PRONOUN = frozenset("i we you one je on nous vous il elle".split())


def _question(question: str) -> _Question:
    concepts: dict[str, bool] = {}
    content: set[str] = set()
    negative = False
    for clause in _clauses(question):
        words = clause.words
        for i, (word, neg, halt) in enumerate(zip(words, clause.negated, clause.halted)):
            found = _concept_of(word)
            before = [w for w in words[max(0, i - 2):i] if w not in _PRONOUN and w != "t"]
            if found and found[0] != _MODAL and before and _concept_of(before[-1]) == (_MODAL, True):
                content.add(_stem(word))  # "can I pay in cash?": paying is the action asked about
                continue
            if found:
                concepts.setdefault(found[0], found[1] != (neg or halt))
            elif _content([word]):
                content.add(_stem(word))
                negative |= neg  # "is there no way to…?": a yes would be ambiguous
    match = _ASK.search(question)
    condition = _content(_tokens(match.group(1))) if match else set()
    named = {_stem(fold_accents(w).lower()) for w in re.findall(r"(?<=\s)[A-ZÀ-Ý][\w-]+", question.strip())}
    named = {w for w in named if w in content} | set(re.findall(r"\d+", question))
    return _Question(concepts, content, condition, negative, named)


@dataclass
class _Evidence:
    concept: list[bool]  # what the sentence says of the asked concepts, agreeing (True) or not
    relevance: int  # how many of the question's words the sentence holds
    negated: set[str]  # question content stems inside a negation's scope
    stated: set[str]  # …and outside one
    covered: bool = False  # the sentence is about most of what was asked, names and numbers included


_HOURS = re.compile(r"\d{1,2}(?:[:.h]\s?\d{2})?\s*(?:a\.?m\.?|p\.?m\.?|h)?\s*[–-]\s*\d{1,2}(?:[:.h]\s?\d{2})?\s*"
                    r"(?:a\.?m\.?|p\.?m\.?|h)\b", re.IGNORECASE)


def _evidence(q: _Question, text: str, context: str = "", before: str = "") -> _Evidence:
    """What `text` says about the question; `context` (the section, the sentence before) only
    tells what it is about ("It is free on every plan" under "Freeze your membership").

    A predicate stated plainly counts only for a sentence about most of what was asked (more than
    half of its words, the asked case aside: "All
    clubs are closed on 25 December" says nothing of public holidays); a negated one is specific
    enough by itself ("There is no cancellation fee"). Stated opening hours say "open"."""
    agree: list[bool] = []
    negated: set[str] = set()
    stated: set[str] = set()
    if before and (opens_on_pronoun(text) or before.rstrip().endswith(":")):
        context = f"{context} {before}"  # what "It" stands for, or the lead-in of an item
    about = (_content(_tokens(context)) | _content(_tokens(text))) & q.content
    asked = q.content - q.condition
    held = about | (set(re.findall(r"\d+", f"{context} {text}")) & q.named)
    covered = len(about & asked) * 2 > len(asked) and q.named <= held
    relevance = len(_content(_tokens(text)) & q.content)
    weak: list[bool] = []  # plain statements about too little of the question
    for clause in _clauses(text):
        for i, (word, neg, halt) in enumerate(zip(clause.words, clause.negated, clause.halted)):
            stem = _stem(word)
            if stem in q.content and (stem in _content([word]) or _concept_of(word)):
                (negated if neg else stated).add(stem)
            found = _concept_of(word)
            if found is None or found[0] not in q.concepts:
                continue
            said = found[1] != (neg or halt)
            if found[0] == _MODAL and not (about if said else _content(clause.words[i + 1:i + 1 + SCOPE]) & q.content):
                continue  # "can" is said of everything: "can" about the question, "cannot" about its action
            denies = not found[1] and found[0] in _DENIABLE  # "cannot", "forbidden", "unnecessary" negate too
            if not (neg or halt or denies) and not covered:
                weak.append(said == q.concepts[found[0]])
                continue
            agree.append(said == q.concepts[found[0]])
    if "open" in q.concepts and covered and _HOURS.search(text) and not negated:
        agree.append(q.concepts["open"])
    if agree and weak and not all(a == agree[0] for a in agree + weak):
        agree.append(not agree[0])  # "teens can…; children cannot…": it depends
    return _Evidence(agree, relevance, negated, stated - negated, covered)


def _decide(q: _Question, e: _Evidence) -> str | None:
    if e.concept:
        if all(e.concept):
            return "yes"
        if not any(e.concept):
            return "no"
        return None
    if set(q.concepts) - {_MODAL}:
        return None  # asked "open?", "free?"… and the sentence says nothing of it: not a guess
    if q.negative:
        return None
    if e.negated and not e.stated:
        return "no"
    if e.stated and not e.negated and len(e.stated) * 2 > len(q.content) and e.covered:
        return "yes"
    return None


# a limit that bounds the case the sentence speaks of ("older than 30 days", "au-delà de 14 jours")
_BOUNDED = re.compile(r"\b(?:older|longer|later|more|greater|fewer|less)\s+than\s+(?:\d|one|two|three|a\s)|"
                      r"\b(?:beyond|past)\s+(?:the\s+first\s+)?\d|\bau-del[àa]\s+d[eu]s?\s+\d|"
                      r"\b(?:plus|moins)\s+(?:de|d['’])\s*\d", re.IGNORECASE)


def answer_polarity(question: str, sentence: str, others: Sequence[str] = (), context: str = "",
                    second_opinion: str | None | bool = False, before: str = "") -> str | None:
    """"yes", "no", or None: what `sentence` answers to the yes/no `question`; `others` are the
    other sentences the answer quotes (one that says the opposite makes it undecided); `context`
    what the sentence is about (its article and section); `before` the sentence before it or its
    list's lead-in (read only for a sentence that opens on a pronoun, or an item). `second_opinion`, when given,
    is another reading of the sentence: unless an opposite predicate decided, both must agree."""
    q = _question(question)
    if not q.concepts and not q.content:
        return None
    if _RESTRICTIVE.search(_CONDITION_CLAUSE.sub(" ", sentence)):
        return None  # "only" restricts the answer ("if you only need a pause, …" restricts the case)
    e = _evidence(q, sentence, context, before)
    answer = _decide(q, e)
    if answer is None:
        return None
    if second_opinion is not False and not e.concept and second_opinion != answer:
        return None
    if answer == "no" and _BOUNDED.search(sentence):
        return None  # "no refunds for subscriptions older than 30 days": a no for the case past a limit only
    condition = _CONDITION.search(sentence)
    if condition:
        own = _skeletons(_content(_tokens(sentence[condition.end():])))
        if not own & _skeletons(q.condition) and (answer == "no" or q.condition):
            return None  # a condition that is not the asked case ("if I move" — "if you cancel within 14 days")
    strength = e.relevance
    for other in others:
        if other == sentence:
            continue
        o = _evidence(q, other)
        said = _decide(q, o)
        if said is not None and said != answer and o.relevance >= strength:
            return None  # the answer says both
    return answer
