"""What can go wrong talking to an external agent, shared by both protocols' clients.

A failure we recognise is an `AgentFailure` whose `code` picks the person's message (`agent.<code>`
in `assistant.i18n`); transport exceptions are classified the same way whichever client met them
(`classify_failure`, `status_code_key`), and `agent_error` logs the technical cause (secrets
redacted) and returns the localised `ErrorEvent` that is safe to show.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import httpx

from assistant.i18n import translate
from relais.events import ErrorEvent, InterruptEvent

logger = logging.getLogger(__name__)


class AgentFailure(Exception):
    """A failure we recognised; `code` picks the user message (`agent.<code>` in i18n)."""

    def __init__(self, code: str, cause: str, **params: object) -> None:
        super().__init__(cause)
        self.code = code
        self.cause = cause
        self.params = params


class MalformedPayload(ValueError):
    """One SSE event whose data we cannot interpret; the event is dropped, the stream goes on."""


@dataclass(frozen=True)
class AgentPending:
    """What the agent says a thread waits on: `supported` is False when it cannot tell (no such
    endpoint, or it failed), `event` is None when nothing is pending."""

    supported: bool
    event: InterruptEvent | None = None


@dataclass
class TurnProgress:
    """What has happened so far in a turn, to tell 'no answer' from 'answer cut short'."""

    events: int = 0


def status_code_key(status: int) -> str:
    return {
        401: "unauthorized",
        403: "unauthorized",
        404: "not_found",
        405: "not_found",
        409: "conflict",
        413: "too_long",
        429: "busy",
    }.get(status, "http_error")


def classify_failure(exc: BaseException, progress: TurnProgress) -> str:
    """The user-message code for a transport or protocol exception."""
    if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)):
        return "unreachable"
    if isinstance(exc, httpx.PoolTimeout):
        return "busy"
    if isinstance(exc, httpx.TimeoutException):
        return "idle_timeout" if progress.events else "timeout"
    if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)):
        return "interrupted"
    if isinstance(exc, (httpx.DecodingError, UnicodeDecodeError)):
        return "bad_response"
    if isinstance(exc, (httpx.InvalidURL, httpx.UnsupportedProtocol)):
        return "not_found"
    return "unexpected"


def agent_error(code: str, language: str, cause: str, *, agent: str, secrets: list[str] | tuple[str, ...] = (),
                exc_info: bool = False, **params: object) -> ErrorEvent:
    """Log the technical cause (secrets redacted), return the person's localised message."""
    for secret in secrets:
        cause = cause.replace(secret, "***")
    logger.warning("external agent %s failed [%s]: %s", agent, code, cause, exc_info=exc_info)
    return ErrorEvent(translate(f"agent.{code}", language, **params), code=code)


__all__ = ["AgentFailure", "AgentPending", "MalformedPayload", "TurnProgress", "agent_error", "classify_failure",
           "status_code_key"]
