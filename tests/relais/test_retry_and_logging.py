"""Retry policy classification and secret scrubbing in logs."""

from __future__ import annotations

import logging

import httpx
import pytest

from relais.logging import REDACTED, configure_logging
from relais.retry import ModelOutputError, RetryPolicy, is_transient


class _StatusError(Exception):
    def __init__(self, status_code: int) -> None:
        super().__init__(f"HTTP {status_code}")
        self.status_code = status_code


@pytest.mark.parametrize(
    ("exc", "transient"),
    [
        (TimeoutError(), True),
        (httpx.ConnectError("refused"), True),
        (_StatusError(429), True),
        (_StatusError(503), True),
        (_StatusError(400), False),
        (ModelOutputError("bad json"), True),
        (ValueError("bug"), False),
    ],
)
def test_transient_errors(exc: BaseException, transient: bool) -> None:
    assert is_transient(exc) is transient


async def test_retries_then_succeeds_and_gives_up() -> None:
    calls = 0

    async def flaky() -> str:
        nonlocal calls
        calls += 1
        if calls < 3:
            raise _StatusError(429)
        return "ok"

    assert await RetryPolicy.no_wait(3).call(flaky) == "ok"
    assert calls == 3

    calls = 0

    async def always() -> str:
        nonlocal calls
        calls += 1
        raise _StatusError(500)

    with pytest.raises(_StatusError):
        await RetryPolicy.no_wait(2).call(always)
    assert calls == 2


async def test_non_transient_is_not_retried() -> None:
    calls = 0

    async def bug() -> None:
        nonlocal calls
        calls += 1
        raise ValueError("bug")

    with pytest.raises(ValueError):
        await RetryPolicy.no_wait(5).call(bug)
    assert calls == 1


def test_default_backoff_matches_the_seed() -> None:
    policy = RetryPolicy()
    assert (policy.multiplier, policy.wait_min, policy.wait_max) == (2.0, 4.0, 60.0)


def test_secrets_are_scrubbed_from_logs(caplog: pytest.LogCaptureFixture) -> None:
    scrubber = configure_logging("INFO", ["sk-live-123456", "tok-abcdef"])
    caplog.handler.addFilter(scrubber)
    log = logging.getLogger("relais.test")
    log.warning("calling with key %s and token tok-abcdef", "sk-live-123456")
    text = caplog.text
    assert "sk-live-123456" not in text and "tok-abcdef" not in text
    assert REDACTED in text


def test_a_short_or_embedded_value_is_not_masked_everywhere(caplog: pytest.LogCaptureFixture) -> None:
    """Issue 29: with the demo password "relais" every path read "…/***/.***/chainlit.db". A
    value shorter than MIN_SECRET_CHARS is a word, not scrubbed by value; a long one is masked
    wherever it stands as a whole token, not inside a longer run of letters and digits."""
    scrubber = configure_logging("INFO", ["relais", "alice-pass-1", "sk-live-123456"])
    caplog.handler.addFilter(scrubber)
    log = logging.getLogger("relais.test")
    log.warning("db at /work/relais/.relais/chainlit.db; password alice-pass-1, key=%s;", "sk-live-123456")
    log.warning("not a secret: xsk-live-1234567")
    first, second = [record.getMessage() for record in caplog.records]
    assert first == "db at /work/relais/.relais/chainlit.db; password ***, key=***;"
    assert second == "not a secret: xsk-live-1234567"
