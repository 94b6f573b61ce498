"""A list item is quoted with its list's lead-in; a list answer shows its lead-in once and the whole list.

Quoted alone, a list item loses what makes it true: "You are enrolled full-time at a university"
is a condition of "Who is eligible", "Confirm. The request must be made…" is step 3 of "How to
freeze". So an item is shown under its lead-in (the sentence ending with ":" before the list, or
else its section's name), a step with its number. When the answer quotes the lead-in sentence
itself, or several items of one list, it shows that list once, whole (up to `MAX_ITEMS` items;
a longer list keeps the quoted items only), under its lead-in. So does one item of a short list of
short items (options, names: "three decisions: accept, close, refuse"), whose lead-in announces
them all: one of them alone under it reads as the only one; and one step of a short numbered list,
whatever the question (step 2 of 3 alone drops the step that answers). A lead-in whose list is not in the
passage is not quoted at all ("Everything in the Base plan, plus:" says nothing by itself), nor
is the sentence that introduces a quoted code block (the block is shown under it already).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Collection, Sequence
from typing import Any, Protocol

from knowledge.fragments import ends_a_sentence, opens_on_pronoun
from knowledge.passage_units import Unit, captions_code, render_list
from knowledge.pointers import is_pointer

MAX_ITEMS = 8
SHORT_ITEM_WORDS = 6  # a list whose items are all this short enumerates options: quoted whole


class Candidate(Protocol):  # the composer's candidate: a unit, its passage's units, its hit
    unit: Unit
    siblings: list[Unit]
    hit: Any
    order: int
    pictured: bool  # a lead-in ending its passage over a picture (`composer._with_block_of_next_passage`)


def heading_of(hit: Any) -> str:
    """The name of the section a passage sits in; its article's title at the top, or when the
    section's name opens on a pronoun ("Ça ne synchronise pas ?" leads nothing by itself)."""
    section = (getattr(hit, "section", "") or "").split(" > ")[-1].strip()
    if section and not opens_on_pronoun(section):
        return section
    return (getattr(hit, "title", "") or "").strip()


_ENUMERATOR = re.compile(r"^(?:[A-Za-z]|[IVX]+|[ivx]+|\d+(?:\.\d+)*)[.)]\s+(?=\S)")  # "F. ", "II) ", "i) ", "2.1. "


def heading_lead(heading: str) -> str:
    """A section's name as the line that introduces what is quoted from it: "Quels clubs ?" →
    "Quels clubs:" (never "Quels clubs ?:", nor "…domain.:"), "B. Avis" → "Avis:" (the section's number or letter
    says where it sits in its page, and "B." alone reads as a sentence); empty for no name."""
    heading = _ENUMERATOR.sub("", (heading or "").strip()).rstrip(" :?!")
    heading = heading[:-1] if heading.endswith(".") and not heading.endswith("..") else heading  # "…domain.:"
    return f"{heading}:" if heading else ""


def lead_in(unit: Unit, heading: str, siblings: Sequence[Unit] = (), quoted: Collection[str] = ()) -> str:
    """The line a list or item is shown under: its introducing sentence, else "Section name:".
    An introducing sentence that points back ("This feature is useful when you want to:", "Cette
    durée est calculée…:") comes with the sentence before it, else under the section's name."""
    if not unit.lead:
        return heading_lead(heading)
    if not opens_on_pronoun(unit.lead):
        return unit.lead
    introducing = next((u for u in siblings if u.kind == "sentence" and u.text == unit.lead), None)
    before = introducing.previous if introducing is not None and introducing.previous not in quoted else ""
    if not before or opens_on_pronoun(before):
        before = heading_lead(heading)
    if not before:
        return unit.lead
    return f"{before} {unit.lead[:1].lower() + unit.lead[1:]}" if before.endswith(":") else f"{before} {unit.lead}"


def _with_period(text: str) -> str:
    return text if re.search(r"[.!?…:]$", text) else f"{text}."


def step_number(unit: Unit, siblings: list[Unit]) -> int:
    """The item's number in its list (1-based)."""
    items = [u for u in siblings if u.kind == "item" and u.block == unit.block]
    return next((i for i, u in enumerate(items, 1) if u is unit or u.text == unit.text), 1)


