"""Logging set-up with a filter that scrubs configured secrets from every record."""

from __future__ import annotations

import logging
import re
from typing import Iterable

REDACTED = "***"
# A value shorter than this is not scrubbed by value: it is a word (the demo password "relais"),
# and masking each occurrence turned paths into "…/***/.***/chainlit.db" while hiding nothing a
# reader could not guess. Such passwords are refused off loopback (`relais doctor`).
MIN_SECRET_CHARS = 8


def _as_token(secret: str) -> str:
    """The secret as a whole token: not inside a longer run of letters and digits."""
    return rf"(?<![0-9A-Za-z]){re.escape(secret)}(?![0-9A-Za-z])"


class SecretScrubber(logging.Filter):
    """Replaces configured secret values in a record's message and arguments: values of at least
    `MIN_SECRET_CHARS` characters, wherever they stand as a whole token."""

    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        self.secrets = sorted({s for s in secrets if s and len(s) >= MIN_SECRET_CHARS}, key=len, reverse=True)
        self._pattern = re.compile("|".join(_as_token(s) for s in self.secrets)) if self.secrets else None

    def scrub(self, text: str) -> str:
        return self._pattern.sub(REDACTED, text) if self._pattern else text

    def filter(self, record: logging.LogRecord) -> bool:
        if self.secrets:
            record.msg = self.scrub(record.getMessage())
            record.args = None
            if record.exc_text:
                record.exc_text = self.scrub(record.exc_text)
        return True


def configure_logging(level: str = "INFO", secrets: Iterable[str] = ()) -> SecretScrubber:
    """Root logging with secret scrubbing on every handler (idempotent)."""
    scrubber = SecretScrubber(secrets)
    root = logging.getLogger()
    if not root.handlers:
        logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    root.setLevel(level)
    for handler in root.handlers:
        for old in [f for f in handler.filters if isinstance(f, SecretScrubber)]:
            handler.removeFilter(old)
        handler.addFilter(scrubber)
    return scrubber
