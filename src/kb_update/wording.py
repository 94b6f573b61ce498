"""What a knowledge update says in a chat, in plain English and French, for the person approving.

No engine vocabulary here (units, briefs, gates, splitter, judge, worker calls) and no server
paths: what will change, where, and what needs a decision. Changes are shown as words struck
through and replaced (`~~$10/month~~ **$12/month**`), which wraps like any sentence.
Typed replies to a pending question are read in `kb_update.replies`.
"""

from __future__ import annotations

import difflib
import re
from decimal import Decimal
from typing import Any

from kb_update.markdown import blocks, clause_spans
from kb_update.prices import find_money, rewrite_mention_text

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "how_to": ("Tell me the change in one sentence, for example: *The base plan moves from $10/month to "
                   "$12/month* (or *Le forfait Base passe de 10 $/mois à 12 $/mois*)."),
        "start": "{summary} I am looking through the help center…",
        "found": ("Found {articles} article(s) to update. {ignored} other mention(s) of the amount are something "
                  "else (a credit, a gift card…) and stay as they are."),
        "found_none": "No article states this price: there is nothing to update.",
        "log": "Work log",
        "log_pass": "✓ {path}: checked",
        "log_retry": "↻ {path}: try {n} needed a fix ({why}); tried again",
        "log_person": "⏸ {path}: needs your decision ({why})",
        "log_stuck": "⏸ {path}: could not be finished automatically ({why})",
        "lesson": ("**{paths} each needed the same correction:**\n\n> {text}\n\nShall I make it from the start in "
                   "the other articles, and in later updates too?"),
        "lesson_yes": "Yes, apply it",
        "lesson_no": "No",
        "decision_head": "**Your decision {n} of {total}** — {what}",
        "where": "It appears in {where}.",
        "computed_is": "With the new price it would be **{computed}**.",
        "computed_follows": "Following the {value} you typed for {current}, it would be **{computed}**.",
        "use": "Use {value}",
        "keep": "Keep {value}",
        "type": "Type another value",
        "all": "Use the new values for all {n} left",
        "type_hint": "Type the amount you want instead of {current} (for example *{example}*).",
        "article_what": "**{path}** could not be updated automatically: {why}",
        "article_use": "Publish the proposed text",
        "article_keep": "Leave it as it is",
        "publish_q": "**Publish these {n} article(s)?** Nothing is written until you approve.",
        "publish": "Publish",
        "dont": "Don't publish",
        "review_title": "## What will change — {summary}",
        "review_counts": "{n} article(s) will be updated.",
        "review_decided": "### Your decisions",
        "review_left": "### Left as they are",
        "review_kept": "{current} in {where}: kept as it is on your decision, so it no longer matches the new price.",
        "review_not_pub": "{path} is not published: {why}",
        "review_ignored": "### Not the price, left unchanged",
        "review_broken_title": "### To check before publishing",
        "review_broken": ("{paths}: {current} becomes {typed} as you typed, but the article says “{source}”, which "
                          "would make it {expected}. Reword that sentence, or use {expected}."),
        "broken_final": "To check: {items}.",
        "progress": "Publishing",
        "progress_written": "✓ {path} written",
        "progress_index": "Updating the search index for {n} article(s)…",
        "progress_indexed": "✓ Search index updated",
        "progress_index_failed": "⚠️ Search index not updated",
        "waiting": "An update is waiting for your answer (nothing has been written yet):",
        "busy": "That update is still waiting for your answer: reply to the question above first, or say *don't publish*.",
        "published": "**Published.** {n} article(s) updated: {paths}.",
        "reindexed": "The search index is up to date.",
        "reindex_failed": "The articles are written, but the search index could not be refreshed: {error}",
        "conflicts": "Changed by someone else meanwhile, so not overwritten: {paths}.",
        "rejected": "**Not published.** Nothing was written.",
        "nothing": "**Nothing to publish.** No article needs to change.",
        "stopped": "The update stopped: {error}. Nothing was published.",
        "kept_final": "Still saying the old amount, on your decision: {items}.",
        "answered": "✓ {answer}",
    },
    "fr": {
        "how_to": ("Décrivez le changement en une phrase, par exemple : *Le forfait Base passe de 10 $/mois à "
                   "12 $/mois* (ou *The base plan moves from $10/month to $12/month*)."),
        "start": "{summary} Je parcours le centre d'aide…",
        "found": ("{articles} article(s) à mettre à jour. {ignored} autre(s) mention(s) du montant désignent autre "
                  "chose (un crédit, une carte cadeau…) et restent telles quelles."),
        "found_none": "Aucun article n'indique ce prix : rien à mettre à jour.",
        "log": "Journal de travail",
        "log_pass": "✓ {path} : vérifié",
        "log_retry": "↻ {path} : l'essai {n} demandait une correction ({why}) ; nouvel essai",
        "log_person": "⏸ {path} : demande votre décision ({why})",
        "log_stuck": "⏸ {path} : n'a pas pu être terminé automatiquement ({why})",
        "lesson": ("**{paths} ont chacun demandé la même correction :**\n\n> {text}\n\nJe la fais d'emblée dans "
                   "les autres articles, et lors des prochaines mises à jour ?"),
        "lesson_yes": "Oui, l'appliquer",
        "lesson_no": "Non",
        "decision_head": "**Votre décision {n} sur {total}** — {what}",
        "where": "Présent dans {where}.",
        "computed_is": "Avec le nouveau prix, ce serait **{computed}**.",
        "computed_follows": "D'après les {value} que vous avez saisis pour {current}, ce serait **{computed}**.",
        "use": "Utiliser {value}",
        "keep": "Garder {value}",
        "type": "Saisir une autre valeur",
        "all": "Nouvelles valeurs pour les {n} restantes",
        "type_hint": "Tapez le montant voulu à la place de {current} (par exemple *{example}*).",
        "article_what": "**{path}** n'a pas pu être mis à jour automatiquement : {why}",
        "article_use": "Publier le texte proposé",
        "article_keep": "Le laisser tel quel",
        "publish_q": "**Publier ces {n} article(s) ?** Rien n'est écrit avant votre accord.",
        "publish": "Publier",
        "dont": "Ne pas publier",
        "review_title": "## Ce qui va changer — {summary}",
        "review_counts": "{n} article(s) seront mis à jour.",
        "review_decided": "### Vos décisions",
        "review_left": "### Laissé tel quel",
        "review_kept": "{current} dans {where} : gardé sur votre décision, ne correspond donc plus au nouveau prix.",
        "review_not_pub": "{path} n'est pas publié : {why}",
        "review_ignored": "### Pas le prix, laissé tel quel",
        "review_broken_title": "### À vérifier avant de publier",
        "review_broken": ("{paths} : {current} devient {typed} comme vous l'avez saisi, mais l'article dit « {source} », "
                          "ce qui donnerait {expected}. Reformulez cette phrase, ou utilisez {expected}."),
        "broken_final": "À vérifier : {items}.",
        "progress": "Publication",
        "progress_written": "✓ {path} écrit",
        "progress_index": "Mise à jour de l'index de recherche pour {n} article(s)…",
        "progress_indexed": "✓ Index de recherche à jour",
        "progress_index_failed": "⚠️ Index de recherche non mis à jour",
        "waiting": "Une mise à jour attend votre réponse (rien n'a encore été écrit) :",
        "busy": ("Cette mise à jour attend encore votre réponse : répondez d'abord à la question ci-dessus, ou dites "
                 "*ne pas publier*."),
        "published": "**Publié.** {n} article(s) mis à jour : {paths}.",
        "reindexed": "L'index de recherche est à jour.",
        "reindex_failed": "Les articles sont écrits, mais l'index de recherche n'a pas pu être rafraîchi : {error}",
        "conflicts": "Modifié entre-temps par quelqu'un d'autre, donc pas écrasé : {paths}.",
        "rejected": "**Non publié.** Rien n'a été écrit.",
        "nothing": "**Rien à publier.** Aucun article ne doit changer.",
        "stopped": "La mise à jour s'est arrêtée : {error}. Rien n'a été publié.",
        "kept_final": "Indiquent encore l'ancien montant, sur votre décision : {items}.",
        "answered": "✓ {answer}",
    },
}