def render_item(unit: Unit, siblings: list[Unit], heading: str, quoted: Collection[str] = ()) -> str:
    """One list item as an answer part: under its lead-in, a step with its number."""
    text = _with_period(unit.text)
    lead = lead_in(unit, heading, siblings, quoted)
    if not lead:
        return text
    if unit.marker[:1].isdigit():
        marker = unit.marker  # the source's own number
    elif unit.numbered and not unit.marker.startswith(" "):
        marker = f"{step_number(unit, siblings)}."
    else:
        marker = "-"
    return f"{lead}\n{marker} {text}"


def _list_of(block: int, siblings: list[Unit]) -> Unit | None:
    return next((u for u in siblings if u.kind == "list" and u.block == block), None)


def _announces_more(c: Candidate) -> bool:
    """Whether a sentence ending with ":" leads into more than it says: a block or a list after it,
    or the end of its passage (the block may open the next one). Followed by a sentence, what it
    announced was a picture the reader dropped ("…select Realm Settings → Keys and get your
    certificate:" over a screenshot): it is a whole statement. So it is when it ends its passage and
    the next one opens on no block (`pictured`, set by the composer)."""
    if c.pictured:
        return False
    following = c.siblings[c.order + 1] if c.order + 1 < len(c.siblings) else None
    return following is None or following.kind != "sentence" or not ends_a_sentence(following.text) \
        or is_pointer(following)  # a button's label ("Start your free trial") or a link is what it announced


def code_under_caption(c: Candidate) -> tuple[str, int, int] | None:
    """Where the code block stands (source, chunk, position) that sentence `c`, ending on ":",
    introduces over a tab's caption ("…specify `NODE_EXTRA_CA_CERTS`:" "Bash" [code]); None when
    no caption parts them."""
    if c.unit.kind != "sentence" or not c.unit.text.endswith(":") or not captions_code(c.siblings, c.order + 1):
        return None
    return c.hit.source, c.hit.chunk_index, c.order + 2


def _introduced_block(unit: Unit, siblings: list[Unit]) -> int | None:
    """The block (list) a sentence ending with ":" introduces in its passage, if any."""
    if unit.kind != "sentence" or not unit.text.endswith(":"):
        return None
    return next((u.block for u in siblings if u.kind in ("item", "list") and u.lead == unit.text), None)


def _enumeration(whole: Unit | None, items: list[str]) -> bool:
    """A short list of short items under a lead-in ("three decisions:"): its items are quoted together."""
    return (whole is not None and bool(whole.lead) and len(items) <= MAX_ITEMS
            and all(len(t.split()) <= SHORT_ITEM_WORDS for t in items))


def _procedure(whole: Unit | None, steps: int) -> bool:
    """A short numbered list of steps: one step alone drops the steps that lead to it (or follow
    from it), so a step quoted for any question stands for the whole procedure."""
    return whole is not None and whole.numbered and 2 <= steps <= MAX_ITEMS


def _nested(item: Unit) -> bool:
    return item.marker.startswith((" ", "\t"))


def _first_steps(items: list[Unit], limit: int) -> list[Unit]:
    """The list's items up to its `limit`-th step, each step with its sub-items (a step's
    options are part of it: counting them cut a five-step procedure to its steps 1 and 5)."""
    out: list[Unit] = []
    steps = 0
    for item in items:
        if not _nested(item):
            steps += 1
            if steps > limit:
                break
        out.append(item)
    return out


