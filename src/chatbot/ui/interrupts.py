"""Agent interrupts shown by what they are, for either hand-off protocol.

- LangChain's `HumanInTheLoopMiddleware` request → an approval card: per action its tool name,
  description and arguments (a readable list, not JSON), and only the buttons its review configs
  allow — Approve, Edit, Reject. Buttons send the same words a person may type ("approve",
  "reject"), so clicks and typed replies follow one path (`relais.approvals`); Edit does not
  resume: it asks for the changes as a guided typed reply, checked before anything is sent.
- a plain string → a text prompt (type the reply);
- Relais's coach shape `{prompt, choices, kind}` → its quick choices, as before;
- any other JSON value → shown readably, with a text reply.

The card is a `PendingPrompt`, so everything `chatbot.ui.pending` guarantees holds for it:
buttons back after a reload or restart, one click one resume, stale clicks refused.
"""

from __future__ import annotations

from typing import Any

from chatbot.ui.pending import Choice, PendingPrompt
from relais.approvals import APPROVAL_KIND, APPROVE, EDIT, REJECT, ActionReview, approval_request
from relais.events import InterruptEvent

EDIT_CHOICE = "__edit__"  # a button value that asks for the changes instead of resuming
_TEXTS = {
    "en": {
        "title": "**Approval needed** before the agent acts:",
        "several": "**Approval needed** for {n} actions (one answer for all, or one per action separated by “;”):",
        "buttons": {APPROVE: "Approve", EDIT: "Edit", REJECT: "Reject"},
        "hint": "_Or type it: “yes”, “reject: your reason”{edit}._",
        "hint_edit": ", “edit: {example}”",
        "edit_help": "Type the new values as `name=value`, separated by commas — for example `{example}`. "
        "Arguments: {keys}. I check them before anything is sent.",
        "text_reply": "_Type your reply._",
        "none": "(none)",
    },
    "fr": {
        "title": "**Validation requise** avant que l'agent n'agisse :",
        "several": "**Validation requise** pour {n} actions (une réponse pour toutes, ou une par action séparées "
        "par « ; ») :",
        "buttons": {APPROVE: "Approuver", EDIT: "Modifier", REJECT: "Refuser"},
        "hint": "_Ou tapez : « oui », « refuser : votre raison »{edit}._",
        "hint_edit": ", « modifier : {example} »",
        "edit_help": "Tapez les nouvelles valeurs sous la forme `nom=valeur`, séparées par des virgules — par "
        "exemple `{example}`. Arguments : {keys}. Je les vérifie avant tout envoi.",
        "text_reply": "_Tapez votre réponse._",
        "none": "(aucun)",
    },
}


def _t(language: str) -> dict[str, Any]:
    return _TEXTS["fr" if language == "fr" else "en"]


def _value(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return readable(value, indent=1).strip()
    return str(value)


def readable(value: Any, indent: int = 0) -> str:
    """A JSON value as an indented list of `key: value` lines (Markdown), never raw JSON."""
    pad = "  " * indent
    if isinstance(value, dict):
        return "\n".join(
            f"{pad}- **{k}**:" + ("\n" + readable(v, indent + 1) if isinstance(v, (dict, list)) and v else f" {_value(v)}")
            for k, v in value.items()
        ) or f"{pad}- (empty)"
    if isinstance(value, list):
        return "\n".join(
            f"{pad}-" + ("\n" + readable(v, indent + 1) if isinstance(v, (dict, list)) and v else f" {_value(v)}")
            for v in value
        ) or f"{pad}- (empty)"
    return f"{pad}{value}"


def example_edit(action: ActionReview) -> str:
    return ", ".join(f"{k}={v}" for k, v in list(action.args.items())[:2]) or "name=value"


def approval_card(actions: list[ActionReview], language: str) -> str:
    """The card's Markdown: what would run, with which arguments, and how to answer."""
    t = _t(language)
    lines = [t["title"] if len(actions) == 1 else t["several"].format(n=len(actions)), ""]
    for number, action in enumerate(actions, 1):
        head = f"**{number}. `{action.name}`**" if len(actions) > 1 else f"**`{action.name}`**"
        lines.append(f"{head} — {action.description.strip()}" if action.description.strip() else head)
        lines.append(readable(action.args) if action.args else f"- {t['none']}")
        lines.append("")
    editable = [a for a in actions if EDIT in a.allowed]
    edit = t["hint_edit"].format(example=example_edit(editable[0])) if editable else ""
    lines.append(t["hint"].format(edit=edit))
    return "\n".join(lines)


def approval_choices(actions: list[ActionReview], language: str) -> list[Choice]:
    """Only what every action allows (Edit: when one of them allows it), in a fixed order."""
    labels = _t(language)["buttons"]
    out = []
    for decision in (APPROVE, EDIT, REJECT):
        allowed = [decision in a.allowed for a in actions]
        if all(allowed) or (decision == EDIT and any(allowed)):
            out.append(Choice(labels[decision], EDIT_CHOICE if decision == EDIT else decision))
    return out


def edit_help(event: InterruptEvent, language: str) -> str:
    """What the Edit button says: the arguments and an example of the typed reply."""
    actions = [a for a in approval_request(event.payload) or [] if EDIT in a.allowed]
    if not actions:
        return ""
    keys = ", ".join(f"`{k}` ({v})" for k, v in actions[0].args.items())
    return _t(language)["edit_help"].format(example=example_edit(actions[0]), keys=keys)


def prompt_for(event: InterruptEvent, language: str = "en", author: str = "Agent") -> PendingPrompt:
    """The prompt an interrupt becomes, keyed by its interrupt id (one click, one resume)."""
    actions = approval_request(event.payload) if event.kind == APPROVAL_KIND else None
    if actions:
        return PendingPrompt(event.interrupt_id, approval_card(actions, language), approval_choices(actions, language),
                             language=language, kind=APPROVAL_KIND, author=author)
    if event.kind == "json":
        text = readable(event.payload.get("value")) + "\n\n" + _t(language)["text_reply"]
        return PendingPrompt(event.interrupt_id, text, (), language=language, kind="json", author=author)
    if event.kind == "text":
        return PendingPrompt(event.interrupt_id, event.prompt + "\n\n" + _t(language)["text_reply"], (),
                             language=language, kind="text", author=author)
    return PendingPrompt(event.interrupt_id, event.prompt, list(event.choices), language=language, kind=event.kind,
                         author=author)


__all__ = ["APPROVAL_KIND", "EDIT_CHOICE", "approval_card", "approval_choices", "edit_help", "prompt_for", "readable"]
