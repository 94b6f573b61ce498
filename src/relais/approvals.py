"""LangChain's standard tool approvals (`HumanInTheLoopMiddleware`) read and answered.

An interrupt value `{"action_requests": [{name, args, description}], "review_configs":
[{action_name, allowed_decisions}]}` asks a person to review tool calls before they run; the
answer is `{"decisions": [...]}`, one per action in order: `{"type": "approve"}`,
`{"type": "edit", "edited_action": {"name", "args"}}`, `{"type": "reject", "message"?}`.

One reply grammar for typed replies and for buttons (a button sends the same words), EN/FR:
`yes` / `approve` / `oui` …, `no` / `reject` / `non` [`: reason`], `edit: day=tuesday, time=12:15`;
several actions: one part each, separated by `;` (a single part answers all of them). Every reply
is validated against the review configs before anything is sent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

APPROVE, EDIT, REJECT = "approve", "edit", "reject"
APPROVAL_KIND = "approval"  # the `InterruptEvent.kind` of such a request, whichever side read it
_WORDS = {
    APPROVE: ("yes", "y", "ok", "okay", "approve", "approved", "confirm", "go", "oui", "d'accord", "daccord",
              "valider", "valide", "approuver", "approuve", "confirmer", "confirme"),
    REJECT: ("no", "n", "reject", "rejected", "refuse", "deny", "cancel", "non", "refuser", "rejeter",
             "rejette", "annuler"),
    EDIT: ("edit", "change", "modify", "modifier", "modifie", "changer", "change"),
}
_MESSAGES = {
    "empty": {"en": "Say approve, reject or edit.", "fr": "Répondez approuver, rejeter ou modifier."},
    "unknown": {"en": "I did not understand {reply!r}: say approve, reject (with an optional reason after “:”) "
                "or edit: name=value.",
                "fr": "Je n'ai pas compris « {reply} » : répondez approuver, rejeter (avec une raison après « : » "
                "si vous voulez) ou modifier : nom=valeur."},
    "count": {"en": "There are {n} actions: give one answer for all, or one per action separated by “;”.",
              "fr": "Il y a {n} actions : une réponse pour toutes, ou une par action séparées par « ; »."},
    "not_allowed": {"en": "“{decision}” is not allowed for {name}: allowed are {allowed}.",
                    "fr": "« {decision} » n'est pas permis pour {name} : permis : {allowed}."},
    "edit_empty": {"en": "Say what to change, e.g. edit: {example}.",
                   "fr": "Dites quoi changer, par exemple modifier : {example}."},
    "edit_key": {"en": "{name} has no argument {key!r}; its arguments: {keys}.",
                 "fr": "{name} n'a pas d'argument « {key} » ; ses arguments : {keys}."},
    "edit_type": {"en": "{key} must be {kind}, not {value!r}.", "fr": "{key} doit être {kind}, pas « {value} »."},
}


class ReplyError(ValueError):
    """A reply that cannot be sent as decisions; `str(error)` is the person's explanation."""


@dataclass(frozen=True)
class ActionReview:
    """One tool call to review: what it is, with which arguments, and what the person may decide."""

    name: str
    args: dict[str, Any]
    description: str
    allowed: tuple[str, ...]


def approval_request(value: Any) -> list[ActionReview] | None:
    """The actions of a HITL middleware request, or None when `value` is something else."""
    if not isinstance(value, dict) or not isinstance(value.get("action_requests"), list):
        return None
    configs = {c.get("action_name"): c for c in value.get("review_configs") or [] if isinstance(c, dict)}
    actions = []
    for request in value["action_requests"]:
        if not isinstance(request, dict) or not isinstance(request.get("name"), str):
            return None
        allowed = configs.get(request["name"], {}).get("allowed_decisions") or [APPROVE, REJECT]
        actions.append(ActionReview(
            name=request["name"],
            args=dict(request.get("args") or {}),
            description=str(request.get("description") or ""),
            allowed=tuple(d for d in allowed if d in (APPROVE, EDIT, REJECT)),
        ))
    return actions or None


