"""What makes an answer a *fragment*: the precise rules `relais eval answers` counts.

An answer is cut into cited segments (the text before each `[n]`, or the whole answer when it
cites nothing); fenced code blocks are taken out first and checked on their own. A segment is a
fragment when any rule below holds. The rules look at the answer's text only, except
`flattened_table_row` and `lone_code_line`, which also look at the passages the answer came from
(a table row or a code line can only be recognised by knowing where it was).

- `dangling_pronoun`: the segment opens on a word that points back to something it does not
  name ("It costs $25…", "This is free…", "Ils…", "Cette option…"). Impersonal openings
  ("It is possible", "Il y a", "Il faut") are not dangling.
- `flattened_table_row`: a table row pasted as one line: the segment holds a `|` outside code,
  or holds two or more cells of one row of a passage's table, in order, with no header label.
- `pointer_only`: a sentence that only points elsewhere ("Read Student discount.",
  "See [Refunds](refunds.md).", "Lisez …", "Voir …", "Details are in …").
- `cut_sentence`: a prose segment that starts in lower case (other than on a name written so:
  "demarche.numerique.gouv.fr conserve…", "iPhone…") or on punctuation, or does not end
  on sentence punctuation (. ! ? … : ; or a closing bracket/quote after one); list items and
  headed lines ("Premium: …") may end without a period but must not start in lower case.
- `markup_artifact`: a space before a full stop or a comma ("Tap Book ."), an unbalanced
  `**` left by stripped Markdown, or template/HTML debris outside code: a Liquid/GitBook/Hugo tag
  (`{% … %}`, `{{ … }}`), a kramdown attribute list (`{:target=…}`), an HTML tag (`<br>`,
  `</div>`), an entity (`&rarr;`, `&#x20;`), an admonition fence (`:::`, `!!!`), or the dangling
  punctuation a stripped link or icon leaves (`()`, `[]`, ", .").
- `lone_code_line`: a line of a multi-line fenced block of a passage quoted outside a fence (a bare
  name in a code span is a name in a sentence: "use the `@cl.on_chat_resume` decorator", and so
  is any span the passage's own prose writes), or
  a fenced block of the answer that is not a whole block of a passage (cut or re-indented);
  an unclosed fence.
- `bare_label`: a prose sentence that is a label, not a statement: one bare word ("Confirm.", a
  step cut from its list) or a short noun phrase on a determiner ("The fastest way.").
- `lead_without_list`: a line ending with ":" that nothing listed follows ("Everything in the Base
  plan, plus: [1]").
- `duplicated_line`: the same line twice in one answer.
- `item_without_lead`: an item of a passage's list (of two or more) quoted as prose, or as a list
  line with no lead-in line ending with ":" above it ("You are enrolled full-time at a university"
  without "Who is eligible:").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from knowledge.markup import TABLE_RULE
from relais.sentences import SENTENCE_END

_CITATION = re.compile(r"\s*\[\d+(?:[,\s]+\d+)*\]")
_FENCE_BLOCK = re.compile(r"^([ \t]*)(```|~~~)[^\n]*\n(.*?)^\1\2[ \t]*$", re.MULTILINE | re.DOTALL)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_HEADED = re.compile(r"^[^\s:][^:]{0,60}:\s+\S")  # "Premium: $25/month" — a label and its value
_NAME_SPAN = re.compile(r"`@?[\w.]+`")  # a bare name in a code span: a name in a sentence, not a code line

DANGLING_EN = frozenset("it this that these those they them its their he she his her such".split())
DANGLING_FR = frozenset(
    "il elle ils elles ce cet cette ces cela ça celui celle ceux celles celui-ci celle-ci "
    "ceux-ci ceci lui leur leurs".split())
# Openings that look like a pronoun but point at nothing (impersonal forms).
_IMPERSONAL = re.compile(
    r"^(?:it\s+(?:is|'s)\s+(?:possible|not possible|best|free|worth|recommended)|"
    r"il\s+(?:y\s+a|n['’]y\s+a|faut|ne\s+faut|est\s+possible|suffit|vaut)|ce\s+qui|ce\s+que|"
    r"this\s+article|cet\s+article|that's\s+it)\b",
    re.IGNORECASE)
POINTER = re.compile(
    r"^(?:\(?\s*)(?:read|see|see also|learn more|lisez|voir|voyez|consultez|reportez-vous à|en savoir plus|more in|"
    r"details(?: and an example)? are in|all (?:current )?prices are in|you can find all .* in|"
    r"tous les tarifs sont dans|guide (?:complet|détaillé) en anglais|english version)\b",
    re.IGNORECASE)
_TERMINAL = re.compile(r"[.!?…:;]\s*[\"'»)\]*_`]*\s*$")
_DETERMINERS = frozenset("the a an our your my its their this le la les l un une des du notre votre nos vos mon ma mes "
                         "son sa ses leur".split())
_ANSWER_WORDS = frozenset("yes no oui non".split())
_CITATIONS = re.compile(r"\s*\[\d+(?:[,\s]+\d+)*\]\s*")
_FENCE_LINE = re.compile(r"^\s*(?:```|~~~)")
_MARKUP = re.compile(
    r"\{%|%\}|\{\{|\}\}|\{:[^}]*\}|&(?:#\d+|#x[0-9a-fA-F]+|[a-zA-Z][a-zA-Z0-9]{1,31});|"
    r"</?(?:a|b|br|code|div|em|figure|figcaption|i|img|li|ol|p|pre|span|strong|sub|sup|table|td|th|tr|u|ul)\b[^<>]*>|"
    r"^\s*(?::::|!!!|\?\?\?)|(?<!\w)\(\s*\)|(?<!\w)\[\s*\]|[,;]\s*\.(?![.\w])|"
    r"^[ ]{0,3}>\s|\[![A-Za-z]+\]|\]\[[^\]]*\]|(?<=\w)\.\.(?=[ \t]*(?:\[\d+\])?[ \t]*$)|"
    r"\\[!-/:-@\[-`{-~]",  # a Markdown escape left in prose ("démarche \\=> reprenez")
    re.IGNORECASE | re.MULTILINE)
_CODE_SPAN = re.compile(r"(`+).+?\1")
_EMPTY_CODE_SPAN = re.compile(r"(?<![`\w])``(?![`\w])")
# table cells run into prose ("By default, Never.| |Maximum Access Count|…"), outside table lines
_PIPE_DEBRIS = re.compile(r"\|[ \t]*\||(?<=[.!?])\|(?=[ \t]*\w)")
_TABLE_LINE = re.compile(r"^[ \t]*\|")


def has_markup(text: str) -> bool:
    """Template, HTML or entity debris outside code (fenced blocks and `code spans` are exempt); a
    code span emptied of the tag it named ("The `` tag") is debris too."""
    text = _FENCE_BLOCK.sub("\n", text)
    if _EMPTY_CODE_SPAN.search(text):
        return True
    text = _CODE_SPAN.sub("code", text)
    return bool(_MARKUP.search(text)) or any(
        _PIPE_DEBRIS.search(line) for line in text.split("\n") if not _TABLE_LINE.match(line))


def strip_markdown(text: str) -> str:
    """Answer text as a reader sees it: no emphasis marks, links reduced to their label."""
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)
    text = text.replace("**", "").replace("__", "")
    return text.replace("\u00a0", " ").replace("\u202f", " ")


def _fenced_blocks(text: str) -> list[str]:
    """The fenced blocks' bodies, without trailing spaces (invisible, and not kept when quoted)."""
    return ["\n".join(line.rstrip() for line in m.group(3).rstrip("\n").splitlines())
            for m in _FENCE_BLOCK.finditer(text)]