_WHAT = {
    "en": {
        "old-price": "the old price {current} is still stated",
        "period-total": "{current} is a total of the old price ({factor} × {old})",
        "difference": "{current} is the difference between {other} and the old price {old}",
        "share-of-difference": "{current} is {share} the difference between {other} and the old price {old}",
        "ratio": "{current} is {times} the old price {old}, as the help center says: “{source}”",
    },
    "fr": {
        "old-price": "l'ancien prix {current} est encore indiqué",
        "period-total": "{current} est un total de l'ancien prix ({factor} × {old})",
        "difference": "{current} est l'écart entre {other} et l'ancien prix {old}",
        "share-of-difference": "{current} est {share} l'écart entre {other} et l'ancien prix {old}",
        "ratio": "{current} vaut {times} l'ancien prix {old}, comme l'indique le centre d'aide : « {source} »",
    },
}
_SHARES = {"en": {"0.5": "half of", "0.3333": "a third of", "0.6667": "two thirds of", "0.25": "a quarter of",
                  "0.75": "three quarters of"},
           "fr": {"0.5": "la moitié de", "0.3333": "le tiers de", "0.6667": "les deux tiers de",
                  "0.25": "le quart de", "0.75": "les trois quarts de"}}
_WHY = {
    "en": {"derived-amount": "a yearly total still used the old price", "difference": "a price difference was off",
           "arithmetic": "a worked example did not add up", "old-price": "the old price was still there",
           "new-price-missing": "the new price was missing", "out-of-scope": "a sentence outside the price changed",
           "structure": "the layout changed", "links": "a link changed", "linked-price": "another plan's price depends on it",
           "worker-error": "the writer failed", "judge": "the final check objected", "other": "a check failed"},
    "fr": {"derived-amount": "un total annuel utilisait encore l'ancien prix", "difference": "un écart de prix était faux",
           "arithmetic": "un calcul d'exemple ne tombait plus juste", "old-price": "l'ancien prix était encore là",
           "new-price-missing": "le nouveau prix manquait", "out-of-scope": "une phrase hors prix avait changé",
           "structure": "la mise en page avait changé", "links": "un lien avait changé",
           "linked-price": "le prix d'un autre forfait en dépend", "worker-error": "la rédaction a échoué",
           "judge": "la vérification finale s'y opposait", "other": "une vérification a échoué"},
}