def _say(message: str, language: str, **params: Any) -> str:
    return _MESSAGES[message]["fr" if language == "fr" else "en"].format(**params)


def _kind_of(reply: str) -> tuple[str | None, str]:
    """The decision a reply part names, and what follows it (reason or edits)."""
    head, sep, rest = reply.partition(":")
    words = head.strip().lower().split()
    if not words:
        return None, ""
    first = words[0].strip(".!,")
    for kind, vocabulary in _WORDS.items():
        if first in vocabulary:
            tail = rest if sep else " ".join(head.split()[1:])
            return kind, tail.strip()
    return None, ""


def _coerce(key: str, raw: str, original: Any, language: str) -> Any:
    value = raw.strip().strip("\"'")
    if isinstance(original, bool):
        lowered = value.lower()
        if lowered in ("true", "yes", "oui", "1"):
            return True
        if lowered in ("false", "no", "non", "0"):
            return False
        raise ReplyError(_say("edit_type", language, key=key, kind="true/false", value=value))
    if isinstance(original, int):
        try:
            return int(value.lstrip("#"))
        except ValueError:
            raise ReplyError(_say("edit_type", language, key=key, kind="a whole number", value=value)) from None
    if isinstance(original, float):
        try:
            return float(value.replace(",", "."))
        except ValueError:
            raise ReplyError(_say("edit_type", language, key=key, kind="a number", value=value)) from None
    return value


def _edited_args(action: ActionReview, text: str, language: str) -> dict[str, Any]:
    example = ", ".join(f"{k}={v}" for k, v in list(action.args.items())[:2]) or "name=value"
    pairs = [p for p in re.split(r",(?=[^,=]+=)", text) if p.strip()]
    if not pairs:
        raise ReplyError(_say("edit_empty", language, example=example))
    args = dict(action.args)
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        key = key.strip()
        if not sep or key not in action.args:
            raise ReplyError(_say("edit_key", language, name=action.name, key=key or pair.strip(),
                                  keys=", ".join(action.args) or "none"))
        args[key] = _coerce(key, raw, action.args[key], language)
    return args


def _decision(action: ActionReview, part: str, language: str) -> dict[str, Any]:
    kind, rest = _kind_of(part)
    if kind is None:
        raise ReplyError(_say("unknown", language, reply=part.strip()[:80]))
    if kind not in action.allowed:
        raise ReplyError(_say("not_allowed", language, decision=kind, name=action.name, allowed=", ".join(action.allowed)))
    if kind == APPROVE:
        return {"type": APPROVE}
    if kind == REJECT:
        return {"type": REJECT, "message": rest} if rest else {"type": REJECT}
    return {"type": EDIT, "edited_action": {"name": action.name, "args": _edited_args(action, rest, language)}}


def decisions_for(reply: str, actions: list[ActionReview], language: str = "en") -> dict[str, Any]:
    """The middleware's resume value for a reply, or `ReplyError` saying what to fix."""
    parts = [p for p in re.split(r"[;\n]", reply or "") if p.strip()]
    if not parts:
        raise ReplyError(_say("empty", language))
    if len(parts) == 1:
        parts = parts * len(actions)
    if len(parts) != len(actions):
        raise ReplyError(_say("count", language, n=len(actions)))
    return {"decisions": [_decision(a, p, language) for a, p in zip(actions, parts)]}


def is_decision_reply(reply: str) -> bool:
    """The reply starts with a decision word (else it may be new input for the agent)."""
    return _kind_of(reply.split(";")[0])[0] is not None


__all__ = ["APPROVAL_KIND", "APPROVE", "EDIT", "REJECT", "ActionReview", "ReplyError", "approval_request", "decisions_for",
           "is_decision_reply"]
