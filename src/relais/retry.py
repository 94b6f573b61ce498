"""One retry policy for model and network calls (and a SQLite file's lock): tenacity, exponential backoff.

Tests pass `multiplier=0` (or `wait_min=0`) so retries run with no waits.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Callable

import httpx
from pydantic import ValidationError
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from relais.settings import get_settings


class ModelOutputError(ValueError):
    """The model answered, but not in the shape we asked for (malformed structured output)."""


def _status_code(exc: BaseException) -> int | None:
    for attr in ("status_code", "http_status", "status"):
        value = getattr(exc, attr, None)
        if isinstance(value, int):
            return value
    response = getattr(exc, "response", None)
    code = getattr(response, "status_code", None)
    return code if isinstance(code, int) else None


def is_transient(exc: BaseException) -> bool:
    """Worth retrying: timeouts, connection errors, 429 and 5xx, malformed structured output."""
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError, ConnectionError, httpx.TransportError)):
        return True
    if isinstance(exc, (ValidationError, ModelOutputError)):
        return True
    code = _status_code(exc)
    if code is not None:
        return code == 429 or code >= 500
    name = type(exc).__name__.lower()
    return any(word in name for word in ("ratelimit", "timeout", "serviceunavailable", "apiconnection"))


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff: `multiplier * 2**n` seconds clamped to [wait_min, wait_max]."""

    max_attempts: int = 3
    multiplier: float = 2.0
    wait_min: float = 4.0
    wait_max: float = 60.0
    retry_on: Callable[[BaseException], bool] = is_transient

    def _kwargs(self, on_retry: Callable[[RetryCallState], None] | None) -> dict[str, Any]:
        kwargs: dict[str, Any] = dict(
            stop=stop_after_attempt(max(1, self.max_attempts)),
            wait=wait_exponential(multiplier=self.multiplier, min=self.wait_min, max=self.wait_max),
            retry=retry_if_exception(self.retry_on),
            reraise=True,
        )
        if on_retry is not None:
            kwargs["before_sleep"] = on_retry
        return kwargs

    def asynchronous(self, on_retry: Callable[[RetryCallState], None] | None = None) -> AsyncRetrying:
        """`async for attempt in policy.asynchronous(): with attempt: ...`"""
        return AsyncRetrying(**self._kwargs(on_retry))

    def synchronous(self, on_retry: Callable[[RetryCallState], None] | None = None) -> Retrying:
        return Retrying(**self._kwargs(on_retry))

    async def call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Await `fn(*args, **kwargs)` under this policy; the last error is re-raised."""
        async for attempt in self.asynchronous():
            with attempt:
                return await fn(*args, **kwargs)
        raise AssertionError("unreachable")  # pragma: no cover

    @classmethod
    def for_model_calls(cls, settings: Any = None) -> "RetryPolicy":
        """A person is waiting: short waits (1, 2, 4 s…), `LLM_MAX_RETRIES` attempts in all.

        This is the whole budget of a model call: `relais.models.chat_model` turns the provider
        client's own retries off, so N configured attempts are N requests at most.
        """
        if settings is None:
            settings = get_settings()
        return cls(max_attempts=settings.llm_max_retries, multiplier=1, wait_min=1, wait_max=8)

    @classmethod
    def no_wait(cls, max_attempts: int = 3) -> "RetryPolicy":
        return cls(max_attempts=max_attempts, multiplier=0, wait_min=0, wait_max=0)