def _table_rows(passages: Iterable[str]) -> list[list[str]]:
    rows = []
    for passage in passages:
        for line in passage.splitlines():
            if line.strip().startswith("|") and not TABLE_RULE.match(line):
                cells = [strip_markdown(c).strip() for c in line.strip().strip("|").split("|")]
                cells = [c for c in cells if c]
                if len(cells) >= 2:
                    rows.append(cells)
    return rows


def segments(answer: str) -> list[str]:
    """The cited segments of an answer (fenced code taken out)."""
    prose = _FENCE_BLOCK.sub("\n", answer)
    parts = _CITATION.split(prose)
    return [p.strip() for p in parts if p.strip()]


def _lines(segment: str) -> list[str]:
    return [line.strip() for line in segment.splitlines() if line.strip()]


def _with_parent_item(segment: str) -> set[str]:
    """The sub-items of `segment` (stripped) quoted under their parent item: "Ce champ permet…"
    under "6. Utilisez le champ…" names what it points back at."""
    found: set[str] = set()
    depths: list[int] = []  # the indents of the list items above, while the list goes on
    for raw in segment.splitlines():
        if not raw.strip():
            continue
        if not _LIST_ITEM.match(raw):
            depths = []
            continue
        indent = len(raw) - len(raw.lstrip())
        if any(d < indent for d in depths):
            found.add(raw.strip())
        depths.append(indent)
    return found