_LESSON_FR = {
    "derived-amount": "Mettre aussi à jour les totaux calculés à partir du prix : ×12 pour un an, ×3 pour un trimestre",
    "difference": "Mettre aussi à jour les écarts entre ce prix et celui des autres forfaits",
    "arithmetic": "Refaire les calculs d'exemple qui utilisent le prix pour qu'ils tombent juste",
    "old-price": "Remplacer toutes les formes de l'ancien prix, en anglais et en français",
    "new-price-missing": "Écrire le nouveau prix à chaque endroit où figurait l'ancien",
    "out-of-scope": "Ne modifier que les phrases qui parlent du prix",
    "structure": "Garder chaque paragraphe et chaque ligne vide",
    "links": "Garder chaque lien tel quel",
}


def lesson_text(lesson: dict[str, Any], language: str) -> str:
    """The lesson in the reader's language (the offline lessons are known by their tag)."""
    if lang_of(language) != "fr" or lesson.get("tag") not in _LESSON_FR:
        return str(lesson["text"])
    example = re.search(r"\(e\.g\. (.+)\)", lesson["text"])
    return _LESSON_FR[lesson["tag"]] + (f" (p. ex. {example.group(1)})." if example else ".")


def lang_of(language: str | None) -> str:
    return "fr" if (language or "").lower().startswith("fr") else "en"


