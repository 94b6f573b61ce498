"""The handoff receipt: a content-free record of the six boundaries of one handoff.

Why a schema and not a log line: the classifier must judge evidence, not prose. The model
parses any receipt written with the issue's exact field names (unknown fields are refused, so
nothing can ride along beside the schema); blank strings count as missing, naive timestamps
are read as UTC. Whether the values are only ids/keys is checked by `content_problems` (used by
the recorder before anything is stored), not here: the classifier must still judge a receipt
that a careless producer wrote.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer, field_validator

RECEIPT_VERSION = 1
FinalState = Literal["in_progress", "complete", "waiting"]


def as_utc(value: datetime) -> datetime:
    """Naive timestamps are taken as UTC so comparisons with `now` never raise."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def iso_utc(value: datetime) -> str:
    """`2026-11-29T10:00:00Z`: the one timestamp spelling written to disk."""
    return as_utc(value).isoformat().replace("+00:00", "Z")


def _blank_to_none(value: Any) -> Any:
    return None if isinstance(value, str) and not value.strip() else value


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    @field_validator("*", mode="before")
    @classmethod
    def _blank(cls, value: Any) -> Any:
        return _blank_to_none(value)


class DestinationStart(_Part):
    """Evidence that the intended node was admitted and began work (not just that state changed)."""

    node: str
    started_at: datetime
    attempt: int = Field(1, ge=1)

    @field_validator("started_at")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        return as_utc(value)

    @field_serializer("started_at")
    def _ser(self, value: datetime) -> str:
        return iso_utc(value)


class ResultCheck(_Part):
    """A task-specific verifier's outcome: its name and pass/fail, never the text it read."""

    verifier: str
    passed: bool
    checked_at: datetime | None = None

    @field_validator("checked_at")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        return None if value is None else as_utc(value)

    @field_serializer("checked_at")
    def _ser(self, value: datetime | None) -> str | None:
        return None if value is None else iso_utc(value)


class Wait(_Part):
    """A pause for a person. Every field may be missing: judging that is the classifier's job."""

    owner: str | None = None
    reason: str | None = None
    deadline_utc: datetime | None = None
    resume_token_id: str | None = None

    @field_validator("deadline_utc")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        return None if value is None else as_utc(value)

    @field_serializer("deadline_utc")
    def _ser(self, value: datetime | None) -> str | None:
        return None if value is None else iso_utc(value)


class Receipt(_Part):
    """One handoff's evidence, field names exactly as in issue 7."""

    receipt_version: int = RECEIPT_VERSION
    operation_id: str
    route_contract: str | None = None
    route_rule: str | None = None
    """The rule that chose the recipient, as the router declared it (e.g. `conflict_rule`)."""
    sender: str | None = None
    recipient: str | None = None
    declared_routes: list[str] = Field(default_factory=list)
    goto: str | None = None
    control_before: str | None = None
    control_after: str | None = None
    tool_call_id: str | None = None
    tool_message_call_id: str | None = None
    required_context_keys: list[str] = Field(default_factory=list)
    context_keys_present: list[str] = Field(default_factory=list)
    destination_start: DestinationStart | None = None
    final_state: FinalState
    result: ResultCheck | None = None
    wait: Wait | None = None

    @field_validator(
        "declared_routes", "required_context_keys", "context_keys_present", mode="before"
    )
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return [] if value is None else value

    @property
    def attempt(self) -> int:
        """The retry attempt this receipt describes (0 when the destination never started)."""
        return self.destination_start.attempt if self.destination_start else 0

    def to_json(self) -> str:
        """Compact JSON with `Z` timestamps, the on-disk form."""
        return self.model_dump_json()

    @classmethod
    def from_json(cls, text: str | bytes) -> Receipt:
        return cls.model_validate_json(text)


# --- content scanning -------------------------------------------------------------------------

# An id or key: no whitespace, bounded length. Message text nearly always has spaces.
_TOKEN = re.compile(r"^[\w.:@/+=#~,\-]{1,256}$")
_ABS_PATH = re.compile(r"^(/|~/|[A-Za-z]:[\\/]|\\\\)")
_TIMESTAMP_FIELDS = {"started_at", "checked_at", "deadline_utc"}


def _strings(value: Any, path: str = "") -> Iterable[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, f"{path}[{index}]")


def _leaks(secret: str, text: str) -> bool:
    """A secret leaks if it is the value, a delimited part of it, or (when long) any substring.

    Short secrets (a 4-letter demo password) are only matched as whole parts so that an opaque
    hex id never trips on them by chance.
    """
    if secret not in text:
        return False
    if len(secret) >= 12 or not secret.isalnum():
        return True
    return secret == text or secret in re.split(r"[^0-9A-Za-z]+", text)


def content_problems(receipt: Receipt, secrets: Iterable[str] = ()) -> list[str]:
    """Why this receipt is not content-free: free text, absolute paths or secrets (empty = clean).

    Each string value must look like an id, key name or timestamp; the problem strings name the
    field only, never echo the value (it may be the very secret we refuse to store).
    """
    problems: list[str] = []
    secret_list = [s for s in secrets if s]
    for path, text in _strings(receipt.model_dump(mode="json")):
        leaf = path.rsplit(".", 1)[-1]
        if leaf in _TIMESTAMP_FIELDS:
            continue
        if any(_leaks(secret, text) for secret in secret_list):
            problems.append(f"{path}: contains a configured secret")
        elif _ABS_PATH.match(text):
            problems.append(f"{path}: looks like an absolute path")
        elif not _TOKEN.match(text):
            problems.append(f"{path}: not an id or key name (free text is not allowed in receipts)")
    return problems


def assert_no_content(receipt: Receipt | str, forbidden: Iterable[str]) -> None:
    """Raise AssertionError if any forbidden fragment (message text, path, secret) is in the JSON.

    Meant for tests: pass the prompts, replies, tool arguments and secrets the run handled.
    Matching is case-insensitive on the serialised receipt, so nothing escapes via nesting.
    Pass whole phrases: a single common word may legitimately occur in a verifier name.
    """
    text = receipt if isinstance(receipt, str) else receipt.to_json()
    haystack = text.casefold()
    # JSON escapes non-ASCII; compare on the decoded form too.
    try:
        haystack += "\n" + json.dumps(json.loads(text), ensure_ascii=False).casefold()
    except ValueError:
        pass
    leaked = [f for f in forbidden if f and f.casefold() in haystack]
    if leaked:
        raise AssertionError(f"receipt contains forbidden content: {leaked!r}")