def gather_lists(chosen: list[Any]) -> list[Any]:
    """The answer's candidates with each list shown once (see the module doc); order kept."""
    groups: dict[tuple[str, int, int], list[int]] = {}
    drop: set[int] = set()
    leads = {(c.hit.source, c.hit.chunk_index, c.unit.lead) for c in chosen if c.unit.kind == "code" and c.unit.lead}
    rows_led = {(c.hit.source, c.hit.chunk_index, c.unit.lead) for c in chosen if c.unit.kind == "row" and c.unit.lead}
    codes = {(c.hit.source, c.hit.chunk_index, c.order) for c in chosen if c.unit.kind == "code"}
    for i, c in enumerate(chosen):
        if c.unit.kind == "sentence" and (c.hit.source, c.hit.chunk_index, c.unit.text) in leads:
            drop.add(i)  # the code block it introduces is quoted under it already (a row is shown without its lead-in)
            continue
        unit = c.unit
        block: int | None = unit.block if unit.kind in ("item", "list") else _introduced_block(unit, c.siblings)
        if block is None:
            if unit.kind == "sentence" and unit.text.endswith(":") and len(chosen) > 1 \
                    and (c.hit.source, c.hit.chunk_index, unit.text) not in rows_led and _announces_more(c) \
                    and code_under_caption(c) not in codes:
                drop.add(i)  # a lead-in without its list (a table's rows quoted after it are its list)
            continue
        groups.setdefault((c.hit.source, c.hit.chunk_index, block), []).append(i)
    replaced: dict[int, Any] = {}
    for (_, _, block), members in groups.items():
        units = [chosen[i].unit for i in members]
        items = [u for u in units if u.kind == "item"]
        first = chosen[members[0]]
        whole = _list_of(block, first.siblings)
        listed = [u for u in first.siblings if u.kind == "item" and u.block == block]
        shown = [u.text for u in listed]  # as the composer reads them
        steps = sum(not _nested(u) for u in listed)
        if (not any(u.kind in ("list", "sentence") for u in units) and len(items) < 2
                and not _enumeration(whole, shown) and not _procedure(whole, steps)):
            continue  # one item: shown with its lead-in by `render_item`
        marks = {u.text: u.marker for u in listed}
        if whole is None:  # a one-item list
            texts, numbered, lead = [u.text for u in items], bool(items and items[0].numbered), ""
        elif steps <= MAX_ITEMS or len(items) < 2:
            texts, numbered, lead = [u.text for u in _first_steps(listed, MAX_ITEMS)], whole.numbered, whole.lead
        else:
            wanted = {u.text for u in items}
            texts, numbered, lead = [t for t in shown if t in wanted], whole.numbered, whole.lead
        if not texts:
            continue
        markers = [marks.get(t, "") for t in texts]
        if not all(markers) or any(m.startswith((" ", "\t")) for m in markers[:1]):
            markers = []  # no source numbers to keep: numbered in the order they are shown
        merged = Unit("list", render_list(texts, numbered, markers), whole.position if whole else first.unit.position,
                      block, lead=lead, numbered=numbered, items=texts)
        changes: dict[str, Any] = {"unit": merged}
        if hasattr(first, "deciding"):
            changes["deciding"] = any(chosen[i].deciding for i in members)
        replaced[members[0]] = dataclasses.replace(first, **changes)
        drop.update(members[1:])
    out = [replaced.get(i, c) for i, c in enumerate(chosen) if i not in drop]
    return out or chosen


def _lists_by_block(candidates: list[Any], numbered: bool = False) -> dict[tuple[str, int, int], int]:
    """Each whole-list candidate's index by (source, chunk, block): the list its items belong to."""
    return {(c.hit.source, c.hit.chunk_index, c.unit.block): i for i, c in enumerate(candidates)
            if c.unit.kind == "list" and (c.unit.numbered or not numbered)}


def whole_steps(chosen: list[int], candidates: list[Any]) -> list[int]:
    """For a how-to question: a numbered step chosen stands for its whole list (candidate indexes
    in, candidate indexes out; never a middle step alone)."""
    lists = _lists_by_block(candidates, numbered=True)
    out: list[int] = []
    for i in chosen:
        c = candidates[i]
        if c.unit.kind == "item" and c.unit.numbered:
            i = lists.get((c.hit.source, c.hit.chunk_index, c.unit.block), i)
        if i not in out:
            out.append(i)
    return out


def whole_when_every_item_fits(chosen: list[int], candidates: list[Any], fits: Callable[[int], bool]) -> list[int]:
    """A list item chosen stands for its whole list when every item of that list `fits` (scores
    as well as what is kept): two conditions listed under "In order for X to be eligible:" are
    both the answer, and the budget of units had cut the second (candidate indexes in and out)."""
    lists = _lists_by_block(candidates)
    items: dict[tuple[str, int, int], list[int]] = {}
    for i, c in enumerate(candidates):
        if c.unit.kind == "item":
            items.setdefault((c.hit.source, c.hit.chunk_index, c.unit.block), []).append(i)
    out: list[int] = []
    for i in chosen:
        c = candidates[i]
        key = (c.hit.source, c.hit.chunk_index, c.unit.block)
        if c.unit.kind == "item" and key in lists:
            listed = sum(u.kind == "item" and u.block == c.unit.block for u in c.siblings)
            members = items.get(key, [])
            if len(members) == listed >= 2 and all(fits(j) for j in members):
                i = lists[key]
        if i not in out:
            out.append(i)
    return out