def t(key: str, language: str, **params: Any) -> str:
    text = TEXTS[lang_of(language)].get(key) or TEXTS["en"][key]
    return text.format(**params) if params else text


def why(tags: list[str], language: str) -> str:
    names = _WHY[lang_of(language)]
    seen = [names.get(tag, names["other"]) for tag in dict.fromkeys(tags)]
    return "; ".join(seen) or names["other"]


def _money(amount: str | None, currency: str = "$") -> str:
    if amount is None:
        return ""
    value = Decimal(amount).quantize(Decimal("0.01"))
    return f"{currency}{int(value) if value == value.to_integral_value() else value}"


def _factor(value: str | None) -> str:
    if value is None:
        return "?"
    number = Decimal(value)
    return str(int(number)) if number == number.to_integral_value() else str(number.normalize())


def _where(item: dict[str, Any], language: str) -> str:
    parts = []
    for mention in item["mentions"]:
        shown = f"`{mention['path']}`"
        if mention["text"] != item["current"]:
            shown += f" ({'as' if lang_of(language) == 'en' else 'sous la forme'} `{mention['text']}`)"
        if shown not in parts:
            parts.append(shown)
    return ", ".join(parts)


def decision_prompt(item: dict[str, Any], index: int, total: int, open_count: int, old: str,
                    language: str) -> tuple[str, list[tuple[str, str]]]:
    """The text and the (label, value) buttons of one item left for a person."""
    lang = lang_of(language)
    if item["kind"] == "article":
        text = t("decision_head", lang, n=index + 1, total=total,
                 what=t("article_what", lang, path=f"`{item['path']}`", why=_reason(item["relation"], lang)))
        choices = ([(t("article_use", lang), "computed")] if item.get("computed") else []) + [
            (t("article_keep", lang), "keep")]
        return text, choices
    currency = old[0] if old and not old[0].isdigit() else "$"
    what = _WHAT[lang][item["kind"]].format(
        current=f"`{item['current']}`", old=old, factor=_factor(item.get("factor")),
        other=_money(item.get("other"), currency),
        share=_share(item.get("factor"), lang),
        source=(item.get("source") or "").strip()[:200],
        times=_SHARES[lang].get(_factor(item.get("factor"))) or f"{_factor(item.get('factor'))} ×")
    follows = item.get("follows")
    computed = (t("computed_follows", lang, value=f"`{follows['value']}`", current=f"`{follows['current']}`",
                  computed=f"`{item['computed']}`") if follows
                else t("computed_is", lang, computed=f"`{item['computed']}`"))
    text = "\n\n".join([
        t("decision_head", lang, n=index + 1, total=total, what=what),
        t("where", lang, where=_where(item, lang)),
        computed,
    ])
    choices = [(t("use", lang, value=item["computed"]), "computed"), (t("keep", lang, value=item["current"]), "keep"),
               (t("type", lang), "type")]
    if open_count > 1:
        choices.append((t("all", lang, n=open_count), "all"))
    return text, choices


def _share(factor: str | None, lang: str) -> str:
    return _SHARES[lang].get(_factor(factor)) or f"{_factor(factor)} ×"


def _reason(escalation: str, language: str) -> str:
    tags = re.findall(r"\[([\w-]+)\]", escalation or "")
    if tags:
        return why(tags, language)
    return why(["other"], language)


# --- the review ---------------------------------------------------------------------------
_TOKEN = re.compile(r"\s+|\(|[^\s(]+?(?=[.,;:!?)]*(?:\s|$))|[.,;:!?)]+")  # words apart from punctuation


