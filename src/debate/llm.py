"""One structured model call under the config's retry policy (tenacity, exponential backoff).

Retried: provider errors the kit calls transient (timeouts, connection errors, 429/5xx),
malformed structured output (pydantic `ValidationError`, `ModelOutputError`, LangChain's
`OutputParserException`) and a per-call timeout. After the last try, `DebateStepError` says
which step failed and why; nothing of the failed call has reached state or memory.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from pydantic import BaseModel
from tenacity import RetryCallState

from relais.retry import ModelOutputError, RetryPolicy, is_transient

S = TypeVar("S", bound=BaseModel)


class DebateStepError(RuntimeError):
    """An LLM step failed after its last try; the run stops and can be resumed."""

    def __init__(self, where: str, attempts: int, cause: BaseException) -> None:
        self.where = where
        self.attempts = attempts
        self.cause = cause
        detail = str(cause).strip().splitlines()[0] if str(cause).strip() else ""
        super().__init__(
            f"{where} failed after {attempts} attempt(s): {type(cause).__name__}"
            + (f": {detail[:300]}" if detail else "")
        )


def is_retryable(exc: BaseException) -> bool:
    return is_transient(exc) or isinstance(exc, OutputParserException)


def coerce(schema: type[S], result: Any) -> S:
    """Providers hand back an instance, a dict, or None (no tool call): only an instance passes."""
    if isinstance(result, schema):
        return result
    if isinstance(result, dict) and "parsed" in result and "raw" in result:
        if result.get("parsing_error"):
            raise ModelOutputError(str(result["parsing_error"]))
        result = result["parsed"]
    if isinstance(result, BaseModel):
        result = result.model_dump()
    if isinstance(result, dict):
        return schema.model_validate(result)
    raise ModelOutputError(
        f"expected a {schema.__name__}, the model returned {type(result).__name__}"
    )


@dataclass(frozen=True)
class StructuredCaller:
    """Calls `model.with_structured_output(schema)` with retries, a timeout and a final check."""

    model: BaseChatModel
    policy: RetryPolicy
    timeout_s: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "policy", replace(self.policy, retry_on=is_retryable))

    async def call(
        self,
        schema: type[S],
        messages: Sequence[BaseMessage],
        *,
        where: str,
        check: Callable[[S], None] | None = None,
        on_retry: Callable[[int, BaseException, float], None] | None = None,
    ) -> tuple[S, int]:
        """Returns the validated output and the number of tries it took.

        `check` adds domain rules (raise `ModelOutputError`): they are retried like a
        malformed reply, because they are one.
        """
        runnable = self.model.with_structured_output(schema)
        tries = 0

        def before_sleep(state: RetryCallState) -> None:
            if on_retry is not None and state.outcome is not None:
                exc = state.outcome.exception()
                wait = state.next_action.sleep if state.next_action else 0.0
                on_retry(state.attempt_number, exc, float(wait))  # type: ignore[arg-type]

        try:
            async for attempt in self.policy.asynchronous(before_sleep):
                with attempt:
                    tries = attempt.retry_state.attempt_number
                    pending = runnable.ainvoke(list(messages))
                    raw = await (
                        asyncio.wait_for(pending, self.timeout_s) if self.timeout_s else pending
                    )
                    output = coerce(schema, raw)
                    if check is not None:
                        check(output)
                    return output, tries
        except Exception as exc:
            raise DebateStepError(where, tries, exc) from exc
        raise AssertionError("unreachable")  # pragma: no cover