def _first_word(text: str) -> str:
    match = re.match(r"[\W_]*([^\W\d_][\w'’-]*)", text)
    return match.group(1).lower() if match else ""


def opens_on_pronoun(sentence: str) -> bool:
    """Whether `sentence` opens on a word pointing back at something it does not name ("It costs…")."""
    text = strip_markdown(_LIST_ITEM.sub("", sentence)).strip()
    if _IMPERSONAL.match(text):
        return False
    first = _first_word(text)
    word = re.split(r"['’]", first)[0]
    if word in ("c", "ç"):  # "C'est …", "Ç'a …"; not a flag's letter ("`-c, --ci`: Runs in CI mode.")
        return first != word
    return word in DANGLING_EN or word in DANGLING_FR


_POINTING_OPENING = re.compile(  # "Au-delà de ce délai, …", "Passé ce délai, …", "After that date, …"
    r"^(?:(?:[^\W\d_][\w'’-]*\s+){0,2}(?:this|that|these|those|ce|cet|cette|ces)\s+[^\W\d_][\w'’-]*\s*,"
    # "In the meantime, you may receive … errors": the time span, the case or the way is the sentence before's
    r"|(?:in\s+the\s+meantime|meanwhile|otherwise|en\s+attendant|entre-temps|entretemps|sinon|le\s+cas\s+échéant)\s*,)",
    re.IGNORECASE)


def ends_a_sentence(text: str) -> bool:
    """Whether `text` ends like a sentence or a lead-in (".", "?", ":"…), not like a title or a label."""
    return bool(_TERMINAL.search(text))


def refers_back(sentence: str) -> bool:
    """Whether `sentence` needs the one before it: it opens on a pronoun, or its opening phrase
    points back with a demonstrative ("Au-delà de ce délai, …" reads as nothing alone)."""
    text = strip_markdown(_LIST_ITEM.sub("", sentence)).strip()
    return opens_on_pronoun(sentence) or bool(_POINTING_OPENING.match(text))


_LOWER_NAME = re.compile(r"^(?:[a-z][a-z+.-]*://\S+|[a-z][\w-]*(?:[._/][\w-]+)+|[a-z]+[A-Z]\w*)(?=[\s,:;]|$)")


def opens_on_name(text: str) -> bool:
    """Whether `text` opens on a name written in lower case ("demarche.numerique.gouv.fr conserve…",
    "config.toml holds…", "iPhone users…", "https://service-public.fr, site…"): a whole sentence, not one cut mid-way."""
    return bool(_LOWER_NAME.match(strip_markdown(text).strip()))


def starts_lower(text: str) -> bool:
    """A lower-case start that marks a sentence cut mid-way (a lower-case name does not)."""
    return text[:1].islower() and not opens_on_name(text)


def _cut(line: str) -> bool:
    text = strip_markdown(line).strip()
    body = _LIST_ITEM.sub("", text).strip()
    if not body:
        return True
    if starts_lower(body) or body[0] in ",.;:)]»":
        return True
    if _LIST_ITEM.match(text) or _HEADED.match(body) or body.endswith(":"):
        return False
    return not _TERMINAL.search(body)


def is_label(sentence: str) -> bool:
    """A label quoted as a sentence: one bare word ("Confirm.") or a determiner and one or two
    words with no verb ending ("The fastest way."); "Yes."/"Non." are answers, not labels."""
    text = strip_markdown(sentence).strip()
    if not text.endswith(".") or text.endswith(".."):
        return False
    tokens = re.split(r"[\s'’]+", text[:-1].strip())
    if len(tokens) == 1:
        return tokens[0].isalpha() and tokens[0].lower() not in _ANSWER_WORDS
    return (len(tokens) <= 3 and tokens[0].lower() in _DETERMINERS and all(t.isalpha() for t in tokens)
            and not re.search(r"(?:s|ed)$", tokens[-1].lower()))


def _list_items(passages: Iterable[str]) -> list[str]:
    """Items of the passages' lists of two or more (plain text, at least four words)."""
    out: list[str] = []
    for passage in passages:
        run: list[str] = []
        for line in [*passage.splitlines(), ""]:
            if _LIST_ITEM.match(line):
                run.append(" ".join(strip_markdown(_LIST_ITEM.sub("", line)).split()))
                continue
            if line.startswith((" ", "\t")) and line.strip() and run:
                continue  # an item's continuation line
            if len(run) >= 2:
                out += [item for item in run if len(item.split()) >= 4]
            run = []
    return out