def _word_diff(before: str, after: str) -> str:
    """`before` → `after` with removed words ~~struck~~ and added words **bold**."""
    a, b = _TOKEN.findall(before), _TOKEN.findall(after)
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        old, new = "".join(a[i1:i2]), "".join(b[j1:j2])
        if op == "equal":
            out.append(old)
            continue
        if old.strip():
            out.append(f"~~{old.strip()}~~ ")
        if new.strip():
            out.append(f"**{new.strip()}**")
    return "".join(out).strip()


def _row(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def changes(before: str, after: str) -> list[str]:
    """The changed sentences and table rows of an article, each as one readable line."""
    old_blocks, new_blocks = blocks(before), blocks(after)
    if len(old_blocks) != len(new_blocks):
        return [_word_diff(before, after)]
    lines: list[str] = []
    for old, new in zip(old_blocks, new_blocks):
        if old.text == new.text:
            continue
        old_lines, new_lines = old.text.split("\n"), new.text.split("\n")
        if len(old_lines) != len(new_lines):
            lines.append(_word_diff(old.text, new.text))
            continue
        for a, b in zip(old_lines, new_lines):
            if a == b:
                continue
            if a.lstrip().startswith("|"):
                cells = [f"~~{x}~~ **{y}**" for x, y in zip(_row(a), _row(b)) if x != y]
                lines.append(f"{_row(b)[0]}: " + " · ".join(cells))
                continue
            old_s, new_s = [a[s:e] for s, e in clause_spans(a)], [b[s:e] for s, e in clause_spans(b)]
            if len(old_s) != len(new_s):
                lines.append(_word_diff(a, b))
                continue
            lines += [_word_diff(x, y) for x, y in zip(old_s, new_s) if x != y]
    return lines


def review_markdown(review: dict[str, Any], texts: dict[str, tuple[str, str]], summary: str, language: str) -> str:
    """What will change, where, and what was decided: the page a person approves."""
    lang = lang_of(language)
    out = [t("review_title", lang, summary=summary), t("review_counts", lang, n=len(texts))]
    for path, (before, after) in sorted(texts.items()):
        out.append(f"**`{path}`**")
        out.append("\n".join(f"- {line}" for line in changes(before, after)) or "-")
    decided = [i for i in review.get("items", []) if (i.get("decision") or {}).get("choice") in ("computed", "value")]
    if decided:
        out.append(t("review_decided", lang))
        out.append("\n".join(f"- `{i['current'] or i.get('path')}` → "
                             f"`{_decided_value(i)}`" for i in decided))
    left = [t("review_kept", lang, current=f"`{i['current']}`", where=_where(i, lang))
            for i in review.get("kept", []) if i["kind"] != "article"]
    by_path = {u["path"]: u for u in review.get("units", [])}
    left += [t("review_not_pub", lang, path=f"`{p}`", why=_reason(by_path.get(p, {}).get("escalation") or "", lang))
             for p in review.get("left", [])]
    if left:
        out.append(t("review_left", lang))
        out.append("\n".join(f"- {line}" for line in left))
    broken = broken_lines(review, lang)
    if broken:
        out.append(t("review_broken_title", lang))
        out.append("\n".join(f"- {line}" for line in broken))
    if review.get("discarded"):
        out.append(t("review_ignored", lang))
        out.append("\n".join(f"- `{h['path']}`: “{h['context'][:140]}”" for h in review["discarded"]))
    return "\n\n".join(out)


def broken_lines(review: dict[str, Any], language: str) -> list[str]:
    """Typed values whose article still states the relation they no longer follow."""
    return [t("review_broken", language, paths=f"`{b['path']}`", current=f"`{b['current']}`",
              typed=f"`{b['typed']}`", expected=f"`{b['expected']}`", source=b["source"].strip()[:200])
            for b in review.get("broken", [])]


def _decided_value(item: dict[str, Any]) -> str:
    decision = item["decision"]
    if item["kind"] == "article":
        return item.get("path", "")
    if decision["choice"] == "computed":
        return item["computed"]
    found = find_money(item["current"])
    return rewrite_mention_text(found[0], Decimal(decision["value"])) if found else decision["value"]
