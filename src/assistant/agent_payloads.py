"""An agent's interrupt payload, whatever its shape, as an `InterruptEvent` (both protocols).

A LangChain `HumanInTheLoopMiddleware` request → an approval (`kind="approval"`, the request as
payload); LangGraph's `{"value", "id"}` wrapper → its value, under its id; Relais's
`{prompt, choices, kind}` → quick choices; a bare string → a prompt. Anything else is
`MalformedPayload`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from assistant.agent_errors import MalformedPayload
from relais.approvals import APPROVAL_KIND, approval_request
from relais.events import InterruptEvent


def interrupt_from(value: Any) -> InterruptEvent:
    """An interrupt payload (dict, possibly LangGraph's `{"value": {...}}`, or a bare prompt)."""
    if isinstance(value, str) and value.strip():
        return InterruptEvent(prompt=value)
    if not isinstance(value, dict):
        raise MalformedPayload(f"interrupt payload is a {type(value).__name__}")
    actions = approval_request(value)
    if actions is not None:  # LangChain's HumanInTheLoopMiddleware request: an approval card
        interrupt_id = value.get("interrupt_id")
        return InterruptEvent(
            prompt="\n".join(a.description or a.name for a in actions), kind=APPROVAL_KIND,
            payload={k: v for k, v in value.items() if k != "interrupt_id"},
            interrupt_id=str(interrupt_id) if isinstance(interrupt_id, (str, int)) and interrupt_id != "" else None,
        )
    if isinstance(value.get("value"), (dict, str)) and not _first_str(value, "prompt", "question"):
        inner = interrupt_from(value["value"])  # LangGraph's Interrupt shape: {"value", "id"}
        outer_id = value.get("interrupt_id", value.get("id"))
        if inner.interrupt_id is None and isinstance(outer_id, str) and outer_id:
            inner = replace(inner, interrupt_id=outer_id)
        return inner
    prompt = _first_str(value, "prompt", "question", "message")
    if prompt is None:
        raise MalformedPayload("interrupt without a prompt")
    raw_choices = value.get("choices", value.get("options")) or []
    if not isinstance(raw_choices, list):
        raise MalformedPayload("interrupt choices are not a list")
    choices = [c for c in (_choice_label(item) for item in raw_choices) if c]
    kind = value.get("kind")
    interrupt_id = value.get("interrupt_id", value.get("id"))
    return InterruptEvent(
        prompt=prompt,
        choices=choices,
        kind=kind if isinstance(kind, str) and kind else "constraints",
        payload={k: v for k, v in value.items() if k != "interrupt_id"},
        interrupt_id=str(interrupt_id) if isinstance(interrupt_id, (str, int)) and interrupt_id != "" else None,
    )


def _first_str(data: Mapping[str, Any], *keys: str) -> str | None:
    for key in keys:
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _choice_label(item: Any) -> str | None:
    if isinstance(item, str):
        return item
    if isinstance(item, dict):
        return _first_str(item, "label", "value", "text")
    return None




__all__ = ["APPROVAL_KIND", "interrupt_from"]