def _structure_reasons(answer: str, passages: Sequence[str]) -> list[str]:
    """The rules that read the answer's lines in order (lead-ins, duplicates, items out of their list)."""
    reasons: list[str] = []
    lines = [" ".join(strip_markdown(_CITATIONS.sub(" ", line)).split()) for line in answer.splitlines()]
    lines = [line for line in lines if line]
    fenced = False
    seen: set[str] = set()
    prose_lines: list[str] = []
    for i, line in enumerate(lines):
        if _FENCE_LINE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        if line.endswith(":") and not (i + 1 < len(lines) and (_LIST_ITEM.match(lines[i + 1]) or
                                                               _FENCE_LINE.match(lines[i + 1]) or
                                                               lines[i + 1].startswith("|"))):
            reasons.append("lead_without_list")
        key = line.lower()
        if len(line.split()) >= 3 and key in seen:
            reasons.append("duplicated_line")
        seen.add(key)
        if not _LIST_ITEM.match(line):
            prose_lines.append(line)
            sentences = SENTENCE_END.split(line)
            if any(is_label(s) for s in sentences[1:] if s) or (sentences and is_label(sentences[0])):
                reasons.append("bare_label")
    for item in _list_items(passages):
        probe = item[:60].lower()
        for i, line in enumerate(lines):
            if probe not in line.lower():
                continue
            if not _LIST_ITEM.match(line):
                reasons.append("item_without_lead")
                continue
            j = i
            while j > 0 and _LIST_ITEM.match(lines[j - 1]):
                j -= 1
            if j == 0 or not lines[j - 1].endswith(":"):
                reasons.append("item_without_lead")
    return reasons


def fragment_reasons(answer: str, passages: Sequence[str] = ()) -> list[str]:
    """Every rule the answer breaks (empty when it reads as a whole answer)."""
    reasons: list[str] = []
    if answer.count("```") % 2 or answer.count("~~~") % 2:
        reasons.append("lone_code_line")
    passage_blocks = [b for p in passages for b in _fenced_blocks(p)]
    for block in _fenced_blocks(answer):
        if passage_blocks and block not in passage_blocks:
            reasons.append("lone_code_line")
    prose = _FENCE_BLOCK.sub("\n", answer)
    code_lines = {line.strip() for b in passage_blocks if len(b.strip().splitlines()) > 1
                  for line in b.splitlines() if len(line.strip()) >= 8}
    lines = prose.splitlines()
    # "use the `@cl.on_chat_resume` decorator" names it; so does a span the article's own prose writes
    # ("…inside of `"policies": { }`:")
    passage_prose = "\n".join(_FENCE_BLOCK.sub("\n", p) for p in passages)
    names_out = [_CODE_SPAN.sub(lambda m: " " if m.group(0) in passage_prose else m.group(0), _NAME_SPAN.sub(" ", line))
                 for line in lines]
    # …and a code line the article's prose writes too ("…if you implemented the @cl.on_audio_chunk
    # decorator") is a name in that sentence, not a line torn from its block
    if any(code in line for line in names_out for code in code_lines if code not in passage_prose):
        reasons.append("lone_code_line")
    rows = _table_rows(passages)
    for segment in segments(answer):
        plain = re.sub(r"`[^`]*`", "", segment)
        if "|" in plain:
            reasons.append("flattened_table_row")
        flat = " ".join(strip_markdown(segment).split())
        for cells in rows:
            joined = " ".join(" ".join(c.split()) for c in cells[:3])
            if len(cells) >= 2 and joined in flat:
                reasons.append("flattened_table_row")
                break
        if re.search(r"\s[.,](?:\s|$)", strip_markdown(segment)) or segment.count("**") % 2 or has_markup(segment):
            reasons.append("markup_artifact")
        parents = _with_parent_item(segment)
        for line in _lines(segment):
            sentences = SENTENCE_END.split(_LIST_ITEM.sub("", line)) or [line]
            if opens_on_pronoun(line if _LIST_ITEM.match(line) else sentences[0]) and line not in parents:
                reasons.append("dangling_pronoun")
            if any(POINTER.match(strip_markdown(s).strip()) for s in sentences):
                reasons.append("pointer_only")
            if _cut(line):
                reasons.append("cut_sentence")
    reasons += _structure_reasons(answer, passages)
    return sorted(set(reasons))


def is_fragment(answer: str, passages: Sequence[str] = ()) -> bool:
    return bool(fragment_reasons(answer, passages))
