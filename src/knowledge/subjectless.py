"""Sentences written without their subject, as API references write them.

"Requires both X and Y to be enabled.", "Returns the current user." — the subject is the thing
the sentence before it names ("Decorator to enable users to continue a conversation."), or the
page. Read alone, such a sentence carries none of the words a question uses for that thing, so
the composer reads (and quotes) it with the sentence before it, as it does a sentence opening on
"It". Recognised by shape, not by a list of verbs: a capitalised word ending in a third-person
"-s", then a determiner, a quantifier or a code span ("Accepts a…", "Sets `x`…"), or "to" and a
value ("Defaults to 10.").
"""

from __future__ import annotations

import re

from knowledge.fragments import strip_markdown

# After the verb: what opens its object. Never a verb or a preposition: "Settings are…",
# "Hours at the desk…" open on a plural noun, which is a subject.
_OBJECT_OPENING = frozenset({"a", "an", "the", "both", "no", "any", "each", "every", "its", "your", "their",
                             "this", "these", "those", "one", "two", "some", "either", "whether"})
# "Defaults to 10." / "Defaults to `None`.": a verb, "to", then a value (a number, code, a literal)
_DEFAULTS_TO = re.compile(r"^[A-Z][a-z]{2,}s\s+to\s+(?:[`\"'\d]|(?:true|false|none|null)\b)", re.IGNORECASE)
_VERB = re.compile(r"^([A-Z][a-z]{2,}(?<![su])s)\s+(`|\S+)")


def opens_on_verb(sentence: str) -> bool:
    """Whether `sentence` opens on a verb whose subject is left out ("Requires both …")."""
    text = strip_markdown(sentence).strip()
    match = _VERB.match(text)
    if match is not None and _DEFAULTS_TO.match(sentence.strip()):
        return True
    if match is None or len(text.split()) < 4:
        return False
    after = match.group(2)
    return after == "`" or after.startswith("`") or after.lower() in _OBJECT_OPENING
